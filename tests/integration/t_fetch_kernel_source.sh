# lace build kernel fetches Debian's linux-source through scripts/fetch-deb.sh
# (the pin of downloads.manifest, verified), here from a mirror on
# localhost (mirror_lib.sh) whose list lacks it: it comes by its pool
# path, src/fetch.log says so, and the tree is extracted with its version
# (the fixture's tree then fails to configure, in one line: no kernel is
# built).  A tree of another version than the pin's is refused in one
# line, never built from quietly; a source the mirror no longer has fails
# in one line naming the package, the URL, the reason and the retry.
# Offline.
# timeout: 60
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/mirror_lib.sh"
export LACE_CACHE=$T/cache LACE_FETCH_TIMEOUT=2 LACE_FETCH_TRIES=1
unset LACE_ALLOW_NEWER
pkg=$(sed -n 's/^package *= *//p' "$SRC/kernel/kernel.conf")
tarball=$(sed -n 's/^tarball *= *//p' "$SRC/kernel/kernel.conf")
dir=$(sed -n 's/^dir *= *//p' "$SRC/kernel/kernel.conf")
mkdir -p "$T/tree/$dir"
printf 'tinyconfig:\n\t@echo "a fixture tree: no kernel here" >&2; exit 1\n' > "$T/tree/$dir/Makefile"
deb=$(mirror_deb "$pkg" 6.1.999-1 all)
mkdir -p "${deb%.deb}/$(dirname "$tarball")"
tar -cJf "${deb%.deb}/$tarball" -C "$T/tree" "$dir"
dpkg-deb --root-owner-group -Zgzip --build "${deb%.deb}" "$deb" >/dev/null || fail "dpkg-deb --build $pkg"
pool=$(mirror_put "$deb" bookworm-security unlisted)
mirror_index
mirror_pin linux-source "$deb" bookworm-security "$pool"
mirror_start
apt-get -q update > "$T/update.log" 2>&1 || fail "apt-get update from the local mirror: $(tail -3 "$T/update.log")"
cd "$T" || exit 1

expect_exit 1 "$LACE" build kernel x86_64 -o out
expect_one_line "$ERR"
expect_match "^lace: build: configuring the kernel failed" "$ERR"
expect_eq "$(cat cache/src/$dir.done)" "6.1.999-1" "the extracted source's version"
[ -f "cache/src/$dir/Makefile" ] || fail "the source was not extracted"
expect_match "fetch-deb: $pkg 6\.1\.999-1 \(all\): not from apt's list .*; fetched by its pool path http://127\.0\.0\.1:$PORT/debian-security/$pool, size and SHA256 verified" "$(cat cache/src/fetch.log)"
[ -z "$(ls cache/src/*.deb 2>/dev/null)" ] || fail "the .deb was kept after the extraction"

# the pin moves on: the tree of the old one is refused, in one line
sed -i 's/^Version: 6\.1\.999-1$/Version: 6.1.999-2/; s/_6\.1\.999-1_all\.deb$/_6.1.999-2_all.deb/' "$LACE_MANIFEST"
expect_exit 1 "$LACE" build kernel x86_64 -o out
expect_one_line "$ERR"
expect_match "^lace: build: .*/cache/src/$dir: holds $pkg 6\.1\.999-1, not the 6\.1\.999-2 that scripts/downloads\.manifest stands for now: remove it and .*\.done to fetch that one$" "$ERR"

# and the mirror has no 6.1.999-2: one line, the package, URL, reason, retry
rm -rf "cache/src/$dir" "cache/src/$dir.done"
expect_exit 1 "$LACE" build kernel x86_64 -o out
expect_one_line "$ERR"
expect_match "^lace: build: fetching the kernel source failed \(exit 1\): fetch-deb: $pkg 6\.1\.999-2 \(all\) is no longer on the mirror \(apt's bookworm-security amd64 list: .*; http://127\.0\.0\.1:$PORT/debian-security/.*_6\.1\.999-2_all\.deb: 404 +Not Found\), and apt's lists have no successor" "$ERR"
exit 0
