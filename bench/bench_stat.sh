#!/bin/bash
# bench_stat: per-run overhead of the repeat driver.  `lace stat -r 200 --
# true` against `perf stat -r 200 -- true`, the same software events for
# both (hardware ones are not supported on many VMs), run side by side in
# interleaved rounds so machine noise hits both; CPU time (user + system of
# the tool and its children, /usr/bin/time) and wall time, medians.  lace
# writes and fsyncs its results file as in normal use.  Goal (issue 6): lace
# costs at most what perf costs (CPU ratio <= 1.0).  Exits 1 when missed, 77
# without perf.  ROUNDS (default 5), RUNS (default 200).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
LACE=${LACE:-$here/build/lace}
rounds=${ROUNDS:-5}
runs=${RUNS:-200}
ev=task-clock,context-switches,cpu-migrations,page-faults
command -v perf >/dev/null || { echo "bench_stat: skipped: perf is not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "bench_stat: skipped: no /usr/bin/time"; exit 77; }
perf stat -e task-clock true >/dev/null 2>&1 || { echo "bench_stat: skipped: perf cannot count here"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# measure CMD...: prints "cpu_seconds wall_seconds"
measure() {
  /usr/bin/time -o "$tmp/t" -f '%U %S %e' "$@" >/dev/null 2>"$tmp/err" ||
    { echo "bench_stat: '$*' failed: $(tail -n 1 "$tmp/err")" >&2; exit 2; }
  awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/t"
}
pc=() pw=() lc=() lw=()
for i in $(seq "$rounds"); do
  read -r c w < <(measure perf stat -r "$runs" -e "$ev" -- true); pc+=("$c"); pw+=("$w")
  read -r c w < <(measure "$LACE" stat -r "$runs" -e "$ev" --results "$tmp/r.jsonl" -- true)
  lc+=("$c"); lw+=("$w")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mpc=$(median "${pc[@]}") mpw=$(median "${pw[@]}") mlc=$(median "${lc[@]}") mlw=$(median "${lw[@]}")
rc=$(awk -v a="$mlc" -v b="$mpc" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
rw=$(awk -v a="$mlw" -v b="$mpw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
echo "bench_stat: $runs runs of 'true', medians of $rounds interleaved rounds:"
echo "  perf stat -r $runs   CPU ${mpc}s  wall ${mpw}s"
echo "  lace stat -r $runs   CPU ${mlc}s  wall ${mlw}s"
echo "  ratio lace/perf      CPU ${rc}x  wall ${rw}x  (goal: CPU <= 1.0x)"
awk -v r="$rc" 'BEGIN { exit !(r <= 1.0) }' || { echo "bench_stat: goal missed"; exit 1; }
exit 0
