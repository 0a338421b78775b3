# lace stat --backend qemu --record and lace replay (issue 24 item 1):
#  - hackbench (a small run) on Debian's kernel from lace's cache: the
#    replay of the recording through its own build gives the live counts
#    exactly, every event, user and kernel;
#  - the negative control, when lace's kernel builds are there
#    ($LACE_KERNELS, default $BUILD/kernels: `make kernels`): every kernel
#    code address of x86_64-entry-align-4k is congruent mod 4096 with
#    x86_64-baseline's, so the same stream replayed through it has
#    baseline's L1i misses exactly, nothing carried approximately;
#  - a program that takes 1,000 page faults, each in the middle of a
#    translated user block (tests/fixtures/qemu/nolibc_fault.S): the
#    plugin takes the rest of each such block back off instructions:u
#    (tcg_block_rest) and records it (REC_TAKE_BACK), so the replay again
#    gives the live counts exactly, instructions:u included, and its
#    instructions are user + kernel; instructions:u stays below the
#    fixture's 9,046 + 1,000 (the runner adds 113), where counting each
#    block's rest twice gave 6 more per fault (15,159).
# timeout: 600
. "$SRC/tests/integration/lib.sh"
[ -f "$BUILD/qemu/liblace-tcg.so" ] || skip "TCG plugin not built (qemu-system-x86 missing)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed"
command -v jq >/dev/null || skip "jq needed to read the JSON"
[ -x "$BUILD/bench/hackbench" ] || skip "no $BUILD/bench/hackbench (make bench builds it)"
cd "$T" || fail "no temp dir"
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,stlb-loads,stlb-misses,fetch-blocks,fetch-late-entries
EVS=$(printf '%s\n' ${EV//,/ } | sed 's/.*/&:u,&:k/' | paste -sd,)
HB="$BUILD/bench/hackbench -g 2 -f 5 -l 10"
cc -static -nostdlib -o faults "$SRC/tests/fixtures/qemu/nolibc_fault.S" ||
  fail "cannot build the faulting fixture"

# live: "event:side value" lines; replayed: the same from replay --csv
live() { awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $3, $1 }' "$1" | sort; }
replayed() { awk -F, -v l="$2" '$1 == l && $2 ~ /:[uk]$/ { print $2, $3 }' "$1" | sort; }

check_own() { # KERNEL-ARGS...: record $W into $REC, replay, compare
  # shellcheck disable=SC2086
  "$LACE" stat --backend qemu "$@" -e "$EVS" -x, --no-results --record "$REC" -- $W \
    > live.csv 2> live.err || fail "recorded run of $W: $(tail -n 3 live.err)"
  [ "$(live live.csv | wc -l)" -eq 18 ] || fail "live counts: $(cat live.csv)"
  expect_exit 0 "$LACE" replay -e "$EV" --csv "$REC"
  printf '%s\n' "$OUT" > replay.csv
  expect_eq "$(replayed replay.csv recorded)" "$(live live.csv)" "replay of $W differs from the live run"
}

check_base() { # a recording replayed with --base naming another build than
  # the recorded one (another kernel than the layouts' base): one line, exit 2,
  # nothing replayed
  "$LACE" replay --base "$1" --layout "$1" "$REC" > base.out 2> base.err
  expect_eq "$?" 2 "replay --base of another build: exit status"
  [ "$(wc -l < base.err)" -eq 1 ] && grep -q "not the recorded build" base.err ||
    fail "replay --base of another build: $(cat base.err)"
  [ -s base.out ] && fail "replay --base of another build printed counts: $(head -3 base.out)"
  echo "another build as --base: $(cat base.err)"
}

check_faults() { # KERNEL-ARGS...: the faulting program, own layout
  W="./faults 1000" REC=faults.rec check_own "$@"
  u=$(awk -F, '$3 == "instructions:u" { print $1 }' live.csv)
  k=$(awk -F, '$3 == "instructions:k" { print $1 }' live.csv)
  [ "$u" -lt $((9046 + 1000)) ] || fail "faults: instructions:u $u: the rests were not taken back"
  expect_eq "$(awk -F, '$1 == "recorded" && $2 == "instructions" { print $3 }' replay.csv)" \
    "$((u + k))" "faults: replayed instructions are not user + kernel"
  echo "faults 1000: instructions:u $u live and replayed, instructions:k $k"
}

K=${LACE_KERNELS:-$BUILD/kernels}
W=$HB REC=hb.rec
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
  # --base: the recorded build named where it is, then another kernel
  expect_exit 0 "$LACE" replay --json --base "$K/x86_64-baseline/vmlinux" \
    --layout "$K/x86_64-entry-align-4k/vmlinux" hb.rec
  check_base "$K/x86_64-entry-in-text/vmlinux"
  check_faults --kernel "$K/x86_64-baseline/bzImage" --system-map "$K/x86_64-baseline/System.map"
  # and Debian's kernel (lace's cache: scripts/fetch-guest.sh)
  if "$SRC/scripts/fetch-guest.sh" >/dev/null 2>&1; then check_own; check_faults; fi
else
  qemu_guest
  check_own
  REC=hb.rec check_base "$LACE"
  check_faults
fi
exit 0
