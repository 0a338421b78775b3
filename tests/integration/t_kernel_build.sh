#!/bin/bash
# timeout: 600
# The real x86-64 kernels of `lace build --kernel x86_64` (built by `make
# check-kernel` into $LACE_KERNELS, default $BUILD/kernels) have the
# placements their names say, seen by lace layout: baseline's entry text
# is its own 2 MiB-aligned region after the main text; entry-in-text has
# the entry code inside .text in link order (arch/x86/entry before fs/)
# with empty markers; entry-align-8 and -4k align the region as named;
# each shuffled relink moves the main text by exactly its padding.  Each
# variant boots under qemu-system-x86_64 -accel tcg and runs a static /init
# (a syscall through the entry code) when QEMU is installed.
. "$SRC/tests/integration/lib.sh"
K=${LACE_KERNELS:-$BUILD/kernels}
[ -f "$K/x86_64-baseline/vmlinux" ] ||
  skip "no kernel builds in $K: 'make check-kernel' builds them (about 20 min the first time on 2 cores)"
cd "$T" || exit 1

region() { # VMLINUX NAME -> "start end" (decimal)
  "$LACE" layout --json --regions --no-dwarf "$1" |
    jq -r --arg n "$2" '.regions[] | select(.name == $n) | "\(.start) \(.end)"' | head -1
}
# kernel addresses are above 2^63: bash's signed 64-bit arithmetic keeps
# their differences, order (all in one half) and alignment right
addr() { # VMLINUX FUNCTION -> address as a bash integer
  local a
  a=$(awk -v f="$2" '$3 == f { print $1; exit }' "$(dirname "$1")/System.map")
  [ -n "$a" ] || fail "$2 not in $(dirname "$1")/System.map"
  echo $((0x$a))
}
hex2dec() { echo $(($1)); }

for v in baseline entry-in-text entry-align-8 entry-align-4k; do
  [ -f "$K/x86_64-$v/vmlinux" ] || fail "$v: not built in $K"
done

# baseline: entry region, 2 MiB-aligned, after the main text
read -r s e <<<"$(region "$K/x86_64-baseline/vmlinux" entry)"
[ -n "$s" ] || fail "baseline: no entry region"
s=$(hex2dec "$s"); e=$(hex2dec "$e")
[ $((e - s)) -gt 0 ] || fail "baseline: empty entry region"
[ $((s % 0x200000)) -eq 0 ] || fail "baseline: entry region at $s, not 2 MiB-aligned"
b_sys=$(addr "$K/x86_64-baseline/vmlinux" entry_SYSCALL_64)
b_wr=$(addr "$K/x86_64-baseline/vmlinux" ksys_write)
[ "$b_sys" -ge "$s" ] && [ "$b_sys" -lt "$e" ] || fail "baseline: entry_SYSCALL_64 outside the entry region"
[ "$b_sys" -gt "$b_wr" ] || fail "baseline: entry text not after the main text"

# entry-in-text: markers empty, entry code in link order inside .text
read -r s e <<<"$(region "$K/x86_64-entry-in-text/vmlinux" entry)"
[ -z "$s" ] || [ "$(hex2dec "$s")" -eq "$(hex2dec "$e")" ] || fail "entry-in-text: entry markers enclose code"
i_sys=$(addr "$K/x86_64-entry-in-text/vmlinux" entry_SYSCALL_64)
i_wr=$(addr "$K/x86_64-entry-in-text/vmlinux" ksys_write)
[ "$i_sys" -lt "$i_wr" ] || fail "entry-in-text: entry_SYSCALL_64 not before fs/ code (link order)"

# entry-align-8 / -4k
read -r s e <<<"$(region "$K/x86_64-entry-align-8/vmlinux" entry)"
s=$(hex2dec "$s")
[ $((s % 8)) -eq 0 ] && [ $((s % 0x200000)) -ne 0 ] || fail "entry-align-8: entry region at $s"
read -r s e <<<"$(region "$K/x86_64-entry-align-4k/vmlinux" entry)"
s=$(hex2dec "$s")
[ $((s % 4096)) -eq 0 ] && [ $((s % 0x200000)) -ne 0 ] || fail "entry-align-4k: entry region at $s"

