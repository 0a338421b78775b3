# lace study --kernel when a guest cannot be fetched (issue 35): the
# guests come from a mirror on localhost (mirror_lib.sh) whose
# bookworm-security ppc64el list fails ("Mirror sync in progress?") and
# whose pool cuts the stock kernel's download short.  Busybox of both
# architectures is fetched anyway (each part is its own job), the progress
# line says "guest fetch ppc64le kernel: failed:" with the cause, the first
# line of the summary and of report.md name it, the stock kernel's readings
# say it was not measured for that reason without booting anything, the
# final line names it, the exit status is 1, and the qemu backend quotes
# it.  Run again once the mirror serves the kernel, the study resumes:
# busybox is not fetched again, the kernel is.  A pin the mirror no longer
# has fails naming its successor, which LACE_ALLOW_NEWER=1 takes, listed at
# the top of the summary and the report.  No kernel builds are
# needed (every reading of lace's own kernels says "not built"), no
# network.
# timeout: 120
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/mirror_lib.sh"
export LACE_CACHE=$T/cache LACE_FETCH_TIMEOUT=2 LACE_FETCH_TRIES=1
unset LACE_ALLOW_NEWER
command -v qemu-system-ppc64 >/dev/null || fail "qemu-system-ppc64 not installed (make setup-test installs qemu-system-ppc)"

# the fixtures: busybox of both architectures, and a ppc64le "kernel"
# whose vmlinux is any ELF with a symbol table (nothing boots it)
printf '#!/bin/sh\necho a fixture busybox\n' > "$T/busybox"
chmod +x "$T/busybox"
bx=$(mirror_deb busybox-static 1:1.0-1 amd64 "$T/busybox")
bp=$(mirror_deb busybox-static 1:1.0-1 ppc64el "$T/busybox")
abi=6.1.0-99-powerpc64le
k=$(mirror_deb "linux-image-$abi" 6.1.999-1 ppc64el)
mkdir -p "${k%.deb}/boot"
for i in $(seq 1100); do printf '.globl s%d\ns%d: nop\n' "$i" "$i"; done | as -o "${k%.deb}/boot/vmlinux-$abi" ||
  fail "as: cannot make the fixture vmlinux"
echo "CONFIG_PPC64=y" > "${k%.deb}/boot/config-$abi"
dpkg-deb --root-owner-group -Zgzip --build "${k%.deb}" "$k" >/dev/null || fail "dpkg-deb --build the kernel"
pbx=$(mirror_put "$bx" bookworm)
pbp=$(mirror_put "$bp" bookworm)
pk=$(mirror_put "$k" bookworm-security)
mirror_index
mirror_break_list bookworm-security ppc64el
mirror_pin x86_64-busybox "$bx" bookworm "$pbx"
mirror_pin ppc64le-busybox "$bp" bookworm "$pbp"
mirror_pin ppc64le-kernel "$k" bookworm-security "$pk" "newest linux-image-6.1.0-*-powerpc64le"
mirror_start
apt-get -q update > "$T/update.log" 2>&1 || fail "apt-get update from the local mirror: $(tail -3 "$T/update.log")"
mirror_rule "linux-image-$abi" truncate
cd "$T" || exit 1
mkdir nokernels

"$LACE" study --kernel --quick --no-build --kernels nokernels --out ks > out.txt 2> err.txt
expect_eq "$?" 1 "exit status of a study whose guest fetch failed"
cause="fetch-deb: linux-image-$abi 6\.1\.999-1 \(ppc64el\): apt's bookworm-security ppc64el list: File has unexpected size \([0-9]+ != [0-9]+\)\. Mirror sync in progress\?; http://127\.0\.0\.1:$PORT/debian-security/$pk: [^;]+; retry: scripts/fetch-guest\.sh --arch ppc64le --part kernel"
expect_match "^lace study --kernel: incomplete: guest fetch ppc64le kernel failed: $cause$" "$(head -n 1 out.txt)"
expect_match "^\*\*Incomplete: guest fetch ppc64le kernel failed: " "$(head -n 1 ks/report.md)"
grep -qF "$(head -n 1 out.txt | sed 's/^lace study --kernel: incomplete: //; s/\*/\\*/g')" <(head -n 1 ks/report.md | sed 's/\\//g') ||
  fail "report.md's first line does not name the cause: $(head -n 1 ks/report.md)"
expect_match "^lace study: \[guests 3/3, 1 failed, [0-9]+m[0-9]{2}s(, ~[0-9]+m[0-9]{2}s left)?\] guest fetch ppc64le kernel: failed: fetch-guest: ppc64le kernel: $cause$" "$(cat err.txt)"
expect_match "^lace: study: [0-9]+ steps could not be measured: guest fetch ppc64le kernel failed: fetch-deb: .* \(see the report\)$" "$(tail -n 1 err.txt)"
expect_nomatch "guest fetch (x86_64|ppc64le) busybox: failed" "$(cat err.txt)"
# the other parts were fetched all the same
[ -x cache/guest/x86_64/busybox ] && [ -x cache/guest/ppc64le/busybox ] ||
  fail "busybox was not fetched because the stock kernel failed"
