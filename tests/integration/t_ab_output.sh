#!/bin/bash
# lace ab: wall time is compared like an event (an "elapsed" row, in
# seconds, with the same paired statistics and verdict), every row shows
# its unit, and each ratio is also said as hyperfine does: "B is 2.00 ±
# 0.01 times slower than A" / "1.25 ± 0.01 times faster" -- in the text,
# the JSON and the Markdown.
. "$SRC/tests/integration/lib.sh"

# A handcrafted batch with known values: B takes twice A's wall time and
# has 0.8 x A's page faults (task-clock in ns, shown in msec).
{
  echo '{"lace_results":1,"kind":"ab","command":"A: a / B: b","a":"a","b":"b","margin":0.01,"confidence":0.95,"events":[{"name":"page-faults","unit":"","scale":1},{"name":"task-clock","unit":"msec","scale":1e-6}]}'
  i=0 r=0
  for a in 100 101 99 100 102 98; do
    b=$(( a * 8 / 10 ))
    ea=$(awk -v a=$a 'BEGIN { printf "%.6f", a / 1000 }')
    eb=$(awk -v a=$a -v r=$r 'BEGIN { printf "%.6f", 2 * a / 1000 * (1 + (r % 2 ? 0.002 : -0.002)) }')
    echo '{"run":'$i',"round":'$r',"side":"A","warmup":false,"fault":"ok","elapsed":'$ea',"user":0,"sys":0,"ctx_switches":1,"migrations":0,"counts":[{"value":'$a',"status":"counted","enabled":1,"running":1},{"value":5000000,"status":"counted","enabled":1,"running":1}]}'
    echo '{"run":'$((i + 1))',"round":'$r',"side":"B","warmup":false,"fault":"ok","elapsed":'$eb',"user":0,"sys":0,"ctx_switches":1,"migrations":0,"counts":[{"value":'$b',"status":"counted","enabled":1,"running":1},{"value":5000000,"status":"counted","enabled":1,"running":1}]}'
    i=$((i + 2)) r=$((r + 1))
  done
  echo '{"end":true,"interrupted":false,"runs":12}'
} >known.jsonl

expect_exit 0 "$LACE" report known.jsonl
expect_match '^  event +unit +A mean' "$OUT"
expect_match '^  elapsed +s +0\.100000 +[0-9.]+% +0\.(199|200)[0-9]{3} .* slower$' "$OUT"
expect_match '^  task-clock +msec +5\.00 ' "$OUT"
expect_match '^  page-faults +100\.00 .* faster$' "$OUT"
expect_match '^  elapsed +B is 2\.000? ± 0\.0[0-9]+ times slower than A$' "$OUT"
expect_match '^  page-faults +B is 1\.2[4-6] ± 0\.0[0-9]+ times faster than A$' "$OUT"
expect_match '^  task-clock +B is as A \(1\.00 ± 0\.00 times\)$' "$OUT"
expect_match 'elapsed: wall clock of the native runs' "$OUT"

expect_exit 0 "$LACE" report --json known.jsonl
printf '%s' "$OUT" | jq -e '
  ([.events[].name] == ["page-faults", "task-clock"])
  and .elapsed.name == "elapsed" and .elapsed.unit == "s" and .elapsed.verdict == "slower"
  and .elapsed.rounds == 6 and ((.elapsed.factor - 2) | fabs) < 0.01
  and .elapsed.factor_direction == "slower"
  and (.elapsed.factor_text | test("^B is 2\\.000? ± 0\\.0[0-9]+ times slower than A$"))
  and .events[0].factor_direction == "faster" and ((.events[0].factor - 1.25) | fabs) < 0.02
  and .events[0].factor_pm > 0 and .events[0].unit == "" and .events[1].unit == "msec"
  and .events[1].factor_direction == "same"
  and .elapsed_source == "native"' >/dev/null || fail "--json: $OUT"

expect_exit 0 "$LACE" report --md known.jsonl
expect_match '^\| event \|.*\| factor \| verdict \|$' "$OUT"
expect_match '^\| elapsed \| 0\.100000 s \([0-9.]+%\) \| 0\.(199|200)[0-9]{3} s .*\| B is 2\.000? ± 0\.0[0-9]+ times slower than A \| slower \|$' "$OUT"
expect_match '^\| task-clock \| 5\.00 msec ' "$OUT"
expect_match '^\| page-faults \|.*times faster than A \| faster \|$' "$OUT"

# live: a command that sleeps is slower in wall time, not in page faults
expect_exit 0 "$LACE" ab --no-results -r 3 --seed 7 -e page-faults -A true -B 'sleep 0.05'
expect_match '^  elapsed +s +0\.[0-9]{6} ' "$OUT"
expect_match '^  elapsed +B is [0-9]+\.[0-9]+ ± [0-9.]+ times slower than A$' "$OUT"
exit 0
