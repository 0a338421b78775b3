# The newcomer's path: on a machine where the libraries are not installed
# yet, plain `make` runs setup first and only then reads the libraries'
# flags, so it links in one go and builds the whole product (lace and the
# simulator tool).  Stand-ins make the machine "fresh": a pkg-config that
# knows nothing until setup has run, and a setup that only records it ran.
# The source tree and the build folder are copied with their timestamps,
# so only the links are redone (seconds, not a full build).
. "$SRC/tests/integration/lib.sh"
: "${T:?run by tests/integration/run.sh, which sets T}"

san=
case $(basename "$BUILD") in *-san) san=1 ;; esac
tree=$T/tree
mkdir -p "$tree" "$T/bin"
(cd "$SRC" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --) | tar -C "$tree" -xf - \
  || fail "cannot copy the source tree"
cp -a "$BUILD" "$tree/" || fail "cannot copy $BUILD"
b=$tree/$(basename "$BUILD")
rm -f "$b/lace" "$b/vg/lace-vg-amd64-linux"

real_pc=$(command -v pkg-config) || skip "pkg-config is not installed"
cat > "$T/bin/pkg-config" <<EOF
#!/bin/sh
# knows nothing until the stand-in setup has run
[ -f "$T/setup-ran" ] || exit 1
exec "$real_pc" "\$@"
EOF
cat > "$tree/scripts/setup-deps.sh" <<EOF
#!/bin/sh
touch "$T/setup-ran"
EOF
chmod +x "$T/bin/pkg-config" "$tree/scripts/setup-deps.sh"

# make as a user types it: nothing inherited from the make running the tests
unset MAKEFLAGS MFLAGS MAKELEVEL GNUMAKEFLAGS
PATH=$T/bin:$PATH make -C "$tree" ${san:+SANITIZE=1} >"$T/make.log" 2>&1 \
  || fail "plain make failed on a fresh machine: $(grep -m3 -E 'error|undefined|lace:' "$T/make.log")"
[ -f "$T/setup-ran" ] || fail "make did not run setup"
[ -x "$b/lace" ] || fail "make did not build lace"
[ -x "$b/vg/lace-vg-amd64-linux" ] || fail "plain make did not build the simulator tool"

# the README's first measuring command works straight after
if [ -z "$san" ]; then
  expect_exit 0 "$b/lace" stat --no-results --backend sim -e instructions -- true
  expect_match '^ +[0-9]{4,} +instructions' "$OUT"
fi

# setup that does not bring the libraries: one line naming them, not a
# thousand undefined references
rm -f "$b/lace" "$T/setup-ran"
printf '#!/bin/sh\nexit 0\n' > "$tree/scripts/setup-deps.sh"
PATH=$T/bin:$PATH make -C "$tree" ${san:+SANITIZE=1} >"$T/make2.log" 2>&1 \
  && fail "make succeeded without the libraries"
grep -q 'undefined reference' "$T/make2.log" && fail "link was attempted without the libraries"
expect_match "lace: pkg-config does not know libdw libelf gsl jansson inih libzstd \(run 'make setup' as root\)" \
  "$(cat "$T/make2.log")"
exit 0
