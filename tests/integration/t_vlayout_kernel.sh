# Virtual layouts of the x86-64 kernel are real ones (issue 33, item 2),
# checked against the linker on lace's own kernel builds ($LACE_KERNELS,
# which `make check-kernel` fills): one recorded hackbench boot of
# x86_64-baseline, replayed
#  - through every real relink (x86_64-baseline-shuffle-N) and through the
#    virtual layout of baseline with that relink's pad vector (--family
#    relink --pads, the manifest's padding): equal counts, every event,
#    kernel and user side, and every text symbol below _etext of the relink's nm -n
#    at the virtual System.map's address;
#  - through three function-family draws of the main text (--permute
#    .text) built for real (lace build kernel --layout NAME.order): the
#    same checks;
#  - through the positive control's edit (kernel/layouts/conflict-16.edit)
#    and its real build, x86_64-baseline-conflict-16: the same checks.
# It ends with the line the kernel study prints ("N/N relinks and 3/3
# reordered builds reproduced exactly by virtual layouts").
# timeout: 1500
. "$SRC/tests/integration/lib.sh"
K=${LACE_KERNELS:-$BUILD/kernels}
B=$K/x86_64-baseline
[ -f "$B/vmlinux" ] || skip "no kernel builds in $K: 'make check-kernel' builds them"
[ -f "$B/vmlinux.map" ] ||
  skip "$B has no vmlinux.map (built before CONFIG_VMLINUX_MAP): 'make check-kernel' builds it again"
[ -f "$K/x86_64-baseline-conflict-16/vmlinux" ] ||
  skip "no x86_64-baseline-conflict-16 in $K: 'make check-kernel' builds it"
ls "$K"/x86_64-baseline-shuffle-*/vmlinux >/dev/null 2>&1 ||
  skip "no relinks in $K: 'make check-kernel' builds them"
need_qemu_x86
command -v jq >/dev/null || skip "jq needed to read the manifests"
[ -x "$BUILD/bench/hackbench" ] || fail "no $BUILD/bench/hackbench (make builds it)"
cd "$T" || exit 1

