# lace ab --same-execution (issue 24, item 4): two builds of one kernel
# compared on one execution -- one boot of A recorded and replayed through
# B's layout and the relinks of A (lace replay), B never booted:
#  - the negative control: every kernel code address of
#    x86_64-entry-align-4k is congruent mod 4096 with x86_64-baseline's, so
#    the same execution has baseline's kernel L1i misses exactly; A's own
#    replay equals A's live counts; without relinks no verdict is given;
#  - entry-in-text against 3 relinks of baseline (a temp folder of links
#    to x86_64-baseline-shuffle-1..3, as --noise-layouts DIR, and as
#    repeated --noise-layout ELF): a rank p and its Holm adjustment per
#    event, a verdict word, and the smallest p 3 relinks allow (2/4);
#  - bad input is one line and exit 2: no --kernel-b, another backend, a
#    noise folder without a vmlinux, a B that is not a build of the same
#    code (lace replay's refusal, passed on).
# Skipped, saying why, without the kernel builds (make check-kernel).
# timeout: 600
. "$SRC/tests/integration/lib.sh"
K=${LACE_KERNELS:-$BUILD/kernels}
for k in x86_64-baseline x86_64-entry-align-4k x86_64-entry-in-text \
         x86_64-baseline-shuffle-1 x86_64-baseline-shuffle-2 x86_64-baseline-shuffle-3; do
  [ -f "$K/$k/vmlinux" ] || skip "no $k/vmlinux in $K: 'make check-kernel' builds the kernels (about 25 min the first time on 2 cores)"
done
[ -f "$K/x86_64-baseline/bzImage" ] || skip "no x86_64-baseline/bzImage in $K: 'make check-kernel' builds the kernels"
need_qemu_x86
command -v jq >/dev/null || skip "jq needed to read the JSON (Debian package jq)"
built "$BUILD/bench/hackbench"
cd "$T" || fail "no temp dir"
A=$K/x86_64-baseline/bzImage
HB=("$BUILD/bench/hackbench" -g 2 -f 5 -l 10)
ab() { "$LACE" ab --same-execution --backend qemu --kernel-a "$A" "$@"; }
# jq on the last JSON output: one event's field
field() { printf '%s\n' "$OUT" | jq -r --arg e "$1" ".events[] | select(.event == \$e) | .$2"; }
HEADER="compared on one execution: A's boot replayed through B's layout \(lace replay\); B was not booted"

# ---- the negative control: B given as its vmlinux ----------------------------
expect_exit 0 ab --kernel-b "$K/x86_64-entry-align-4k/vmlinux" --json -- "${HB[@]}"
expect_eq "$(printf '%s\n' "$OUT" | jq -r .schema)" lace-ab-same "schema"
expect_match "B was not booted" "$(printf '%s\n' "$OUT" | jq -r .compared_on)"
expect_eq "$(printf '%s\n' "$OUT" | jq -r .replay_equals_live)" true "A's own replay vs live"
a=$(field L1-icache-load-misses:k a) b=$(field L1-icache-load-misses:k b)
[ "$a" -gt 0 ] 2>/dev/null || fail "no kernel L1i misses counted: $a"
expect_eq "$b" "$a" "entry-align-4k (negative control): kernel L1i misses"
expect_eq "$(field L1-icache-load-misses:k difference)" 0 "negative control: B-A"
expect_eq "$(field L1-icache-load-misses:k a_live)" "$a" "A's replay vs A's live count"
expect_eq "$(printf '%s\n' "$OUT" | jq '[.events[].event] | length')" 6 "default events"
expect_eq "$(printf '%s\n' "$OUT" | jq '[.events[] | select(has("verdict"))] | length')" 0 \
  "a verdict without relinks"
expect_match "no verdict" "$(printf '%s\n' "$OUT" | jq -r .no_verdict)"
expect_eq "$(printf '%s\n' "$OUT" | jq .carried_b.approximate)" 0 "approximately carried"

# ---- entry-in-text against 3 relinks: text, B as its bzImage ---------------------
mkdir noise && for i in 1 2 3; do ln -s "$K/x86_64-baseline-shuffle-$i" "noise/shuffle-$i"; done
mkdir noise/not-a-build
expect_exit 0 ab --kernel-b "$K/x86_64-entry-in-text/bzImage" --noise-layouts noise -- "${HB[@]}"
expect_match "^lace ab: $HEADER\$" "$OUT"
expect_match "equals the live counts, every event" "$OUT"
expect_match "placement noise: 3 relinks of A" "$OUT"
expect_match "no p below 2/\(n\+1\) = 0.5 is possible" "$OUT"
expect_match "^L1-icache-load-misses:k +[0-9]+ +[0-9]+ +[-+][0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3 .* (within|beyond) placement noise\$" "$OUT"
expect_match "^cost \(not a result\): one boot of A" "$OUT"

# the same as JSON, the relinks named one by one
expect_exit 0 ab --kernel-b "$K/x86_64-entry-in-text/bzImage" --json \
  --noise-layout noise/shuffle-1/vmlinux --noise-layout noise/shuffle-2/vmlinux \
  --noise-layout noise/shuffle-3/vmlinux -- "${HB[@]}"
expect_eq "$(printf '%s\n' "$OUT" | jq .relinks)" 3 "relinks"
expect_eq "$(printf '%s\n' "$OUT" | jq .min_p)" 0.5 "the smallest p 3 relinks allow"
# p from the ranks (two-sided, ties against x), Holm never below p, and
# the verdict word from the Holm p
printf '%s\n' "$OUT" | jq -e '[.events[] | select(.tested)] | length == 4 and all(.[];
    .relinks == 3 and .relinks_above + .relinks_below <= 3 and
    (.p - ([1, 2 * ([4 - .relinks_below, 4 - .relinks_above] | min) / 4] | min) | fabs) < 1e-9 and
    .p_holm >= .p and
    .verdict == (if .p_holm < 0.05 then "beyond placement noise" else "within placement noise" end))' \
  >/dev/null || fail "rank tests: $(printf '%s\n' "$OUT" | jq -c '.events')"
d=$(field L1-icache-load-misses:k difference)
[ "$d" -ne 0 ] 2>/dev/null || fail "entry-in-text: the kernel L1i misses did not move ($d)"

# ---- bad input: one line, exit 2 ----------------------------------------------
expect_exit 2 ab -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "needs --kernel-a A and --kernel-b B" "$ERR"
expect_exit 2 "$LACE" ab --same-execution --backend sim --kernel-a "$A" --kernel-b "$A" -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "needs --backend qemu" "$ERR"
expect_exit 2 ab --kernel-b "$A" --noise-layouts noise/not-a-build -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "noise/not-a-build: no subfolder holds a vmlinux" "$ERR"
expect_exit 2 ab --kernel-b "$A" -e task-clock -- "${HB[@]}"
expect_one_line "$ERR"
# B of other code: here a program, not a kernel.  Refused before A's
# boot: almost none of A's function names are in it (a relink or a
# placement variant has all of them; Debian's 6.1.0-54 and -57 kernels,
# three stable updates apart, pass this check too)
expect_exit 2 ab --kernel-b "$BUILD/bench/hackbench" -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "hackbench is not a build of A's code: [0-9]+ of A's [0-9]+ functions have their name in it" "$ERR"
# A's boot takes lace ab's run options: --timeout ends it (a failed run, exit 1)
expect_exit 1 ab --kernel-b "$A" --timeout 1 -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "^lace: A's boot: 1 of 1 runs failed: 1 timeout \(timed out after 1s\)$" "$ERR"
exit 0
