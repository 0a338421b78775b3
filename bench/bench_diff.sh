#!/bin/bash
# bench_diff: `lace diff vmlinux vmlinux` against one `lace layout vmlinux`,
# run side by side (interleaved, median of 5 each) so machine noise hits
# both.  Goal: diff costs at most 2.2x layout (two loads are 2x by
# themselves; the diff proper must be cheap).  Prints the ratio; exits 1
# when it is above the goal, 77 when there is no vmlinux.
set -u
LACE=${LACE:-$(cd "$(dirname "$0")/.." && pwd)/build/lace}
here=$(cd "$(dirname "$0")/.." && pwd)
vmlinux=$("$here/scripts/fetch-vmlinux.sh" 2>/dev/null) || vmlinux=
if [ -z "$vmlinux" ] || [ ! -r "$vmlinux" ]; then
  echo "bench_diff: skipped: no vmlinux (scripts/fetch-vmlinux.sh)"
  exit 77
fi
now() { date +%s.%N; }
lay=() dif=()
for i in 1 2 3 4 5; do
  t0=$(now); "$LACE" layout "$vmlinux" >/dev/null || exit 2; t1=$(now)
  "$LACE" diff "$vmlinux" "$vmlinux" >/dev/null || exit 2; t2=$(now)
  lay+=("$(echo "$t1 - $t0" | bc)") dif+=("$(echo "$t2 - $t1" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
ml=$(median "${lay[@]}") md=$(median "${dif[@]}")
ratio=$(echo "scale=2; $md / $ml" | bc)
echo "bench_diff: lace layout vmlinux ${ml}s, lace diff vmlinux vmlinux ${md}s (medians of 5): ratio ${ratio}x (goal <= 2.2x)"
[ "$(echo "$ratio <= 2.2" | bc)" -eq 1 ]
