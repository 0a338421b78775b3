#!/bin/bash
# bench_replay: what recording and replaying cost (issue 24, acceptance 5),
# on the kernel study's workload (hackbench -g 4 -f 5 -l 20) booting lace's
# x86_64-baseline kernel ($LACE_KERNELS, default $BUILD/kernels: `make
# kernels`).  CPU time = user + sys of lace and its QEMU; interleaved
# runs, the least of BENCH_REPLAY_REPEAT (3) per side (interference only
# adds time; see bench_qemu.sh), medians and samples beside it.
#  - recording: lace stat --backend qemu --record vs the same without;
#    goal <= 1.3x;
#  - replay: lace replay of that recording through 20 kernel layouts (the
#    kernels there, in turn) vs one live plugin boot; goal <= 1.0x;
#  - virtual layouts (issue 33): the recording replayed through 200
#    virtual layouts of baseline (lace replay --virtual 200, threads on
#    every core) against the wall time of the boot that recorded it; goal
#    <= 3x on 2 cores (wall times: the replay uses the cores, the boot one).
# Prints the recording's size (goal <= 32 MB).  Exits 1 when a goal is
# missed, 77 when QEMU, the plugin, hackbench or the kernels are missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
LACE=${LACE:-$BUILD/lace}
K=${LACE_KERNELS:-$BUILD/kernels}
if ! command -v qemu-system-x86_64 >/dev/null || [ ! -f "$BUILD/qemu/liblace-tcg.so" ] ||
   [ ! -x "$BUILD/bench/hackbench" ] || [ ! -f "$K/x86_64-baseline/vmlinux" ]; then
  echo "bench_replay: skipped: qemu-system-x86_64, the plugin, hackbench or $K/x86_64-baseline missing"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
repeat=${BENCH_REPLAY_REPEAT:-3}
EV=instructions,L1-icache-load-misses,iTLB-load-misses,stlb-misses,fetch-blocks

cpu() { # CMD...: CPU seconds (user + sys) of CMD and its children
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>"$tmp/err"; } 2>&1 ) || { cat "$tmp/err" >&2; exit 2; }
  echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { printf '%s\n' "$@" | sort -g | head -n 1; }
live() {
  cpu "$LACE" stat --backend qemu --kernel "$K/x86_64-baseline/bzImage" \
    --system-map "$K/x86_64-baseline/System.map" -e "$EV" -r 1 --no-results "$@" \
    -- "$BUILD/bench/hackbench" -g 4 -f 5 -l 20
}
layouts=()
kernels=$(ls -d "$K"/x86_64-*/ 2>/dev/null)
while [ ${#layouts[@]} -lt 40 ]; do
  for k in $kernels; do
    [ -f "$k/vmlinux" ] && [ ${#layouts[@]} -lt 40 ] && layouts+=(--layout "$k/vmlinux")
  done
done

wall() { # CMD...: wall seconds of CMD
  local TIMEFORMAT='%R' t
  t=$( { time "$@" >/dev/null 2>"$tmp/err"; } 2>&1 ) || { cat "$tmp/err" >&2; exit 2; }
  echo "$t"
}
pl=() rc=() rp=() wb=() wv=()
for i in $(seq "$repeat"); do
  pl+=("$(live)")
  rc+=("$(live --record "$tmp/hb.rec")")
  rp+=("$(cpu "$LACE" replay --max-approx 100 "${layouts[@]}" "$tmp/hb.rec")")
  wb+=("$(wall "$LACE" stat --backend qemu --kernel "$K/x86_64-baseline/bzImage" \
    --system-map "$K/x86_64-baseline/System.map" -e "$EV" -r 1 --no-results --record "$tmp/v.rec" \
    -- "$BUILD/bench/hackbench" -g 4 -f 5 -l 20)")
  wv+=("$(wall "$LACE" replay --virtual 200 -e "$EV" "$tmp/v.rec")")
done
b=$(minimum "${wb[@]}") v=$(minimum "${wv[@]}")
rv=$(awk -v a="$v" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
p=$(minimum "${pl[@]}") r=$(minimum "${rc[@]}") y=$(minimum "${rp[@]}")
size=$(stat -c %s "$tmp/hb.rec")
rr=$(awk -v a="$r" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
ry=$(awk -v a="$y" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
echo "bench_replay: recording: ${r}s vs ${p}s CPU (least of $repeat): ${rr}x (goal <= 1.3x); medians" \
  "$(awk -v a="$(median "${rc[@]}")" -v b="$(median "${pl[@]}")" 'BEGIN { printf "%.2f", a / b }')x;" \
  "$size bytes (goal <= 32 MB)"
echo "bench_replay: replay through 20 layouts: ${y}s vs one live boot ${p}s: ${ry}x (goal <= 1.0x); medians" \
  "$(awk -v a="$(median "${rp[@]}")" -v b="$(median "${pl[@]}")" 'BEGIN { printf "%.2f", a / b }')x"
echo "bench_replay: 200 virtual layouts: ${v}s wall vs the recording boot's ${b}s: ${rv}x" \
  "(goal <= 3x on 2 cores; $(nproc) here); medians" \
  "$(awk -v a="$(median "${wv[@]}")" -v b="$(median "${wb[@]}")" 'BEGIN { printf "%.2f", a / b }')x"
echo "bench_replay: samples: live ${pl[*]}; recording ${rc[*]}; replay ${rp[*]};" \
  "virtual boot ${wb[*]}; 200 virtual ${wv[*]}"
awk -v a="$rr" -v b="$ry" -v s="$size" -v v="$rv" \
  'BEGIN { exit !(a <= 1.3 && b <= 1.0 && s <= 32000000 && v <= 3.0) }'
