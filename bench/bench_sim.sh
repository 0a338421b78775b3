#!/bin/bash
# bench_sim: what lace-vg costs above Valgrind's own floor, side by side in
# one run (interleaved, CPU time = user + sys, BENCH_SIM_REPEAT runs each,
# default 5; the least is the verdict -- interference from other jobs
# only adds time -- with the median beside it).  The floor is valgrind
# --tool=none on the same program: what is left above it is what the model
# costs per executed instruction.  lace-vg simulates L1i + iTLB + STLB +
# fetch blocks with per-function attribution (the skylake-client profile),
# and without it (--lace-per-function=no, what lace stat runs unless asked
# for functions), printed beside.  So is the floor of the instrumentation:
# lace-vg with $LACE_VG_NULL_MODEL set, where every segment calls an empty
# helper and adds no code of its own (counts all 0): what one helper call
# per segment costs with nothing modelled, as bench_qemu's empty callback.
# Two programs, each run at least ~2 s so that start-up does not hide the
# model's cost:
#  - tests/fixtures/sim/footprint.c, 200,000 rounds (2.5 G instructions):
#    512 small functions called through a table, a call every ~24
#    instructions (the worst case for a per-segment simulator: short
#    superblocks, one helper call each); its hot code fits the L1i;
#  - the same program with 2,048 functions (200 KB of code, 6x the L1i,
#    generated here), whose calls miss the L1i 60% of the time: the worst
#    case for the model's own data.
# cachegrind --cache-sim=yes on footprint.c is printed beside (issue 13's
# goal was 0.6x of it).
# Goal (issue 36): lace-vg <= 1.25x valgrind --tool=none on both.  Exits 1
# when missed, 77 when the simulator or valgrind is missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
VG=$BUILD/vg
if [ ! -x "$VG/lace-vg-amd64-linux" ] || ! command -v valgrind >/dev/null; then
  echo "bench_sim: skipped: simulator not built or valgrind missing"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_sim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O1 -o "$tmp/footprint" "$root/tests/fixtures/sim/footprint.c" || exit 2
# footprint.c with N functions (the same body, table and skew)
big() {
  local n=$1
  echo '#include <stdlib.h>'
  for ((i = 0; i < n; i++)); do
    printf '__attribute__((noinline)) static unsigned f%d(unsigned x)\n{\n' "$i"
    printf '\tx = x * 2654435761u + %d;\n\tx ^= x >> 13;\n' "$i"
    printf '\tx = x * 2246822519u + (%d << 3);\n\tx ^= x >> 7;\n' "$i"
    printf '\treturn x + (x >> (%d %% 5 + 1));\n}\n' "$i"
  done
  echo 'static unsigned (*const table[])(unsigned) = {'
  for ((i = 0; i < n; i++)); do printf 'f%d,' "$i"; done
  cat <<'C'
};
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	unsigned x = 1, n = sizeof(table) / sizeof(table[0]);

	for (long r = 0; r < rounds; r++)
		for (unsigned i = 0; i < n; i++) {
			unsigned k = (x >> 7) % (i + 1);
			x = table[k](x);
		}
	return (int)(x & 1) * 0;
}
C
}
big 2048 > "$tmp/big.c" && cc -O1 -o "$tmp/big" "$tmp/big.c" || exit 2
export VALGRIND_LIB=$VG
repeat=${BENCH_SIM_REPEAT:-5}
prof=$root/measure/model/profiles/skylake-client.conf
geom() { awk -F' *= *' -v s="[$1]" -v k="$2" '/^\[/ { c = $0 } c == s && $1 == k { print $2 }' "$prof"; }
l1i="$(geom l1i size),$(geom l1i ways),$(geom l1i line)"
itlb="$(geom itlb entries),$(geom itlb ways)"
stlb="$(geom stlb entries),$(geom stlb ways)"

cpu() { # CMD...: CPU seconds (user + sys) of CMD
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>"$tmp/err"; } 2>&1 ) || { cat "$tmp/err" >&2; exit 2; }
  echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { printf '%s\n' "$@" | sort -g | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
lace_vg() { # yes|no|null CMD...: lace-vg with or without functions, or its floor
  local fns=$1 null=
  shift
  [ "$fns" = null ] && fns=no null=1
  rm -f "$tmp"/lv.*
  cpu env ${null:+LACE_VG_NULL_MODEL=1} valgrind -q --tool=lace-vg --lace-out="$tmp/lv" --lace-l1i="$l1i" --lace-itlb="$itlb" \
    --lace-stlb="$stlb" --lace-fetch-block="$(geom fetch block)" --lace-per-function="$fns" "$@"
}

worst=0
for w in footprint big; do
  case $w in
    footprint) prog=("$tmp/footprint" "${BENCH_SIM_ROUNDS:-200000}") ;;
    big) prog=("$tmp/big" "${BENCH_SIM_BIG_ROUNDS:-25000}") ;;
  esac
  lv=() lvn=() nn=() cg=() nul=()
  for i in $(seq "$repeat"); do
    nul+=("$(lace_vg null "${prog[@]}")")
    lvn+=("$(lace_vg no "${prog[@]}")")
    lv+=("$(lace_vg yes "${prog[@]}")")
    nn+=("$(cpu valgrind -q --tool=none "${prog[@]}")")
    [ "$w" = footprint ] && [ "$i" -le 3 ] &&
      cg+=("$(cpu valgrind -q --tool=cachegrind --cache-sim=yes \
              --cachegrind-out-file="$tmp/cg.out" "${prog[@]}")")
  done
  insns=$(awk '$1 == "instructions" { print $2 }' "$tmp"/lv.*)
  misses=$(awk '$1 == "L1-icache-load-misses" { print $2 }' "$tmp"/lv.*)
  l=$(minimum "${lv[@]}") n=$(minimum "${nn[@]}")
  r=$(ratio "$l" "$n")
  echo "bench_sim: $w: $insns instructions, $misses L1i misses: lace-vg ${l}s, valgrind --tool=none ${n}s CPU (least of $repeat): ${r}x (goal <= 1.25x); medians $(ratio "$(median "${lv[@]}")" "$(median "${nn[@]}")")x"
  echo "bench_sim: $w: without functions (lace stat's default): lace-vg $(minimum "${lvn[@]}")s: $(ratio "$(minimum "${lvn[@]}")" "$n")x; medians $(ratio "$(median "${lvn[@]}")" "$(median "${nn[@]}")")x"
  echo "bench_sim: $w: the floor, one empty helper call per segment: $(minimum "${nul[@]}")s: $(ratio "$(minimum "${nul[@]}")" "$n")x; medians $(ratio "$(median "${nul[@]}")" "$(median "${nn[@]}")")x"
  echo "bench_sim: $w: samples: lace-vg ${lv[*]}; without functions ${lvn[*]}; floor ${nul[*]}; none ${nn[*]}"
  [ ${#cg[@]} -gt 0 ] &&
    echo "bench_sim: $w: cachegrind --cache-sim=yes $(median "${cg[@]}")s (median of ${#cg[@]}): lace-vg $(ratio "$(median "${lv[@]}")" "$(median "${cg[@]}")")x of it"
  worst=$(awk -v a="$worst" -v b="$r" 'BEGIN { print (b > a) ? b : a }')
done
awk -v r="$worst" 'BEGIN { exit !(r <= 1.25) }'
