# The page sizes the model gives kernel code are the guest's own (issue
# 33, item 4): x86-64 Linux maps the kernel image's text with 2 MiB
# pages, but splits the last 2 MiB page that holds text into 4 KiB ones
# (the rest of it, past _etext's page, is made NX).  The qemu backend
# reports the range it models with large pages (backend data
# kernel_large_pages); this test boots the same kernel with QEMU's
# monitor, reads the guest's page tables there (`info tlb`: one line per
# mapping, P = a large page) and requires
#  - every mapping in that range to be an executable 2 MiB page, and the
#    range to start at _text;
#  - the text past the range, up to _etext, to be in 4 KiB pages;
#  - --kernel-page 4K to drop the range, and to cost more iTLB misses.
# The ppc64le guest (pseries under TCG) is offered 4 KiB and 64 KiB
# pages only (its boot log's "Page sizes from device-tree"), so its
# linear mapping, the kernel's text, is in 64 KiB pages: the power9
# profile's page size, with no larger kernel page.
# Boots Debian's kernels from lace's cache (lib.sh's qemu_guest).
# timeout: 300
. "$SRC/tests/integration/lib.sh"
need_qemu_x86
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
qemu_guest
cache=$(tail -n 1 "$T/.fetch-guest.out")
abi=$(cat "$cache/kernel.abi")
kernel=$cache/vmlinuz-$abi
map=$cache/System.map-$abi

cc -static -O1 -o init "$SRC/tests/fixtures/qemu/pause_init.c" || fail "cannot build the init (static libc?)"
cc -static -O1 -o spin "$SRC/tests/fixtures/qemu/spin.c" || fail "cannot build spin (static libc?)"
mkcpio init initrd

# the guest's page tables, read through QEMU's monitor once init is up
boot_tlb() {  # ARCH-PROG KERNEL APPEND MACHINE...
  local prog=$1 k=$2 append=$3; shift 3
  rm -f console.txt mon.sock
  "$prog" -accel tcg -m 512 -display none -no-reboot -serial file:console.txt \
    -monitor unix:mon.sock,server,nowait -kernel "$k" -initrd initrd -append "$append" "$@" &
  qpid=$!
  for _ in $(seq 120); do
    grep -q 'lace-pagesize-init: up' console.txt 2>/dev/null && break
    kill -0 "$qpid" 2>/dev/null || break
    sleep 0.5
  done
  grep -q 'lace-pagesize-init: up' console.txt 2>/dev/null || { kill "$qpid"; fail "the guest did not come up: $(tail -3 console.txt)"; }
  python3 - "$4" <<'PY' || { kill "$qpid"; fail "cannot read QEMU's monitor"; }
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect("mon.sock")
s.settimeout(5)
def drain(until=b"(qemu) "):
    buf = b""
    while not buf.endswith(until):
        d = s.recv(1 << 20)
        if not d:
            break
        buf += d
    return buf
drain()
s.sendall(b"info tlb\n")
open("tlb.txt", "wb").write(drain())
s.sendall(b"quit\n")
PY
  wait "$qpid"
}

boot_tlb qemu-system-x86_64 "$kernel" "console=ttyS0 nokaslr panic=-1"
expect_exit 0 "$LACE" stat --backend qemu -r 1 --json --no-results -e iTLB-load-misses:k -- ./spin
printf '%s\n' "$OUT" > large.json
expect_exit 0 "$LACE" stat --backend qemu --kernel-page 4K -r 1 --json --no-results -e iTLB-load-misses:k -- ./spin
printf '%s\n' "$OUT" > small.json

python3 - "$map" <<'PY' || fail "the modelled large pages are not the guest's"
import json, sys
sym = {}
for line in open(sys.argv[1]):
    a, t, n = line.split()[:3]
    sym[n] = int(a, 16)
text, etext = sym["_text"], sym["_etext"]
pages = {}
for line in open("tlb.txt", errors="replace"):
    f = line.split()
    if len(f) == 3 and f[0].endswith(":") and len(f[2]) == 9:
        pages[int(f[0][:-1], 16)] = f[2]
large = json.load(open("large.json"))["backend_data"][0].get("kernel_large_pages")
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad |= not cond
check(large is not None, "the backend reports a large-page range: %s" % large)
if large:
    lo, hi = int(large["from"], 16), int(large["to"], 16)
    check(large["size"] == 2 << 20 and lo == text, "2 MiB pages from _text (%#x): %#x-%#x" % (text, lo, hi))
    inside = [a for a in pages if lo <= a < hi]
    check(len(inside) == (hi - lo) >> 21 and all(a % (2 << 20) == 0 for a in inside),
          "%d mappings in the range, each a whole 2 MiB page" % len(inside))
    check(all(pages[a][2] == "P" and pages[a][0] != "X" for a in inside),
          "every one large (P) and executable: %s" % sorted(set(pages[a] for a in inside)))
    tail = [a for a in pages if hi <= a < etext]
    check(tail and all(pages[a][2] != "P" for a in tail) and
          sorted(tail) == list(range(hi, hi + 4096 * len(tail), 4096)),
          "the text past it, to _etext (%#x), in %d 4 KiB pages" % (etext, len(tail)))
small = json.load(open("small.json"))
check(small["backend_data"][0].get("kernel_large_pages") is None, "--kernel-page 4K: no large pages")
n2 = json.load(open("large.json"))["events"][0]["values"][0]
n4 = small["events"][0]["values"][0]
check(n4 > n2, "kernel iTLB misses: %d in 4 KiB pages, %d with the text in 2 MiB pages" % (n4, n2))
sys.exit(bad)
PY

# ppc64le: the page sizes pseries offers its guest under TCG
if command -v qemu-system-ppc64 >/dev/null; then
  qemu_guest --arch ppc64le
  pcache=$(tail -n 1 "$T/.fetch-guest.out")
  pabi=$(cat "$pcache/kernel.abi")
  rm -f console.txt
  timeout 120 qemu-system-ppc64 -M pseries,x-vof=on -cpu POWER8 -m 1G -display none -no-reboot \
    -serial file:console.txt -kernel "$pcache/vmlinux-$pabi" -append "console=hvc0 panic=-1" >/dev/null 2>&1
  sizes=$(sed -n 's/.*hash-mmu: base_shift=\([0-9]*\):.*/\1/p' console.txt | sort -n | tr '\n' ' ')
  expect_eq "$sizes" "12 16 " "the ppc64le guest's base page shifts"
  grep -q '^size = 65536' "$SRC/measure/model/profiles/power9.conf" || fail "power9.conf: not 64 KiB pages"
  grep -q '^kernel' "$SRC/measure/model/profiles/power9.conf" && fail "power9.conf: a kernel page the guest does not have"
else
  skip_part "ppc64le: qemu-system-ppc64 not installed (Debian package qemu-system-ppc)"
fi
parts_done