EV=instructions,L1-icache-load-misses,iTLB-load-misses,stlb-misses,fetch-blocks
EVS=$(printf '%s\n' ${EV//,/ } | sed 's/.*/&:u,&:k/' | paste -sd,)
"$LACE" stat --backend qemu --kernel "$B/bzImage" --system-map "$B/System.map" -e "$EVS" -x, \
  --no-results --record hb.rec -- "$BUILD/bench/hackbench" -g 2 -f 5 -l 10 > live.csv 2> live.err ||
  fail "recorded boot: $(tail -n 3 live.err)"
PP=$(awk -F' = ' '$1 == "virtual_pads" { print $2; exit }' "$SRC/kernel/kernel.conf")
[ -n "$PP" ] || fail "kernel.conf has no virtual_pads"

# counts of one row of replay's CSV (the :k and :u ones), as "event value"
row() { awk -F, -v l="$2" '$1 == l && $2 ~ /:[uk]$/ { print $2, $3 }' "$1" | sort; }
# the text symbols of an ELF's nm -n or of a System.map below END (the
# real build's _etext), as "addr name": the virtual pads are .text's, and
# a relink's pads after .rodata move .init.text, which no layout of the
# running kernel's text carries (it is freed after boot)
text_syms() { awk -v end="$2" '$2 ~ /^[tT]$/ && $1 < end { print $1, $3 }' "$1"; }
same() { # NAME REAL-VMLINUX VIRTUAL-ROW CSV MAP: counts and symbols equal
  local real virt
  real=$(row "$4" "$2") virt=$(row "$4" "$3")
  [ -n "$real" ] || fail "$1: no counts of $2"
  [ "$real" = "$virt" ] || { echo "$1: counts differ: real $(echo $real) virtual $(echo $virt)"; return 1; }
  nm -n "$2" > real.nm
  local end
  end=$(awk '$3 == "_etext" { print $1; exit }' real.nm)
  [ -n "$end" ] || fail "$1: no _etext in $2"
  cmp -s <(text_syms "$5" "$end") <(text_syms real.nm "$end") ||
    { echo "$1: .text symbols differ: $(diff <(text_syms "$5" "$end") <(text_syms real.nm "$end") | head -3)"; return 1; }
  return 0
}

# relinks: the pads of each at the pad points, from its manifest
mkdir maps
nrel=0 okrel=0
for d in "$K"/x86_64-baseline-shuffle-*; do
  [ -f "$d/vmlinux" ] || continue
  pads=$(jq -r '[.padding.points[0:2][].bytes | tostring] | join(",")' "$d/manifest.json")
  [ -n "$pads" ] || fail "$d/manifest.json: no padding"
  "$LACE" replay -e "$EV" --csv --family relink --pad-points "$PP" --pads "$pads" \
    --layout "$d/vmlinux" --write-maps maps hb.rec > r.csv 2> r.err || fail "replay of $d: $(cat r.err)"
  nrel=$((nrel + 1))
  same "$(basename "$d")" "$d/vmlinux" "pads-${pads//,/-}" r.csv "maps/pads-${pads//,/-}.System.map" &&
    okrel=$((okrel + 1))
done

# three draws of the main text, built for real
"$LACE" replay -e "$EV" --csv --virtual 3 --seed 7 --permute .text --write-maps maps hb.rec \
  > v.csv 2> v.err || fail "virtual draws: $(cat v.err)"
nord=0 okord=0
for k in 1 2 3; do
  cp "maps/virtual-$k.order" "reorder-$k.order"
  "$LACE" build kernel x86_64 --layout "reorder-$k.order" -o "$T/k" > b.out 2> b.err ||
    fail "lace build kernel --layout reorder-$k.order: $(tail -n 3 b.err)"
  "$LACE" replay -e "$EV" --csv --layout "$T/k/x86_64-baseline-reorder-$k/vmlinux" hb.rec > o.csv 2> o.err ||
    fail "replay through reorder-$k: $(cat o.err)"
  grep "^virtual-$k," v.csv >> o.csv
  nord=$((nord + 1))
  same "reorder-$k" "$T/k/x86_64-baseline-reorder-$k/vmlinux" "virtual-$k" o.csv "maps/virtual-$k.System.map" &&
    okord=$((okord + 1))
done
# the draws move code: three different kernel L1i counts, none baseline's
n=$(awk -F, '$1 ~ /^virtual-/ && $2 == "L1-icache-load-misses:k" { print $3 }' v.csv | sort -u | wc -l)
[ "$n" -eq 3 ] || fail "three draws gave $n different kernel L1i counts"

# the positive control: the edit and its real build
cp "$SRC/kernel/layouts/conflict-16.edit" .
"$LACE" replay -e "$EV" --csv --edit conflict-16.edit --layout "$K/x86_64-baseline-conflict-16/vmlinux" \
  --write-maps maps hb.rec > c.csv 2> c.err || fail "replay of the edit: $(cat c.err)"
same conflict-16 "$K/x86_64-baseline-conflict-16/vmlinux" conflict-16 c.csv maps/conflict-16.System.map ||
  fail "the edit is not its real build"
base=$(awk -F, '$1 == "recorded" && $2 == "L1-icache-load-misses:k" { print $3 }' c.csv)
conf=$(awk -F, '$1 == "conflict-16" && $2 == "L1-icache-load-misses:k" { print $3 }' c.csv)
[ "$conf" -gt "$base" ] || fail "16 hot functions in one L1i set did not add kernel L1i misses ($base -> $conf)"
echo "conflict-16: kernel L1i misses $base -> $conf"

echo "$okrel/$nrel relinks and $okord/$nord reordered builds reproduced exactly by virtual layouts"
[ "$okrel" -eq "$nrel" ] && [ "$okord" -eq "$nord" ] || fail "not every real layout was reproduced"
exit 0
