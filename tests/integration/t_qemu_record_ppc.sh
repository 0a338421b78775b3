# lace stat --backend qemu --record on the ppc64le guest (issue 24,
# acceptance 1): faultbench --real on Debian's stock ppc64le kernel (the
# hash MMU: every touched page is a hash fault) recorded, then replayed
# through its own build, gives the live counts exactly, kernel and user,
# every event; replayed with that vmlinux named as a --layout too, every
# kernel instruction is carried exactly and the counts stay the same.
# The guest is fetched when missing (lib.sh's ppc_guest); skipped, saying
# so, without QEMU or the cross compiler, or when that fails.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
ppc_guest
command -v jq >/dev/null || skip "jq needed to read the JSON"
built "$BUILD/ppc64le/bench/faultbench" "make builds it with powerpc64le-linux-gnu-gcc"
cd "$T" || exit 1
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,stlb-loads,stlb-misses,fetch-blocks
EVS=$(printf '%s\n' ${EV//,/ } | sed 's/.*/&:u,&:k/' | paste -sd,)

"$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" -e "$EVS" -x, \
  --no-results --record fb.rec -- "$BUILD/ppc64le/bench/faultbench" --real --pages 256 \
  > live.csv 2> live.err || fail "recorded run: $(tail -n 3 live.err)"
live=$(awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $3, $1 }' live.csv | sort)
[ "$(printf '%s\n' "$live" | wc -l)" -eq 16 ] || fail "live counts: $(cat live.csv)"
k=$(printf '%s\n' "$live" | awk '$1 == "instructions:k" { print $2 }')
[ "${k:-0}" -gt 100000 ] || fail "too few kernel instructions for 256 hash faults: $k"

expect_exit 0 "$LACE" replay -e "$EV" --csv fb.rec
replayed=$(printf '%s\n' "$OUT" | awk -F, '$1 == "recorded" && $2 ~ /:[uk]$/ { print $2, $3 }' | sort)
expect_eq "$replayed" "$live" "ppc64le faultbench: the replay differs from the live run"

# its own vmlinux as a layout: carried by function and offset, exactly
expect_exit 0 "$LACE" replay --json --layout "$ppc_vmlinux" fb.rec
printf '%s' "$OUT" | jq -e '.layouts[1].counts == .layouts[0].counts and .layouts[1].carried.approximate == 0
  and .layouts[1].carried.exact > 100000' > /dev/null ||
  fail "own layout: $(printf '%s' "$OUT" | jq -c '[.layouts[] | {layout, counts, carried}]')"
echo "ppc64le faultbench --real --pages 256: kernel instructions $k; 16 counts replayed exactly"
exit 0
