#!/bin/bash
# lace compare between two builds says what it cannot see (issue 34, item
# 6): the kprobes thread's perf stat summaries, compared as perf -x files,
# give the verdict the thread's numbers support -- "faster", -6.13 %
# [-8.31 %, -3.90 %], Holm p 0.043 -- and say it judges these two
# binaries, not their placement, and how to ask about the placement (lace
# ab --same-execution).  A known layout spread (--layout-noise) is folded
# into the interval and the verdict follows it.  Batches of one build say
# nothing of the kind and fold nothing in; bad spreads are one line, exit 2.
. "$SRC/tests/integration/lib.sh"
command -v jq >/dev/null || skip "jq not installed"

# The thread ("kprobes: Prohibit probing on .entry.text"): perf stat -r 100
# and -r 500 of hackbench, L1-icache-load-misses 1,237,453 and 1,234,272
# without the patch, 1,162,386 and 1,155,816 with it.  Its "( +- x% )"
# spreads were not found in lace's library: these are derived, and
# reproduce the issue's result: +-0.25 % at -r 100 and +-0.11 % at -r 500
# (an sd of ~2.5 % per run either way).  The thread's other events are
# not in the issue either: L1-icache-loads <not supported> (as on the
# Intel machines of the time) and two unchanged iTLB events, which make
# the Holm family 3 tests: 0.043 = 3 x the L1i misses' p of 0.0144.
summary() { # FILE L1I-MISSES PCT ITLB PCT ITLB-MISSES PCT
  {
    printf '# started on Mon Nov 29 10:00:00 2010\n\n'
    printf '<not supported>,,L1-icache-loads,0,100.00,,\n'
    printf '%s,,L1-icache-load-misses,%s%%,1000000000,100.00,,\n' "$2" "$3"
    printf '%s,,iTLB-loads,%s%%,1000000000,100.00,,\n' "$4" "$5"
    printf '%s,,iTLB-load-misses,%s%%,1000000000,100.00,,\n' "$6" "$7"
  } >"$1"
}
summary a100.csv 1237453 0.25 3641212 0.31 27301 0.52
summary a500.csv 1234272 0.11 3638850 0.14 27279 0.23
summary b100.csv 1162386 0.25 3639473 0.30 27290 0.51
summary b500.csv 1155816 0.11 3640190 0.14 27312 0.23
KPROBES="-A a100.csv@100 -B b100.csv@100 -A a500.csv@500 -B b500.csv@500"

# shellcheck disable=SC2086
expect_exit 0 "$LACE" compare $KPROBES
expect_match '^  L1-icache-load-misses +1234802\.17 .* 1159101\.00 .* -6\.13%  \[-8\.31%, -3\.90%\] +0\.043[0-9] +faster$' "$OUT"
expect_match '^ note: two binaries, not a placement: lace cannot tell whether A and B are one build \(perf stat output records no build-id\) and takes them as two; these verdicts judge the two binaries, one layout draw each, not their placement\. To judge the placement: lace ab --same-execution \(recorded executions replayed through virtual layouts of both builds\)$' "$OUT"
expect_match '^ note: no layout spread folded in .*: give a known one with --layout-noise PCT$' "$OUT"
# one note per report, not one per row
expect_eq "$(printf '%s\n' "$OUT" | grep -c 'two binaries')" 1 "scope notes in the text"
# shellcheck disable=SC2086
expect_exit 0 "$LACE" compare --json $KPROBES
printf '%s' "$OUT" | jq -e '.builds.builds == "unknown" and .layout_noise == null
  and ([.events[].scope] | all(. == "two binaries")) and (.events | length) == 4
  and (.notes[0] | startswith("two binaries, not a placement"))
  and ([.events[] | select(.name == "L1-icache-load-misses")][0]
       | .verdict == "faster" and .layout_noise == null and (.p_holm * 1000 | round) == 43)' \
  >/dev/null || fail "compare --json of the kprobes summaries: $OUT"

# the relinks' own spread, 2.5 %, folded in: the interval crosses 1 and
# "faster" becomes inconclusive; the runs' own interval is still shown
# shellcheck disable=SC2086
expect_exit 0 "$LACE" compare --layout-noise 2.5 $KPROBES
expect_match '^  L1-icache-load-misses .* -6\.13%  \[-12\.44%, \+0\.63%\] +0\.2238 +inconclusive$' "$OUT"
expect_match '^  L1-icache-load-misses +\[-8\.31%, -3\.90%\], p 0\.014 \(before Holm\)$' "$OUT"
expect_match '^ note: layout spread 2\.5% folded into the intervals \(--layout-noise: the sd of an event across layouts of one build, one draw a side: se\^2 \+ 2 sd\^2 on the log scale\); the verdicts use the widened intervals$' "$OUT"
expect_nomatch 'no layout spread folded in' "$OUT"
# shellcheck disable=SC2086
expect_exit 0 "$LACE" compare --json --layout-noise 2.5 $KPROBES
printf '%s' "$OUT" | jq -e '.layout_noise == {"*": 0.025} and .layout_noise_folded
  and ([.events[] | select(.name == "L1-icache-load-misses")][0]
       | .verdict == "inconclusive" and .layout_noise == 0.025 and .ci_high > 1
         and (.runs_ci_high - 0.961 | fabs) < 0.001 and .scope == "two binaries")' \
  >/dev/null || fail "compare --json --layout-noise 2.5: $OUT"
