# scripts/fetch-deb.sh, lace's one fetcher, against a Debian mirror served
# from a local folder (mirror_lib.sh; no network): the mirror comes from
# apt's sources, never from the manifest; a package is fetched from apt's
# list, or by its pinned pool path when the list that holds it fails
# ("File has unexpected size ... Mirror sync in progress?", the failure
# that once cost the kernel study three readings) or lacks it; a download
# whose SHA256 or size is not the pin's, a transfer cut short and a mirror
# that hangs each end in one line naming the package, the URL or list and
# the reason, with nothing left behind; a version gone from the mirror
# names the manifest's successor, which LACE_ALLOW_NEWER=1 takes and says
# so; a second run fetches nothing.
# timeout: 120
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/mirror_lib.sh"
F=$SRC/scripts/fetch-deb.sh
export LACE_CACHE=$T/cache LACE_FETCH_TIMEOUT=2 LACE_FETCH_TRIES=2
unset LACE_ALLOW_NEWER

# the fixtures: a (with an epoch) from the bookworm list; b only in the
# bookworm-security ppc64el list, which will not download; c only in the
# pool; d pinned with a SHA256 that is not its own; e in the pool, cut
# short in transit; g pinned at 1.0-1, which the mirror has dropped for 1.1-1
a=$(mirror_deb lace-fix-a 1:1.0-1 amd64)
b=$(mirror_deb lace-fix-b 2.0-1 ppc64el)
c=$(mirror_deb lace-fix-c 1.0-1 amd64)
d=$(mirror_deb lace-fix-d 1.0-1 amd64)
e=$(mirror_deb lace-fix-e 1.0-1 amd64)
g0=$(mirror_deb lace-fix-g 1.0-1 amd64)
g1=$(mirror_deb lace-fix-g 1.1-1 amd64)
pa=$(mirror_put "$a" bookworm)
pb=$(mirror_put "$b" bookworm-security)
pc=$(mirror_put "$c" bookworm-security unlisted)
pd=$(mirror_put "$d" bookworm)
pe=$(mirror_put "$e" bookworm unlisted)
pg1=$(mirror_put "$g1" bookworm)
mirror_index
mirror_break_list bookworm-security ppc64el
mirror_pin fix-a "$a" bookworm "$pa"
mirror_pin fix-b "$b" bookworm-security "$pb"
mirror_pin fix-c "$c" bookworm-security "$pc"
mirror_pin fix-d "$d" bookworm "$pd" "" "$(printf '%064d' 0)"
mirror_pin fix-e "$e" bookworm "$pe"
mirror_pin fix-g "$g0" bookworm pool/main/l/lace-fix-g/lace-fix-g_1.0-1_amd64.deb "newest lace-fix-g"
mirror_start
# the system's lists, as `apt-get update` left them (amd64 only here)
apt-get -q update > "$T/update.log" 2>&1 || fail "apt-get update from the local mirror: $(tail -3 "$T/update.log")"
grep -q '^lace-fix-a' <(apt-cache pkgnames lace-fix) || fail "apt does not list the mirror's packages"
cd "$T" || exit 1

# from apt's list: the pool file's name (no epoch), verified, recorded
expect_exit 0 "$F" fix-a out
expect_eq "$OUT" "out/lace-fix-a_1.0-1_amd64.deb" "fix-a's path"
cmp -s "$OUT" "$a" || fail "fix-a is not the mirror's file"
expect_eq "$(cat cache/downloads/fix-a.used)" "lace-fix-a 1:1.0-1 amd64 $(sha256sum "$a" | cut -d' ' -f1) pinned" "fix-a's record"
expect_nomatch . "$(ls -A out | grep -v '\.deb$')"

# the list that holds b fails to download (its size is not the Release's):
# apt-get update of the fetcher's own ppc64el lists says so, and b comes
# by its pool path from the mirror the security source names
expect_exit 0 "$F" fix-b out
cmp -s "$OUT" "$b" || fail "fix-b is not the mirror's file"
expect_match "not from apt's list \(apt's bookworm-security ppc64el list: File has unexpected size \([0-9]+ != [0-9]+\)\. Mirror sync in progress\?\); fetched by its pool path http://127\.0\.0\.1:$PORT/debian-security/$pb, size and SHA256 verified" "$ERR"
[ -d cache/apt/ppc64el/lists ] || fail "the ppc64el lists are not the fetcher's own"

# only in the pool: not in the list, fetched by path
expect_exit 0 "$F" fix-c out
cmp -s "$OUT" "$c" || fail "fix-c is not the mirror's file"
expect_match "not from apt's list \(apt's bookworm-security amd64 list: Unable to locate package lace-fix-c\); fetched by its pool path http://127\.0\.0\.1:$PORT/debian-security/$pc" "$ERR"

