# lace stat --backend qemu --record and lace replay (issue 24 item 1):
#  - hackbench (a small run) on Debian's kernel from lace's cache: the
#    replay of the recording through its own build gives the live counts
#    exactly, every event, user and kernel;
#  - the negative control, when lace's kernel builds are there
#    ($LACE_KERNELS, default $BUILD/kernels: `make kernels`): every kernel
#    code address of x86_64-entry-align-4k is congruent mod 4096 with
#    x86_64-baseline's, so the same stream replayed through it has
#    baseline's L1i misses exactly, nothing carried approximately.
# timeout: 600
. "$SRC/tests/integration/lib.sh"
[ -f "$BUILD/qemu/liblace-tcg.so" ] || skip "TCG plugin not built (qemu-system-x86 missing)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed"
command -v jq >/dev/null || skip "jq needed to read the JSON"
[ -x "$BUILD/bench/hackbench" ] || skip "no $BUILD/bench/hackbench (make bench builds it)"
cd "$T" || fail "no temp dir"
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,stlb-loads,stlb-misses,fetch-blocks
EVS=$(printf '%s\n' ${EV//,/ } | sed 's/.*/&:u,&:k/' | paste -sd,)
HB="$BUILD/bench/hackbench -g 2 -f 5 -l 10"

# live: "event:side value" lines; replayed: the same from replay --csv
live() { awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $3, $1 }' "$1" | sort; }
replayed() { awk -F, -v l="$2" '$1 == l && $2 ~ /:[uk]$/ { print $2, $3 }' "$1" | sort; }

check_own() { # KERNEL-ARGS...: record, replay, compare
  "$LACE" stat --backend qemu "$@" -e "$EVS" -x, --no-results --record hb.rec -- $HB \
    > live.csv 2> live.err || fail "recorded run: $(tail -n 3 live.err)"
  [ "$(live live.csv | wc -l)" -eq 16 ] || fail "live counts: $(cat live.csv)"
  expect_exit 0 "$LACE" replay -e "$EV" --csv hb.rec
  printf '%s\n' "$OUT" > replay.csv
  expect_eq "$(replayed replay.csv recorded)" "$(live live.csv)" "replay differs from the live run"
}

K=${LACE_KERNELS:-$BUILD/kernels}
if [ -f "$K/x86_64-baseline/vmlinux" ] && [ -f "$K/x86_64-entry-align-4k/vmlinux" ]; then
  check_own --kernel "$K/x86_64-baseline/bzImage" --system-map "$K/x86_64-baseline/System.map"
  expect_exit 0 "$LACE" replay --json --layout "$K/x86_64-baseline/vmlinux" \
    --layout "$K/x86_64-entry-align-4k/vmlinux" hb.rec
  printf '%s' "$OUT" | jq -e '.layouts as $l
    | $l[1].counts == $l[0].counts
    and $l[2].counts["L1-icache-load-misses"] == $l[0].counts["L1-icache-load-misses"]
    and $l[2].kernel["L1-icache-load-misses"] == $l[0].kernel["L1-icache-load-misses"]
    and $l[2].counts.instructions == $l[0].counts.instructions
    and $l[2].carried.approximate == 0 and $l[2].carried.exact > 1000000' >/dev/null ||
    fail "negative control: $(printf '%s' "$OUT" | jq -c '[.layouts[] | {layout, counts, carried}]')"
  # and Debian's kernel (lace's cache: scripts/fetch-guest.sh)
  if "$SRC/scripts/fetch-guest.sh" >/dev/null 2>&1; then check_own; fi
else
  qemu_guest
  check_own
fi
exit 0