# per event: only the L1i misses are widened, the iTLB rows stay as they were
# shellcheck disable=SC2086
expect_exit 0 "$LACE" compare --layout-noise L1-icache-load-misses=2.5 $KPROBES
expect_match '^  L1-icache-load-misses .* \[-12\.44%, \+0\.63%\] .* inconclusive$' "$OUT"
expect_match '^  iTLB-loads .* \[-0\.33%, \+0\.38%\] .* equivalent$' "$OUT"
expect_match 'layout spread L1-icache-load-misses 2\.5% folded into the intervals' "$OUT"

# lace stat results files: the kernel's build-id and the command say it
# lace_batch FILE BUILD-ID COMMAND MEAN: 10 runs of page-faults around MEAN
lace_batch() {
  awk -v id="$2" -v cmd="$3" -v m="$4" 'BEGIN {
    printf "{\"kernel\":{\"release\":\"6.1.0\",\"build_id\":\"%s\",\"boot_id\":\"b-%s\"},", id, m
    printf "\"lace_results\":1,\"kind\":\"stat\",\"command\":\"%s\",\"margin\":0.01,\"confidence\":0.95,", cmd
    printf "\"events\":[{\"name\":\"page-faults\",\"unit\":\"\",\"scale\":1}]}\n"
    for (i = 0; i < 10; i++)
      printf "{\"run\":%d,\"round\":%d,\"warmup\":false,\"fault\":\"ok\",\"elapsed\":0.01,\"user\":0,\"sys\":0,\"ctx_switches\":1,\"migrations\":0,\"counts\":[{\"value\":%d,\"status\":\"counted\",\"enabled\":1,\"running\":1}]}\n", i, i, m + (i % 3) - 1
    printf "{\"end\":true,\"interrupted\":false,\"runs\":10}\n"
  }' >"$1"
}
X=1111111111111111111111111111111111111111
Y=2222222222222222222222222222222222222222
lace_batch x1.jsonl $X hackbench 1000
lace_batch x2.jsonl $X hackbench 1200
lace_batch y1.jsonl $Y hackbench 1200
lace_batch xo.jsonl $X other 1200
# one build both sides: no scope note, nothing folded in (one layout)
expect_exit 0 "$LACE" compare --session-noise 5 x1.jsonl x2.jsonl
expect_nomatch 'two binaries|layout spread' "$OUT"
expect_match '^  page-faults .* slower$' "$OUT"
expect_match 'note: A and B ran the same kernel build' "$OUT"
expect_exit 0 "$LACE" compare --json --session-noise 5 x1.jsonl x2.jsonl
printf '%s' "$OUT" | jq -e '.builds.builds == "same" and .events[0].scope == "one build"
  and .layout_noise_folded == false' >/dev/null || fail "one build, --json: $OUT"
expect_exit 0 "$LACE" compare --session-noise 5 --layout-noise 2.5 x1.jsonl x2.jsonl
expect_match '^  page-faults .* slower$' "$OUT"
expect_match '^ note: layout spread 2\.5% \(--layout-noise\) not folded in: A and B are one build, so one layout \(kernel build-id 111111111111\.\.\. on both sides; the same command\)$' "$OUT"
# two kernel builds: named by their build-ids
expect_exit 0 "$LACE" compare --session-noise 5 x1.jsonl y1.jsonl
expect_match '^  page-faults .* slower$' "$OUT"
expect_match '^ note: two binaries, not a placement: A and B are different builds \(kernel build-ids 111111111111\.\.\. and 222222222222\.\.\.\); these verdicts judge the two binaries' "$OUT"
# one kernel, two commands: their builds are not recorded
expect_exit 0 "$LACE" compare --json x1.jsonl xo.jsonl
printf '%s' "$OUT" | jq -e '.builds.builds == "unknown" and (.builds.why | test("different commands"))
  and .events[0].scope == "two binaries"' >/dev/null || fail "two commands: $OUT"

# bad spreads: one line, exit 2
for bad in 0 -1 100 abc "" =2 page-faults= page-faults=x no-such-event=2; do
  expect_exit 2 "$LACE" compare --layout-noise "$bad" x1.jsonl x2.jsonl
  expect_one_line "$ERR"
  expect_match '^lace: compare: --layout-noise ' "$ERR"
done
exit 0