# the SHA256 is not the pin's: neither the list's copy nor the pool's is
# used, and neither is left
expect_exit 1 "$F" --retry "try-again-d" fix-d out
expect_one_line "$ERR"
expect_match "^fetch-deb: lace-fix-d 1\.0-1 \(amd64\): http://127\.0\.0\.1:$PORT/debian/$pd has SHA256 $(sha256sum "$d" | cut -d' ' -f1), not the expected 0{64} \(deleted\); apt's bookworm amd64 list: the download has SHA256 .* \(deleted\); retry: try-again-d$" "$ERR"
[ ! -e out/lace-fix-d_1.0-1_amd64.deb ] || fail "a file that does not verify was kept"
expect_eq "$(ls -A out | grep -c '^\.fetch')" 0 "temporary folders left"
# a wrong copy already in the folder is deleted, never used
head -c 100 "$d" > out/lace-fix-c_1.0-1_amd64.deb
expect_exit 0 "$F" fix-c out
expect_match "out/lace-fix-c_1\.0-1_amd64\.deb: 100 bytes, not the $(wc -c < "$c") expected: deleted, fetching it again" "$ERR"
cmp -s out/lace-fix-c_1.0-1_amd64.deb "$c" || fail "the wrong copy of fix-c was kept"

# a transfer cut short: every try fails, nothing is left, the reason is apt's
mirror_rule "lace-fix-e" truncate
expect_exit 1 "$F" fix-e out
expect_one_line "$ERR"
expect_match "^fetch-deb: lace-fix-e 1\.0-1 \(amd64\): apt's bookworm amd64 list: .*; http://127\.0\.0\.1:$PORT/debian/$pe: .*: the transfer stopped after [0-9]+ of $(wc -c < "$e") bytes \(after 2 tries\); retry: run the same command again" "$ERR"
expect_eq "$(grep -c "$pe" "$T/mirror.log")" 2 "tries of the cut-short download"
[ ! -e out/lace-fix-e_1.0-1_amd64.deb ] || fail "a cut-short download was kept"
: > "$T/mirror.rules"
expect_exit 0 "$F" fix-e out
cmp -s "$OUT" "$e" || fail "fix-e is not the mirror's file once the mirror serves it whole"

# a mirror that hangs: LACE_FETCH_TIMEOUT (1 s) per try, then one line
mirror_rule . hang
t0=$(date +%s)
LACE_FETCH_TIMEOUT=1 expect_exit 1 "$F" fix-c hung
took=$(( $(date +%s) - t0 ))
expect_one_line "$ERR"
expect_match "^fetch-deb: lace-fix-c 1\.0-1 \(amd64\): .*http://127\.0\.0\.1:$PORT/debian-security/$pc: Connection failed: no answer within 1 s \(LACE_FETCH_TIMEOUT\) \(after 2 tries\)" "$ERR"
[ "$took" -lt 30 ] || fail "a hanging mirror took $took s with a 1 s timeout and 2 tries"
: > "$T/mirror.rules"

# gone from the mirror: one line naming the successor, used only when asked
expect_exit 1 "$F" fix-g out
expect_one_line "$ERR"
expect_match "^fetch-deb: lace-fix-g 1\.0-1 \(amd64\) is no longer on the mirror \(.*404.*\); the manifest's successor \(newest lace-fix-g\) is lace-fix-g 1\.1-1 now: LACE_ALLOW_NEWER=1" "$ERR"
expect_exit 0 "$F" --resolve fix-g
expect_eq "$OUT" "lace-fix-g 1.0-1 amd64 pinned" "fix-g resolved without LACE_ALLOW_NEWER"
LACE_ALLOW_NEWER=1 expect_exit 0 "$F" fix-g out
cmp -s "$OUT" "$g1" || fail "LACE_ALLOW_NEWER=1 did not take lace-fix-g 1.1-1"
expect_match "^fetch-deb: using lace-fix-g 1\.1-1 \(amd64\), not the pinned lace-fix-g 1\.0-1 \(LACE_ALLOW_NEWER=1\)" "$ERR"
LACE_ALLOW_NEWER=1 expect_exit 0 "$F" --resolve fix-g
expect_eq "$OUT" "lace-fix-g 1.1-1 amd64 newer" "fix-g resolved with LACE_ALLOW_NEWER=1"
expect_exit 0 "$F" --resolve fix-g
expect_eq "$OUT" "lace-fix-g 1.0-1 amd64 pinned" "fix-g resolved once LACE_ALLOW_NEWER is gone"

# a second run fetches nothing: every verified file is used as it is
n=$(mirror_requests)
for r in fix-a fix-b fix-c fix-e; do
  expect_exit 0 "$F" "$r" out
  expect_eq "$ERR" "" "stderr of the second fetch of $r"
done
LACE_ALLOW_NEWER=1 expect_exit 0 "$F" fix-g out
expect_eq "$(mirror_requests)" "$n" "requests to the mirror on the second run"

# the manifest's own errors are usage errors (2), in one line
expect_exit 2 "$F" no-such-role out
expect_match "no stanza has Role or Package no-such-role" "$ERR"
exit 0
