# The kernel study's guest workload end to end: the cross-built static
# build/ppc64le/bench/faultbench --real, run by lace stat --backend qemu in
# Debian's ppc64le guest (hash MMU, 64 KiB pages), makes the guest kernel
# take one powerpc:hash_fault per touched page: N more pages, N more
# events (counted by the guest kernel's own tracing), whatever the
# program's own start-up costs.  The guest is fetched into lace's cache
# when missing (lib.sh's qemu_guest, ~8 s); skipped, saying so, without
# QEMU or the guest workloads, or when the fetch fails.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
FB=$BUILD/ppc64le/bench/faultbench
ppc_guest
built "$FB" "make builds it with powerpc64le-linux-gnu-gcc"
abi=$ppc_abi
cd "$T" || exit 1

# faults PAGES: the guest's powerpc:hash_fault count for faultbench --real
faults() {
  "$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" \
    -e powerpc:hash_fault -r 1 --no-results --json -- "$FB" --real --pages "$1" \
    > "out-$1.json" 2> "err-$1.txt" || fail "lace stat, $1 pages: $(tail -3 "err-$1.txt")"
  python3 -c 'import json, sys
e = {x["name"]: x for x in json.load(open(sys.argv[1]))["events"]}["powerpc:hash_fault"]
assert e["status"] == "counted", e
print(int(e["mean"]))' "out-$1.json" || fail "no hash_fault count in out-$1.json"
}

N=256
base=$(faults 1) || exit 1
more=$(faults $((N + 1))) || exit 1
echo "$abi: faultbench --real: $base hash faults for 1 page, $more for $((N + 1)) pages"
# one hash fault per page: exact under -icount (measured: 255 for 255
# pages, 511 for 511); a little slack for an HPT eviction
d=$((more - base))
[ "$d" -ge "$N" ] && [ "$d" -le $((N + 8)) ] ||
  fail "$N more pages took $d more hash faults (expected $N)"
exit 0
