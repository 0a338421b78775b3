# On the ppc64le guest, user instructions stay exact when every pass of a
# loop takes a storage interrupt in the middle of a translated block
# (issue 24, acceptance 1): the plugin counts a block when it starts and
# takes back the rest that the interrupt left when the kernel returns into
# it.  ppc_fault.S executes 4 + 8 * PAGES + 3 user instructions; with the
# runner's constant C (measured with PAGES=1) 100 and 200 pages must give
# exactly C + 807 and C + 1607 (the double count gave 5 more a page).
# Boots Debian's ppc64le kernel 3 times (~8 s each); skipped, saying so,
# without QEMU, the cross compiler or the guest.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
command -v powerpc64le-linux-gnu-gcc >/dev/null || skip "powerpc64le-linux-gnu-gcc not installed"
ppc_guest
cd "$T" || exit 1
for n in 1 100 200; do
  powerpc64le-linux-gnu-gcc -static -nostdlib -DPAGES=$n -x assembler-with-cpp -o pf$n \
    "$SRC/tests/fixtures/qemu/ppc_fault.S" || fail "cross cc pf$n"
  "$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" -r 1 --json \
    --no-results --output=null -e instructions:u -- ./pf$n > q$n.json 2> q$n.err ||
    fail "lace stat pf$n: $(tail -3 q$n.err)"
done
python3 - <<'PY' || fail "user instructions with faults mid-block"
import json
q = {n: int(json.load(open("q%d.json" % n))["events"][0]["values"][0]) for n in (1, 100, 200)}
C = q[1] - (4 + 8 + 3)
print("C = %d; 100 pages: %d, 200 pages: %d" % (C, q[100], q[200]))
assert 0 < C < 1000, C
assert q[100] == C + 4 + 800 + 3, (q[100], C + 807)
assert q[200] == C + 4 + 1600 + 3, (q[200], C + 1607)
PY
exit 0
