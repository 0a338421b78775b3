# lace ab --same-execution (issue 34): B's placement against A's on
# recorded executions replayed through virtual layouts of both, paired:
#  - the negative control: every kernel code address of
#    x86_64-entry-align-4k is congruent mod 4096 with x86_64-baseline's in
#    every draw, so every cell's kernel L1i misses are equal and the
#    verdict is "equivalent"; each execution's replay through its own
#    build equals its boot; half the executions are B's boots;
#  - the report: the design (E, K, family), the effect with its CI, the
#    Holm p over the primaries, the sign-flip p, the smallest detectable
#    effect, a verdict per primary event and estimates for the rest, and
#    A vs A (--aa), in text and JSON;
#  - bad input is one line and exit 2: no --kernel-b, another backend, an
#    event the model has not, a B that is not a build of A's code, the
#    design's options without --same-execution; --timeout ends a boot
#    (exit 1, the failed boot named).
# Skipped, saying why, without the kernel builds (make check-kernel).
# timeout: 900
. "$SRC/tests/integration/lib.sh"
K=${LACE_KERNELS:-$BUILD/kernels}
for k in x86_64-baseline x86_64-entry-align-4k x86_64-entry-in-text; do
  [ -f "$K/$k/vmlinux" ] || skip "no $k/vmlinux in $K: 'make check-kernel' builds the kernels (about 25 min the first time on 2 cores)"
done
[ -f "$K/x86_64-baseline/bzImage" ] || skip "no x86_64-baseline/bzImage in $K: 'make check-kernel' builds the kernels"
need_qemu_x86
command -v jq >/dev/null || skip "jq needed to read the JSON (Debian package jq)"
built "$BUILD/bench/hackbench"
cd "$T" || fail "no temp dir"
A=$K/x86_64-baseline/bzImage
HB=("$BUILD/bench/hackbench" -g 2 -f 5 -l 5)
ab() { "$LACE" ab --same-execution --backend qemu --kernel-a "$A" "$@"; }
# jq on the last JSON output: one event's field
field() { printf '%s\n' "$OUT" | jq -r --arg e "$1" ".events[] | select(.event == \$e) | .$2"; }

# ---- the negative control ------------------------------------------------------
expect_exit 0 ab --kernel-b "$K/x86_64-entry-align-4k/bzImage" --executions 2 --draws 3 --aa --json \
  -- "${HB[@]}"
printf '%s\n' "$OUT" > neg.json
expect_eq "$(jq -r .schema neg.json)" lace-placement "schema"
expect_eq "$(jq -r .replay_equals_live neg.json)" true "each execution's own replay vs its boot"
expect_eq "$(jq -r '[.executions[].side] | join(",")' neg.json)" "A,B" "the executions' sides"
expect_eq "$(jq -r '.design.executions, .design.draws' neg.json | tr '\n' ' ')" "2 3 " "the design"
expect_eq "$(field L1-icache-load-misses:k cells)" 6 "cells: 2 executions x 3 draws"
expect_eq "$(field L1-icache-load-misses:k cells_equal)" 6 "negative control: every cell's kernel L1i equal"
expect_eq "$(field L1-icache-load-misses:k verdict)" equivalent "negative control's verdict"
expect_eq "$(field L1-icache-load-misses:k primary)" true "kernel L1i misses: a primary event"
expect_eq "$(field instructions:k verdict)" null "instructions: an estimate, no verdict"
expect_eq "$(jq '[.events[].event] | length' neg.json)" 6 "default events"
expect_eq "$(jq '[.a_vs_a.events[] | select(.verdict == "slower" or .verdict == "faster")] | length' neg.json)" 0 \
  "A vs A called slower or faster"

# ---- entry-in-text, as text --------------------------------------------------------
expect_exit 0 ab --kernel-b "$K/x86_64-entry-in-text/bzImage" --executions 2 --draws 3 -- "${HB[@]}"
expect_match "^lace ab: B's placement against A's, on recorded executions replayed through virtual layouts of both$" "$OUT"
expect_match "^  design: 2 executions \(half of them B's boots\), 3 virtual layout pairs each \(family function, seed 1\)$" "$OUT"
expect_match "^L1-icache-load-misses:k +[0-9]+ +[0-9]+ +[-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\] .*(slower|faster|equivalent within|inconclusive|no verdict possible: smallest detectable effect [0-9.]+%)" "$OUT"
expect_match "^instructions:k .*\(estimate\)$" "$OUT"
expect_match "^cost \(not a result\): boots [0-9.]+ s, replays [0-9.]+ s$" "$OUT"

# ---- bad input: one line, exit 2 --------------------------------------------------
expect_exit 2 ab -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "needs --kernel-a A and --kernel-b B" "$ERR"
expect_exit 2 "$LACE" ab --same-execution --backend sim --kernel-a "$A" --kernel-b "$A" -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "needs --backend qemu" "$ERR"
expect_exit 2 ab --kernel-b "$A" -e task-clock -- "${HB[@]}"
expect_one_line "$ERR"
expect_exit 2 "$LACE" ab --executions 4 -A true -B true
expect_one_line "$ERR"
expect_match "go with --same-execution" "$ERR"
expect_exit 2 ab --kernel-b "$A" --noise-layouts x -- "${HB[@]}"
expect_one_line "$ERR"
# B of other code: here a program, not a kernel.  Refused before any
# boot: almost none of A's function names are in it (a relink or a
# placement variant has all of them; Debian's 6.1.0-54 and -57 kernels,
# three stable updates apart, pass this check too)
expect_exit 2 ab --kernel-b "$BUILD/bench/hackbench" -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "hackbench is not a build of A's code: [0-9]+ of A's [0-9]+ functions have their name in it" "$ERR"
# the boots take lace ab's run options: --timeout ends them (exit 1)
expect_exit 1 ab --kernel-b "$A" --executions 2 --draws 2 --timeout 1 -- "${HB[@]}"
expect_one_line "$ERR"
expect_match "^lace: [AB]'s boot [0-9] \(perturbation 0\): 1 of 1 runs failed: 1 timeout \(timed out after 1s\)$" "$ERR"
exit 0