expect_match "^$cause$" "$(cat cache/guest/ppc64le/kernel.fetch-error)"
# the stock kernel's readings say why, and nothing was booted for them
python3 - "$abi" <<'PY' || fail "results.json: see above"
import json, sys
d = json.load(open("ks/results.json"))
g = d["guests"]
assert "not_measured" not in g["x86_64"]["busybox"] and "not_measured" not in g["ppc64le"]["busybox"], g
assert "Mirror sync in progress" in g["ppc64le"]["kernel"]["not_measured"], g
for c in d["r1_tracepoint"]["configs"]:
    if c["name"].startswith("stock"):
        assert c["kernel"] == "linux-image-" + sys.argv[1], c
        assert c["not_measured"].startswith("guest fetch ppc64le kernel failed: fetch-deb: "), c
    else:
        assert "not built" in c["not_measured"], c
assert d["r3_insert_path"]["64k_stock"]["not_measured"].startswith("guest fetch ppc64le kernel failed"), d["r3_insert_path"]
assert not any("stat" in c["argv"] for c in d["commands"]), "a boot ran"
PY
# the qemu backend names the cause too
expect_exit 1 "$LACE" stat --backend qemu --kernel "linux-image-$abi" -- true
expect_one_line "$ERR"
expect_match "^lace: stat: --kernel linux-image-$abi: not in lace's cache \(its last fetch failed: $cause\)$" "$ERR"

# run again once the mirror serves the kernel: busybox is not fetched
# again, the kernel is, and the guests no longer head the report
: > "$T/mirror.rules"
n_busybox=$(grep -c busybox-static "$T/mirror.log")
"$LACE" study --kernel --quick --no-build --kernels nokernels --out ks > out2.txt 2> err2.txt
expect_eq "$?" 1 "exit status with no kernels built"
expect_eq "$(grep -c busybox-static "$T/mirror.log")" "$n_busybox" "busybox downloads on the second run"
[ -f "cache/guest/ppc64le/vmlinux-$abi" ] || fail "the second run did not fetch the kernel: $(cat err2.txt)"
[ ! -e cache/guest/ppc64le/kernel.fetch-error ] || fail "kernel.fetch-error outlived a fetch that worked"
expect_nomatch "incomplete" "$(cat out2.txt)"
expect_nomatch "Incomplete" "$(head -n 1 ks/report.md)"
expect_match "^lace study: \[guests 3/3, [0-9]+m[0-9]{2}s(, ~[0-9]+m[0-9]{2}s left)?\] guest fetch ppc64le kernel$" "$(cat err2.txt)"

# the pin of x86_64 busybox is a version the mirror does not have: the
# busybox of another version is not used, the fetch fails naming the
# successor, and LACE_ALLOW_NEWER=1 takes it, at the top of the report
python3 - "$LACE_MANIFEST" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().split("\n\n")
s = [x.replace("Version: 1:1.0-1", "Version: 1:0.9-1").replace("_1.0-1_amd64.deb", "_0.9-1_amd64.deb")
     if "Role: x86_64-busybox" in x else x for x in s]
open(p, "w").write("\n\n".join(s))
PY
"$LACE" study --kernel --quick --no-build --kernels nokernels --out ks > out3.txt 2> err3.txt
expect_eq "$?" 1 "exit status with the pinned busybox gone"
expect_match "^lace study --kernel: incomplete: guest fetch x86_64 busybox failed: fetch-deb: busybox-static 1:0\.9-1 \(amd64\) is no longer on the mirror \(.*404.*\); the manifest's successor \(newest busybox-static\) is busybox-static 1:1\.0-1 now: LACE_ALLOW_NEWER=1" "$(head -n 1 out3.txt)"
[ ! -e cache/guest/x86_64/busybox ] || fail "the busybox of another version than the pin was kept"
LACE_ALLOW_NEWER=1 "$LACE" study --kernel --quick --no-build --kernels nokernels --out ks > out4.txt 2> err4.txt
expect_eq "$?" 1 "exit status with no kernels built"
newer="fetch-deb: using busybox-static 1:1\.0-1 \(amd64\), not the pinned busybox-static 1:0\.9-1 \(LACE_ALLOW_NEWER=1\): not the committed version"
expect_match "^lace study --kernel: not the committed version: $newer$" "$(head -n 1 out4.txt)"
expect_match "^\*\*Not the committed versions\*\* \(\`LACE_ALLOW_NEWER=1\`\)" "$(head -n 1 ks/report.md)"
expect_match "^- $newer$" "$(sed -n 3p ks/report.md)"
[ -x cache/guest/x86_64/busybox ] || fail "LACE_ALLOW_NEWER=1 did not fetch the successor"
exit 0
