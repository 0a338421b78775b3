#!/bin/bash
# bench_qemu_jobs: lace stat --backend qemu -j N against -j 1, side by side
# in one run (interleaved, BENCH_QEMU_JOBS_REPEAT pairs, wall clock): the
# same 4 boots of Debian's x86-64 cloud kernel (--qemu-perturb: four
# different executions), one after another or N at once, N the number of
# online CPUs.  Each boot is one host thread, so N boots at once should
# take about 1/N of the time; the results files must hold the same runs.
# The verdict uses the least wall clock of each side (interference from
# outside only adds time); every sample is printed.
# Goal (issue 26, item 1): -j N at least 0.75 N times faster than -j 1 on
# this N-CPU machine (1.5x on 2 CPUs).  Exits 1 when missed or when the
# counts differ, 77 when QEMU, the plugin or the cached guest is missing,
# or the machine has one CPU.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
LACE=${LACE:-$BUILD/lace}
cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/x86_64"
n=$(nproc)
if ! command -v qemu-system-x86_64 >/dev/null || [ ! -f "$BUILD/qemu/liblace-tcg.so" ] ||
   [ ! -f "$cache/kernel.abi" ]; then
  echo "bench_qemu_jobs: skipped: qemu-system-x86_64, the plugin or the guest (scripts/fetch-guest.sh) missing"
  exit 77
fi
[ "$n" -ge 2 ] || { echo "bench_qemu_jobs: skipped: one CPU, nothing to run side by side"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_qemu_jobs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
repeat=${BENCH_QEMU_JOBS_REPEAT:-2}
cc -static -O1 -o "$tmp/spin" "$root/tests/fixtures/qemu/spin.c" ||
  { echo "bench_qemu_jobs: skipped: cannot build the static workload"; exit 77; }

wall() { # J: seconds of lace stat -j J, its results in $tmp/rJ.jsonl
  local s e
  s=$(date +%s.%N)
  "$LACE" stat --backend qemu -r 4 --warmup 0 --qemu-perturb 1 -j "$1" --results "$tmp/r$1.jsonl" \
    -e instructions:k,L1-icache-load-misses:k -- "$tmp/spin" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; exit 2; }
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'
}
counts() { # the runs' order, faults and counted values (not their times)
  python3 -c 'import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "counts" in o:
        print(o["run"], o["fault"], [c["value"] for c in o["counts"]])' "$1"
}
minimum() { printf '%s\n' "$@" | sort -g | head -n 1; }

one=() many=()
for i in $(seq "$repeat"); do
  one+=("$(wall 1)")
  many+=("$(wall "$n")")
  if [ "$(counts "$tmp/r1.jsonl")" != "$(counts "$tmp/r$n.jsonl")" ]; then
    echo "bench_qemu_jobs: -j $n recorded other counts than -j 1"
    exit 1
  fi
done
a=$(minimum "${one[@]}") b=$(minimum "${many[@]}")
r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
goal=$(awk -v n="$n" 'BEGIN { printf "%.2f", 0.75 * n }')
echo "bench_qemu_jobs: 4 boots: -j 1 ${a}s, -j $n ${b}s wall (least of $repeat): ${r}x (goal >= ${goal}x), the same counts"
echo "bench_qemu_jobs: samples: -j 1 ${one[*]}; -j $n ${many[*]}"
awk -v r="$r" -v g="$goal" 'BEGIN { exit !(r >= g) }'
