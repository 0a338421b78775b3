# Issue 13, acceptance item 3: on Debian's ppc64le kernel (booted by
# lace stat --backend qemu under qemu-system-ppc64 -M pseries,x-vof=on
# -cpu POWER8, the hash MMU), a run touching N fresh 64 KiB pages
# reports at least N powerpc:hash_fault events (counted by the guest
# kernel's own tracing) and the path length per call of hash_page_mm and
# __hash_page_64K with their calls (lace's TCG plugin); two runs give
# identical counts; a host (x86-64) program is refused with a one-line
# error instead of failing in the guest.
# The guest is fetched into lace's cache when missing (lib.sh's
# qemu_guest, ~8 s); skipped, saying so, without QEMU or the cross
# compiler, or when the fetch fails.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
ppc_guest
abi=$ppc_abi
cd "$T" || exit 1

N=256
powerpc64le-linux-gnu-gcc -static -O2 -o touch "$SRC/tests/fixtures/qemu/ppc_touch.c" ||
  fail "cross cc -static touch"
t0=$(date +%s.%N)
"$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" \
  -e instructions:k,instructions:u,powerpc:hash_fault --path-length hash_page_mm,__hash_page_64K \
  -r 2 --no-results --json -- ./touch $N > out.json 2> err.txt || fail "lace stat: $(tail -3 err.txt)"
t1=$(date +%s.%N)
bid=$(readelf -n "$ppc_vmlinux" | sed -n 's/.*Build ID: //p' | head -n 1)
python3 - "$N" "$abi" "$bid" > summary.txt <<'PY' || fail "$(cat summary.txt)"
import json, sys
n = int(sys.argv[1])
d = json.load(open("out.json"))
# the results say which kernel ran, from the guest itself
for r in d["backend_data"]:
    assert r["guest_arch"] == "ppc64le", r["guest_arch"]
    assert (r["kernel_release"], r["kernel_build_id"]) == (sys.argv[2], sys.argv[3]), \
        (r["kernel_release"], r["kernel_build_id"], sys.argv[2:])
ev = {e["name"]: e for e in d["events"]}
hf = ev["powerpc:hash_fault"]
assert hf["status"] == "counted", hf
for e in d["events"]:
    assert e["stddev"] == 0, "runs differ: %s %s" % (e["name"], e["values"])
paths = [r["paths"] for r in d["backend_data"]]
assert len(paths) == 2 and paths[0] == paths[1], "path lengths differ between runs: %s" % paths
p = {x["name"]: x for x in paths[0]}
faults = int(hf["mean"])
assert faults >= n, "%d hash_fault events for %d touched pages" % (faults, n)
hpm, h64 = p["hash_page_mm"], p["__hash_page_64K"]
assert hpm["calls"] >= n and h64["calls"] >= n, "calls: %s" % p
# every hash fault goes through hash_page_mm once
assert hpm["calls"] == faults, "hash_page_mm calls %d, hash_fault events %d" % (hpm["calls"], faults)
# hash_page_mm calls __hash_page_64K: its path is the larger
assert hpm["per_call"] > h64["per_call"] > 20, p
print("%d pages: %d hash_fault events; hash_page_mm %d calls x %.1f instructions; "
      "__hash_page_64K %d calls x %.1f; instructions:k %d" %
      (n, faults, hpm["calls"], hpm["per_call"], h64["calls"], h64["per_call"],
       ev["instructions:k"]["mean"]))
PY
echo "$abi: $(cat summary.txt) (2 boots in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"

# a host program is refused before any boot, in one line
if "$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" \
    -e instructions:k -r 1 --no-results -- /bin/true > out2.txt 2> err2.txt; then
  fail "an x86-64 program was accepted for the ppc64le guest"
fi
grep -q "not a ppc64le program" err2.txt || fail "no clear error: $(cat err2.txt)"
exit 0
