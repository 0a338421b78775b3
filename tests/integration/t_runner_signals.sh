#!/bin/bash
# SIGINT and SIGTERM end a batch cleanly: the runs so far are printed, the
# results file ends with an interrupted end record, exit 130 / 143.
. "$SRC/tests/integration/lib.sh"

for sig in INT TERM; do
  "$LACE" stat -r 200 -e task-clock --results $sig.jsonl -- sleep 0.1 >$sig.out 2>$sig.err &
  pid=$!
  for i in $(seq 100); do
    [ "$(grep -c '"run"' $sig.jsonl 2>/dev/null)" -ge 3 ] && break
    sleep 0.1
  done
  kill -$sig $pid
  wait $pid; rc=$?
  want=$([ $sig = INT ] && echo 130 || echo 143)
  expect_eq "$rc" "$want" "exit status after SIG$sig"
  expect_match '"end":true,"interrupted":true' "$(tail -n 1 $sig.jsonl)"
  expect_match 'Performance counter stats' "$(cat $sig.out)"
  expect_match 'interrupted' "$(cat $sig.out)"
  jq -e . $sig.jsonl >/dev/null || fail "results not JSON lines"
  pgrep -f 'sleep 0.1$' -P $pid >/dev/null && fail "workload survived"
done

# lace ab: Ctrl-C prints the verdicts so far
"$LACE" ab -r 200 -e task-clock --seed 3 -A 'sleep 0.05' -B 'sleep 0.05' --results ab.jsonl >ab.out 2>ab.err &
pid=$!
for i in $(seq 100); do
  [ "$(grep -c '"run"' ab.jsonl 2>/dev/null)" -ge 8 ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid; rc=$?
expect_eq "$rc" 130 "lace ab exit status after SIGINT"
expect_match 'task-clock' "$(cat ab.out)"
expect_match 'interrupted' "$(cat ab.out)"
expect_exit 0 "$LACE" report ab.jsonl
expect_match 'task-clock' "$OUT"
exit 0
