#!/bin/bash
# bench_layout: CPU time (user + system, /usr/bin/time) of `lace layout
# --branches` on the real kernel against `objdump -d --no-show-raw-insn` on the
# same file, run side by side (interleaved rounds, medians) so machine noise
# hits all of them.  Goals (issue 2): without DWARF at most 0.5x objdump's
# CPU time; with DWARF at most 1.0x and under 1 GiB peak memory.  Prints the
# ratios and peak RSS; exits 1 when a goal is missed, 77 without a vmlinux.
# ROUNDS (default 3) sets the number of interleaved rounds.  The
# libopcodes-only decoder (LACE_DISASM=libopcodes) is timed too, to show
# what the fast x86 path saves.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
LACE=${LACE:-$here/build/lace}
rounds=${ROUNDS:-3}
vmlinux=$("$here/scripts/fetch-vmlinux.sh" 2>/dev/null) || vmlinux=
if [ -z "$vmlinux" ] || [ ! -r "$vmlinux" ]; then
  echo "bench_layout: skipped: no vmlinux (scripts/fetch-vmlinux.sh)"
  exit 77
fi
[ -x /usr/bin/time ] || { echo "bench_layout: skipped: no /usr/bin/time"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# cpu CMD...: run CMD (stdout discarded); prints "cpu_seconds peak_kib"
cpu() {
  /usr/bin/time -o "$tmp/t" -f '%U %S %M' "$@" >/dev/null 2>"$tmp/err" ||
    { echo "bench_layout: '$*' failed: $(tail -n 1 "$tmp/err")" >&2; exit 2; }
  awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$tmp/t"
}
od=() nd=() wd=() ld=() ndm=0 wdm=0
for i in $(seq "$rounds"); do
  read -r c _ < <(cpu objdump -d --no-show-raw-insn "$vmlinux"); od+=("$c")
  read -r c m < <(cpu "$LACE" layout --branches --no-dwarf "$vmlinux"); nd+=("$c")
  [ "$m" -gt "$ndm" ] && ndm=$m
  read -r c _ < <(cpu env LACE_DISASM=libopcodes "$LACE" layout --branches --no-dwarf "$vmlinux"); ld+=("$c")
  read -r c m < <(cpu "$LACE" layout --branches "$vmlinux"); wd+=("$c")
  [ "$m" -gt "$wdm" ] && wdm=$m
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mo=$(median "${od[@]}") mn=$(median "${nd[@]}") mw=$(median "${wd[@]}") ml=$(median "${ld[@]}")
rl=$(awk -v a="$ml" -v b="$mo" 'BEGIN { printf "%.2f", a / b }')
rn=$(awk -v a="$mn" -v b="$mo" 'BEGIN { printf "%.2f", a / b }')
rw=$(awk -v a="$mw" -v b="$mo" 'BEGIN { printf "%.2f", a / b }')
echo "bench_layout: CPU seconds, medians of $rounds interleaved rounds on $(basename "$vmlinux"):"
echo "  objdump -d --no-show-raw-insn          ${mo}s"
echo "  lace layout --branches --no-dwarf      ${mn}s  ratio ${rn}x (goal <= 0.5x)  peak $((ndm / 1024)) MiB"
echo "  (same, libopcodes for every insn)     ${ml}s  ratio ${rl}x (LACE_DISASM=libopcodes, for reference)"
echo "  lace layout --branches (with DWARF)    ${mw}s  ratio ${rw}x (goal <= 1.0x)  peak $((wdm / 1024)) MiB (goal < 1024 MiB)"
ok=1
awk -v r="$rn" 'BEGIN { exit !(r <= 0.5) }' || { echo "bench_layout: --no-dwarf goal missed"; ok=0; }
awk -v r="$rw" 'BEGIN { exit !(r <= 1.0) }' || { echo "bench_layout: DWARF goal missed"; ok=0; }
[ "$wdm" -lt $((1024 * 1024)) ] || { echo "bench_layout: peak memory goal missed"; ok=0; }
[ "$ok" -eq 1 ]