# shuffled relinks move what the variants move, each by its padding
# (kernel.conf's shuffle_pad points, in the manifest): the main text by
# the first point, the entry text by the second (it stays on the 2 MiB
# boundary before it), .rodata by the third, .data by the third and fourth
sym() { # SYSTEM.MAP NAME -> address as a bash integer
  local a
  a=$(awk -v n="$2" '$3 == n { print $1; exit }' "$1")
  [ -n "$a" ] || fail "$2 not in $1"
  echo $((0x$a))
}
bmap=$K/x86_64-baseline/System.map
n=0
for d in "$K"/x86_64-baseline-shuffle-*; do
  [ -d "$d" ] || continue
  read -r p0 p1 p2 p3 <<<"$(jq -r '[.padding.points[].bytes] | map(tostring) | join(" ")' "$d/manifest.json")"
  [ -n "$p3" ] || fail "$(basename "$d"): the manifest has not 4 pad points: $(jq -c .padding "$d/manifest.json")"
  [ "$p0" -gt 0 ] || fail "$(basename "$d"): no padding after the head code"
  wr=$(addr "$d/vmlinux" ksys_write)
  expect_eq "$((wr - b_wr))" "$p0" "$(basename "$d"): ksys_write moved by"
  for s_p in "__entry_text_start $p1" "__start_rodata $p2" "_sdata $((p2 + p3))"; do
    set -- $s_p
    expect_eq "$(( $(sym "$d/System.map" "$1") - $(sym "$bmap" "$1") ))" "$2" "$(basename "$d"): $1 moved by"
  done
  n=$((n + 1))
done
# no two relinks alike
[ "$(for d in "$K"/x86_64-baseline-shuffle-*; do jq -c '[.padding.points[].bytes]' "$d/manifest.json"; done |
   sort | uniq -d)" = "" ] || fail "two relinks have the same paddings"
[ "$n" -ge 1 ] || fail "no shuffled relinks in $K (make check-kernel builds 3)"

# ppc64le (when built): where the hash_fault tracepoint's jump site and its
# slow path sit in each variant
site() { # VMLINUX -> "function target_function" of each hash_fault site
  "$LACE" layout --jumps --csv --no-dwarf "$1" |
    awk -F, '$9 ~ /^__tracepoint_hash_fault/ { print $3, $5 }' | sort
}
fsize() { # VMLINUX FUNCTION -> size
  "$LACE" layout --functions --csv --no-dwarf "$1" | awk -F, -v f="$2" '$1 == f { print $3; exit }'
}
if [ -f "$K/ppc64le-baseline/vmlinux" ]; then
  expect_eq "$(site "$K/ppc64le-baseline/vmlinux")" "hash_page_mm hash_page_mm" "ppc64le baseline: site"
  # cold-slowpaths: hash_page_mm keeps only the jump site; its target is
  # a stub outside it, in the cold text grouped between __cold_text_start
  # and _end, which calls the slow path (its own tracepoint site there).
  # (GCC 12 for ppc64le makes no .cold parts of its own: Debian's ppc64le
  # vmlinux has none, and -freorder-blocks-and-partition with asm goto
  # crashes it, so the patch writes the partition by hand.)
  expect_eq "$(site "$K/ppc64le-cold-slowpaths/vmlinux")" "hash_fault_trace_slow hash_fault_trace_slow
hash_page_mm hash_fault_cold_stub" "cold-slowpaths: sites"
  expect_eq "$("$LACE" layout --jumps --csv --no-dwarf "$K/ppc64le-cold-slowpaths/vmlinux" |
    awk -F, '$9 ~ /^__tracepoint_hash_fault/ { print $4 "->" $6 }' | sort | tr '\n' ' ')" \
    ".text->cold cold->cold " "cold-slowpaths: regions of the sites and their targets"
  b=$(fsize "$K/ppc64le-baseline/vmlinux" hash_page_mm)
  c=$(fsize "$K/ppc64le-cold-slowpaths/vmlinux" hash_page_mm)
  [ "$c" -lt "$b" ] || fail "cold-slowpaths: hash_page_mm is $c bytes, baseline $b"
  expect_eq "$(site "$K/ppc64le-no-tracepoint/vmlinux")" "" "no-tracepoint: a hash_fault site"
  n=$(fsize "$K/ppc64le-no-tracepoint/vmlinux" hash_page_mm)
  [ "$n" -lt "$c" ] || fail "no-tracepoint: hash_page_mm is $n bytes, cold-slowpaths $c"
  [ "$(jq -r .build_id "$K/ppc64le-old-ptes/manifest.json")" != "$(jq -r .build_id "$K/ppc64le-baseline/manifest.json")" ] ||
    fail "old-ptes: the same kernel as baseline"
else
  echo "note: no ppc64le kernels in $K: their placements not checked"
fi

# built again with nothing changed, a variant is kept, not relinked: its
# manifest records the same inputs and its outputs are unchanged
m0=$(stat -c %Y "$K/x86_64-entry-in-text/manifest.json")
"$LACE" build --kernel x86_64 --variant entry-in-text -o "$K" > rebuild.out 2> rebuild.err ||
  fail "rebuild: $(tail -3 rebuild.err)"
