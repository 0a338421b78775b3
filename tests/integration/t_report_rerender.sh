#!/bin/bash
# lace report re-renders a finished, interrupted or cut-short batch; a last
# line cut short is ignored with a warning; a file that is not a results
# file is exit 2 with one line.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" stat -r 4 --json -e page-faults,context-switches --results s.jsonl -- true
live=$OUT
expect_exit 0 "$LACE" report --json s.jsonl
jq -en --argjson a "$live" --argjson b "$OUT" '$a.command == $b.command and $a.runs == $b.runs
  and ([$a.events[] | [.values, .mean]] == [$b.events[] | [.values, .mean]])' >/dev/null ||
  fail "report differs from the live output"
expect_exit 0 "$LACE" report -x';' s.jsonl
expect_match '^[0-9]+;;page-faults;' "$OUT"
expect_exit 0 "$LACE" report --md s.jsonl
expect_match '^\| page-faults \|' "$OUT"

# a crash mid-write: the last line is cut short
head -c -25 s.jsonl > cut.jsonl
expect_exit 0 "$LACE" report cut.jsonl
expect_match 'cut short' "$ERR"
expect_one_line "$ERR"
expect_match 'Performance counter stats' "$OUT"
expect_match 'did not finish' "$OUT"
# drop the end record and a run: still reported, with 3 runs
head -n 4 s.jsonl > part.jsonl
expect_exit 0 "$LACE" report --json part.jsonl
printf '%s' "$OUT" | jq -e '.runs == 3 and (.finished | not)' >/dev/null || fail "$OUT"

# runs with context switches far beyond the batch's norm are flagged (run 7 only)
{
  echo '{"lace_results":1,"kind":"stat","command":"x","events":[{"name":"page-faults","unit":"","scale":1}]}'
  i=0
  for cs in 10 11 10 12 10 11 300 10 11 12; do
    echo '{"run":'$i',"round":'$i',"warmup":false,"fault":"ok","elapsed":0.1,"user":0,"sys":0,"ctx_switches":'$cs',"migrations":0,"counts":[{"value":'$((100 + i))',"status":"counted","enabled":1,"running":1}]}'
    i=$((i + 1))
  done
  echo '{"end":true,"interrupted":false,"runs":10}'
} > flag.jsonl
expect_exit 0 "$LACE" report flag.jsonl
expect_match "context switches beyond the batch's norm: 7 \\(300\\)$" "$OUT"
expect_nomatch 'CPU migrations beyond' "$OUT"

# perf's conventions from the counts: a multiplexed counter shows the share
# of time it ran, one never scheduled shows <not counted>, never 0
{
  echo '{"lace_results":1,"kind":"stat","command":"x","events":[{"name":"cycles","unit":"","scale":1},{"name":"instructions","unit":"","scale":1},{"name":"iTLB-loads","unit":"","scale":1}]}'
  for i in 0 1 2; do
    echo '{"run":'$i',"round":'$i',"fault":"ok","elapsed":0.1,"user":0,"sys":0,"ctx_switches":1,"migrations":0,"counts":[{"value":2000,"raw":1000,"status":"counted","enabled":200,"running":100},{"value":null,"raw":0,"status":"not_counted","enabled":200,"running":0},{"value":null,"raw":0,"status":"not_supported","enabled":0,"running":0}]}'
  done
} > mux.jsonl
expect_exit 0 "$LACE" report mux.jsonl
expect_match '^ +2000 +cycles .*\(50\.00%\)' "$OUT"
expect_match '<not counted> +instructions' "$OUT"
expect_match '<not supported> +iTLB-loads' "$OUT"
expect_exit 0 "$LACE" report -x, mux.jsonl
expect_match '^<not counted>,,instructions,' "$OUT"
expect_match '^2000,,cycles,0\.00%,100,50\.00,' "$OUT"

# not results files
echo 'hello' > bad.jsonl
expect_exit 2 "$LACE" report bad.jsonl
expect_one_line "$ERR"
printf '{"x":1}\n{"run":0}\n' > bad2.jsonl
expect_exit 2 "$LACE" report bad2.jsonl
expect_one_line "$ERR"
: > empty.jsonl
expect_exit 2 "$LACE" report empty.jsonl
expect_one_line "$ERR"
expect_exit 2 "$LACE" report /nonexistent.jsonl
expect_one_line "$ERR"
expect_exit 2 "$LACE" report
# a bad line in the middle is an error, not silently skipped
{ head -n 2 s.jsonl; echo '{"run": broken'; tail -n +3 s.jsonl; } > mid.jsonl
expect_exit 2 "$LACE" report mid.jsonl
expect_match 'mid.jsonl:3' "$ERR"

# an ab batch re-rendered
expect_exit 0 "$LACE" ab -r 3 --seed 1 -e page-faults --results ab.jsonl -A true -B true
expect_exit 0 "$LACE" report ab.jsonl
expect_match 'page-faults .* (equivalent|inconclusive|slower|faster)' "$OUT"
expect_exit 0 "$LACE" report --json ab.jsonl
printf '%s' "$OUT" | jq -e '.rounds == 3 and .events[0].name == "page-faults"' >/dev/null || fail "$OUT"
exit 0
