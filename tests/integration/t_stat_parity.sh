#!/bin/bash
# Acceptance: lace stat -r 10 and perf stat -r 10 over rt-tests hackbench
# in thread mode agree exactly on the syscall tracepoints (every message is
# one write and one read, so the counts are fixed by the arguments), and
# page-faults agree within their spread.
. "$SRC/tests/integration/lib.sh"

command -v perf >/dev/null || skip "perf is not installed"
command -v hackbench >/dev/null || skip "hackbench (rt-tests) is not installed"
[ "$(id -u)" -eq 0 ] || skip "tracepoints need root"
perf stat -e syscalls:sys_enter_write true >/dev/null 2>&1 || skip "perf cannot count syscalls:sys_enter_write here"

ev=page-faults,context-switches,syscalls:sys_enter_write,syscalls:sys_enter_read
# hackbench -T's threads free() into new glibc arenas; past 8 of them glibc
# reads /sys/devices/system/cpu/online once, on a loaded machine now and
# then: an extra read(2) in one run of one side (2022 vs 2023 seen).  One
# arena (glibc's MALLOC_ARENA_MAX) leaves only the protocol's reads.
export MALLOC_ARENA_MAX=1
work="hackbench -T -g 2 -f 5 -l 40"
# both with the workload's output in a pipe/file (same stdio buffering, same writes)
perf stat -r 10 -x, -e $ev $work >/dev/null 2>perf.csv || fail "perf stat failed"
expect_exit 0 "$LACE" stat -r 10 -x, -e $ev --results stat.jsonl -- $work
printf '%s\n' "$OUT" >lace.csv

val() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
pct() { awk -F, -v e="$2" '$3 == e { sub("%", "", $4); print $4 }' "$1"; }
for e in syscalls:sys_enter_write syscalls:sys_enter_read; do
  p=$(val perf.csv $e); l=$(val lace.csv $e)
  [ -n "$p" ] && [ -n "$l" ] || fail "$e missing: perf '$p' lace '$l'"
  expect_eq "$l" "$p" "$e: lace vs perf"
done
# page-faults: means within 4 combined standard errors (plus one fault)
p=$(val perf.csv page-faults); l=$(val lace.csv page-faults)
ps=$(pct perf.csv page-faults); ls=$(pct lace.csv page-faults)
awk -v p="$p" -v l="$l" -v ps="$ps" -v ls="$ls" 'BEGIN {
  se = sqrt((p * ps / 100) ^ 2 + (l * ls / 100) ^ 2); d = p - l; if (d < 0) d = -d
  exit !(d <= 4 * se + 1) }' || fail "page-faults differ: perf $p (+-$ps%) lace $l (+-$ls%)"
echo "parity: $(val lace.csv syscalls:sys_enter_write) writes both; page-faults perf $p lace $l"
exit 0