grep -q "1 up to date, kept" rebuild.err || fail "entry-in-text built again: $(tail -1 rebuild.err)"
expect_eq "$(stat -c %Y "$K/x86_64-entry-in-text/manifest.json")" "$m0" "manifest time after the rebuild"

# boot each variant: a static /init that writes through the syscall entry
# and prints the MMU line of /proc/cpuinfo; where the kernel has the
# powerpc:hash_fault tracepoint it enables it, touches 256 fresh 64 KiB
# pages and counts the events -- so the enabled path (in cold-slowpaths
# the branch to the cold stub and back) runs, 256 times at least
cat > init.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void)
{
	char buf[4096], *l;
	ssize_t n = 0;
	int fd;

	mkdir("/proc", 0555);
	mount("proc", "/proc", "proc", 0, NULL);
	if ((fd = open("/proc/cpuinfo", O_RDONLY)) >= 0)
		n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strncmp(l, "MMU", 3)) {
			write(1, l, strlen(l));
			write(1, "\n", 1);
		}
	mkdir("/t", 0755);
	mount("tracefs", "/t", "tracefs", 0, NULL);
	if ((fd = open("/t/events/powerpc/hash_fault/enable", O_WRONLY)) >= 0) {
		size_t pages = 256, pg = 65536;
		char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FILE *f;
		long c = 0;
		write(fd, "1", 1);
		for (size_t i = 0; m != MAP_FAILED && i < pages; i++)
			m[i * pg] = 1;
		write(fd, "0", 1);
		close(fd);
		if ((f = fopen("/t/trace", "r")))
			while (fgets(buf, sizeof(buf), f))
				c += strstr(buf, "hash_fault:") != NULL;
		printf("hash_fault events: %ld\n", c);
		fflush(stdout);
	} else {
		write(1, "no hash_fault event\n", 20);  /* x86-64 */
	}
	write(1, "lace-init-ok\n", 13);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
C
boot() { # NAME LOG QEMU-ARGS...
  local name=$1 log=$2; shift 2
  timeout 300 "$@" -m 512 -nographic -no-reboot > "$log" 2>&1 < /dev/null
  grep -q lace-init-ok "$log" || fail "$name: did not boot to /init: $(tail -5 "$log")"
}
if command -v qemu-system-x86_64 >/dev/null; then
  cc -static -O2 -o init-x86 init.c || fail "cc -static init"
  mkcpio init-x86 initrd-x86.cpio
  for d in "$K"/x86_64-*; do
    [ -f "$d/bzImage" ] || continue
    boot "$(basename "$d")" boot.log qemu-system-x86_64 -accel tcg -kernel "$d/bzImage" \
      -initrd initrd-x86.cpio -append "console=ttyS0 panic=-1 nokaslr"
  done
else
  echo "note: qemu-system-x86_64 is not installed: x86-64 boots not checked"
fi
if [ -f "$K/ppc64le-baseline/vmlinux" ] && command -v qemu-system-ppc64 >/dev/null &&
   command -v powerpc64le-linux-gnu-gcc >/dev/null; then
  powerpc64le-linux-gnu-gcc -static -O2 -o init-ppc init.c || fail "cross cc -static init"
  mkcpio init-ppc initrd-ppc.cpio
  for d in "$K"/ppc64le-*; do
    [ -f "$d/vmlinux" ] || continue
    boot "$(basename "$d")" boot.log qemu-system-ppc64 -M pseries,x-vof=on -cpu POWER8 \
      -kernel "$d/vmlinux" -initrd initrd-ppc.cpio -append "console=hvc0 panic=-1"
    expect_match 'MMU.*: Hash' "$(cat boot.log)"
    # no-tracepoint keeps the event's definition, not its call: 0 events
    ev=$(tr -d '\r' < boot.log | sed -n 's/^hash_fault events: //p')
    echo "$(basename "$d"): ${ev:-no} hash_fault events for 256 touched pages"
    if [ "${d%-no-tracepoint}" != "$d" ]; then
      expect_eq "$ev" 0 "no-tracepoint: hash_fault events"
    else
      [ -n "$ev" ] && [ "$ev" -ge 256 ] ||
        fail "$(basename "$d"): ${ev:-no} hash_fault events for 256 touched pages"
    fi
  done
elif [ -f "$K/ppc64le-baseline/vmlinux" ]; then
  echo "note: qemu-system-ppc64 or powerpc64le-linux-gnu-gcc missing: ppc64le boots not checked"
fi
exit 0
