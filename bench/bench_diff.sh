#!/bin/bash
# bench_diff: `lace diff vmlinux vmlinux` against one `lace layout vmlinux`,
# run side by side (interleaved, median of 5 each) so machine noise hits
# both.  Goal: diff costs at most 2.2x layout.  Also printed, for what the
# diff proper costs: the ratio to one load doing the same work as each of
# diff's two loads (`layout --no-dwarf --branches`), which is 2x plus the
# matching/comparison overhead.  Exits 1 when the goal is missed, 77 when
# there is no vmlinux.
set -u
LACE=${LACE:-$(cd "$(dirname "$0")/.." && pwd)/build/lace}
here=$(cd "$(dirname "$0")/.." && pwd)
vmlinux=$("$here/scripts/fetch-vmlinux.sh" 2>/dev/null) || vmlinux=
if [ -z "$vmlinux" ] || [ ! -r "$vmlinux" ]; then
  echo "bench_diff: skipped: no vmlinux (scripts/fetch-vmlinux.sh)"
  exit 77
fi
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
lay=() same=() dif=()
for i in 1 2 3 4 5; do
  t0=$(now); "$LACE" layout "$vmlinux" >/dev/null || exit 2
  t1=$(now); "$LACE" layout --no-dwarf --branches "$vmlinux" >/dev/null || exit 2
  t2=$(now); "$LACE" diff "$vmlinux" "$vmlinux" >/dev/null || exit 2
  t3=$(now)
  lay+=("$(sub "$t0" "$t1")") same+=("$(sub "$t1" "$t2")") dif+=("$(sub "$t2" "$t3")")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
ml=$(median "${lay[@]}") ms=$(median "${same[@]}") md=$(median "${dif[@]}")
ratio=$(awk -v d="$md" -v l="$ml" 'BEGIN { printf "%.2f", d / l }')
ratio2=$(awk -v d="$md" -v l="$ms" 'BEGIN { printf "%.2f", d / l }')
echo "bench_diff: lace layout vmlinux ${ml}s, lace diff vmlinux vmlinux ${md}s (medians of 5): ratio ${ratio}x (goal <= 2.2x)"
echo "bench_diff: diff vs one equal load (layout --no-dwarf --branches, ${ms}s): ${ratio2}x (2x is the two loads)"
awk -v r="$ratio" 'BEGIN { exit !(r <= 2.2) }'
