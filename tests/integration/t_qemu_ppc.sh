# The ppc64le guest of issue 13 (acceptance item 3, guest side): Debian's
# powerpc64le kernel from lace's cache boots under
# qemu-system-ppc64 -M pseries,x-vof=on -cpu POWER8 with the hash MMU (the
# events themselves show it: radix never calls hash_page_mm), and
# a static /init touching N fresh 64 KiB pages sees at least N
# powerpc:hash_fault events from the kernel's own tracing.  lace stat's
# qemu backend does not boot ppc64le guests yet; this pins the kernel,
# the cache layout and the counting method it will use.
# Skipped, saying so, when QEMU, the cross compiler or the cached guest
# (scripts/fetch-guest.sh --arch ppc64le, ~8 s) is missing.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
command -v qemu-system-ppc64 >/dev/null || skip "qemu-system-ppc64 not installed"
command -v powerpc64le-linux-gnu-gcc >/dev/null || skip "powerpc64le-linux-gnu-gcc not installed"
command -v python3 >/dev/null || skip "python3 needed to write the initramfs"
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/ppc64le"
[ -f "$cache/kernel.abi" ] && [ -f "$cache/vmlinux-$(cat "$cache/kernel.abi")" ] ||
  skip "no ppc64le guest in $cache (run scripts/fetch-guest.sh --arch ppc64le)"
abi=$(cat "$cache/kernel.abi")
cd "$T" || exit 1

N=512
powerpc64le-linux-gnu-gcc -static -O2 -DPAGES=$N -o init \
  "$SRC/tests/fixtures/qemu/ppc_touch_init.c" || fail "cross cc -static init"
mkcpio init initrd.cpio
t0=$(date +%s.%N)
timeout 240 qemu-system-ppc64 -M pseries,x-vof=on -cpu POWER8 -m 512 \
  -icount shift=0,sleep=off -rtc base=2020-01-01T00:00:00,clock=vm \
  -nographic -no-reboot -kernel "$cache/vmlinux-$abi" -initrd initrd.cpio \
  -append "console=hvc0 panic=-1 quiet" > boot.log 2>&1 < /dev/null
t1=$(date +%s.%N)
tr -d '\r' < boot.log > console.log
grep -q lace-init-ok console.log || fail "did not boot to /init: $(tail -5 console.log)"
ev=$(sed -n 's/^hash_fault events: //p' console.log)
echo "$abi: ${ev:-no} powerpc:hash_fault events for $N touched pages (boot $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
[ -n "$ev" ] && [ "$ev" -ge "$N" ] || fail "${ev:-no} hash_fault events for $N touched pages"
exit 0
