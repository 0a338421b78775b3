# Every function and file the docs and the product's comments name exists
# (scripts/check-doc-names.sh): `name()` defined in the tree or the system
# headers, `measure/runner.c`-style paths present.  On a scratch copy of the
# tree, a planted stale function, path and file name each make it fail,
# naming the file and line.
. "$SRC/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (Debian package python3)"
check=$SRC/scripts/check-doc-names.sh

expect_exit 0 "$check" "$SRC"
expect_match '^check-doc-names: [0-9]+ names checked, all present$' "$OUT"

# a scratch copy of the tracked tree, then planted stale names
cd "$T" || exit 1
mkdir tree
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard 2>/dev/null |
  xargs -0 cp --parents -t "$T/tree" 2>/dev/null) ||
  (cd "$SRC" && tar --exclude=./build --exclude=./build-san --exclude=./.git -cf - . | tar -xf - -C "$T/tree") ||
  fail "cannot copy the tree"
expect_exit 0 "$check" "$T/tree"
cp -r tree tree2 || fail "cannot copy the tree"

printf '\nSee `no_such_helper_fn()` in `measure/no_such_room/runner.c`.\n' >>tree/doc/architecture.md
expect_exit 1 "$check" "$T/tree"
n=$(wc -l <tree/doc/architecture.md)
expect_match "^doc/architecture.md:$n: stale no_such_helper_fn\\(\\)" "$OUT"
expect_match "^doc/architecture.md:$n: stale measure/no_such_room/runner.c" "$OUT"
expect_match '^check-doc-names: 2 stale of [0-9]+ names checked$' "$OUT"

# in a C comment: a bare file name and a path, not backticked
printf '/* the models, built by measure/sim/module.mk from backend_sim.c */\n' >>tree/measure/model/model.h
expect_exit 1 "$check" "$T/tree"
expect_match '^measure/model/model.h:[0-9]+: stale measure/sim/module.mk' "$OUT"
expect_match '^measure/model/model.h:[0-9]+: stale backend_sim.c' "$OUT"

# in a man page, through groff's escapes
printf '.PP\nSee \\fBscripts/fetch\\-nothing.sh\\fR and \\fBgone_fn\\fR().\n' >>tree/doc/lace.1
expect_exit 1 "$check" "$T/tree"
expect_match '^doc/lace.1:[0-9]+: stale scripts/fetch-nothing.sh' "$OUT"
expect_match '^doc/lace.1:[0-9]+: stale gone_fn\(\)' "$OUT"

# a definition with an attribute before its name defines the name, not
# __attribute__: on the copy kept clean, a doc naming it passes
printf 'static __attribute__((noinline)) void planted_attr_fn(int x)\n{\n}\n' >tree2/measure/planted.c
printf '\nSee `planted_attr_fn()`.\n' >>tree2/doc/architecture.md
expect_exit 0 "$check" "$T/tree2"
rm tree2/measure/planted.c
expect_exit 1 "$check" "$T/tree2"
expect_match "stale planted_attr_fn\\(\\)" "$OUT"
exit 0
