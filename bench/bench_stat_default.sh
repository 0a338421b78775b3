#!/bin/bash
# bench_stat_default: lace's per-run overhead as a user meets it (issue 12):
# `lace stat -r 200 -- true` against `perf stat -r 200 true`, each with its
# default events and lace with its default results file (one write + fsync
# per run) and default output (inherited).  CPU time = user + system of the
# whole process tree (/usr/bin/time), in ROUNDS (default 7) paired rounds
# run back to back so machine noise hits both; the ratio is the median of
# the per-round ratios.  Goal: lace costs at most what perf costs (<= 1.0x).
# Exits 0 (goal met), 1 (missed), 77 (no perf or /usr/bin/time).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
LACE=${LACE:-$here/build/lace}
rounds=${ROUNDS:-7}
runs=${RUNS:-200}
command -v perf >/dev/null || { echo "bench_stat_default: skipped: perf is not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "bench_stat_default: skipped: no /usr/bin/time"; exit 77; }
perf stat -e task-clock true >/dev/null 2>&1 || { echo "bench_stat_default: skipped: perf cannot count here"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2

# cpu CMD...: user + system seconds of CMD and its children
cpu() {
  /usr/bin/time -o "$tmp/t" -f '%U %S' "$@" >/dev/null 2>"$tmp/err" ||
    { echo "bench_stat_default: '$*' failed: $(tail -n 1 "$tmp/err")" >&2; exit 2; }
  awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pc=() lc=() ratios=()
for i in $(seq "$rounds"); do
  p=$(cpu perf stat -r "$runs" true) || exit 2
  l=$(cpu "$LACE" stat -r "$runs" -- true) || exit 2
  pc+=("$p"); lc+=("$l")
  ratios+=("$(awk -v a="$l" -v b="$p" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')")
done
r=$(median "${ratios[@]}")
echo "bench_stat_default: $runs runs of 'true', default events, $rounds paired rounds:"
echo "  perf stat -r $runs true        CPU median $(median "${pc[@]}")s"
echo "  lace stat -r $runs -- true     CPU median $(median "${lc[@]}")s"
echo "  per-round ratios lace/perf    ${ratios[*]}"
printf '  ratio lace/perf (median)     CPU %.2fx  (goal: <= 1.0x)\n' "$r"
awk -v r="$r" 'BEGIN { exit !(r <= 1.0) }' || { echo "bench_stat_default: goal missed"; exit 1; }
exit 0
