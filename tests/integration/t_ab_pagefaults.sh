#!/bin/bash
# Acceptance: a live A/B on page faults.  A faults in N pages, B in 3 % more
# page faults (the pages are set so that B's total, process start-up
# included, is 1.03 x A's): lace ab -e page-faults says slower with a CI
# that contains +3 %; A against itself says equivalent.  Also -r auto,
# --json fields and --md.
. "$SRC/tests/integration/lib.sh"

cc -O2 -o faultpages "$SRC/tests/fixtures/measure/faultpages.c" || fail "cannot build the fixture"
# the faults of starting the process (through /bin/sh -c, as lace ab runs
# commands): faultpages 1 faults start-up + 1
expect_exit 0 "$LACE" stat -r 5 -x, -e page-faults --no-results -- /bin/sh -c './faultpages 1'
base=$(printf '%s\n' "$OUT" | awk -F, '$3 == "page-faults" { print $1 - 1 }')
[ -n "$base" ] || fail "no start-up faults measured"
# pick n near 5000 so that 1.03 x (n + base) - base is nearly a whole number;
# base is a 5-run mean and start-up faults vary by a few (sd ~0.8 %), so
# the true ratio may sit up to ~0.001 off 1.03 while the 10-round CI is
# only about as wide: the check allows 0.002 (seen: ci_high 1.02997)
read -r n nb < <(awk -v c="$base" 'BEGIN {
  best = 1; for (k = 5000; k < 5200; k++) { x = 1.03 * (k + c) - c; f = x - int(x); d = f < 0.5 ? f : 1 - f
    if (d < best) { best = d; n = k; nb = int(x + 0.5) } }
  print n, nb }')

expect_exit 0 "$LACE" ab -e page-faults -r 10 --seed 7 --json --results ab.jsonl \
  -A "./faultpages $n" -B "./faultpages $nb"
printf '%s' "$OUT" | jq -e '.rounds == 10 and (.events[0] |
  has("name") and has("a_mean") and has("b_mean") and has("ratio") and has("ci_low")
  and has("ci_high") and has("p") and has("verdict")
  and .name == "page-faults" and .verdict == "slower"
  and .ci_low - 0.002 <= 1.03 and 1.03 <= .ci_high + 0.002)' >/dev/null || fail "A/B page faults: $OUT"

# A/A: equivalent
expect_exit 0 "$LACE" ab -e page-faults -r 10 --seed 8 --json --no-results \
  -A "./faultpages $n" -B "./faultpages $n"
expect_eq "$(printf '%s' "$OUT" | jq -r '.events[0].verdict')" equivalent "A/A verdict"

# -r auto stops as soon as every event is decided (page faults: quickly)
expect_exit 0 "$LACE" ab -e page-faults -r auto --max-runs 30 --seed 9 --json --no-results \
  -A "./faultpages $n" -B "./faultpages $nb"
printf '%s' "$OUT" | jq -e '.events[0].verdict == "slower" and .rounds >= 5 and .rounds < 30' >/dev/null ||
  fail "-r auto: $OUT"

# the order of A and B is random per round, and the seed makes it repeatable
order() { jq -rs '[.[] | select(has("run")) | .side] | join("")' "$1"; }
expect_exit 0 "$LACE" ab -e page-faults -r 6 --warmup 0 --seed 7 --results again.jsonl \
  -A "./faultpages 10" -B "./faultpages 11"
o1=$(order again.jsonl)
expect_exit 0 "$LACE" ab -e page-faults -r 6 --warmup 0 --seed 7 --results again2.jsonl \
  -A "./faultpages 10" -B "./faultpages 11"
expect_eq "$(order again2.jsonl)" "$o1" "same seed, same order"
expect_nomatch '^(AB)+$' "$o1"
expect_nomatch '^(BA)+$' "$o1"

# --md: a paste-ready block with the commands, the machine and the verdict
expect_exit 0 "$LACE" report --md ab.jsonl
expect_match '^#### lace ab: 10 paired rounds' "$OUT"
expect_match '\| page-faults \| .* \| slower \|' "$OUT"
expect_match 'machine: ' "$OUT"

# usage errors: one line, exit 2
expect_exit 2 "$LACE" ab -A true
expect_one_line "$ERR"
expect_exit 2 "$LACE" ab -A true -B true --margin abc
expect_one_line "$ERR"
exit 0
