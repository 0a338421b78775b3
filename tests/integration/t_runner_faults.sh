#!/bin/bash
# Runner faults (issue 9): a workload that crashes, exits non-zero, hangs
# past --timeout, floods output or leaves children behind is recorded as
# such in the results file; the batch goes on (or stops with
# --stop-on-error) and the summary counts the failures.
. "$SRC/tests/integration/lib.sh"

# field FILE RUN KEY: a field of the run with index RUN (0-based) in a results file
field() {
  jq -rs --arg k "$3" "if .[0].lace_results != 1 then error(\"no header\") else . end
    | [.[] | select(has(\"run\"))][$2][\$k]" "$1"
}
nruns() { jq -s '[.[] | select(has("run"))] | length' "$1"; }
endline() { tail -n 1 "$1"; }

# crash
expect_exit 1 "$LACE" stat -r 2 -e task-clock --results crash.jsonl -- sh -c 'kill -SEGV $$'
expect_eq "$(nruns crash.jsonl)" 2 "runs recorded after a crash"
expect_eq "$(field crash.jsonl 0 fault)" signal
expect_eq "$(field crash.jsonl 0 signal)" 11
expect_eq "$(field crash.jsonl 1 fault_msg)" "killed by SIGSEGV"
expect_match '2 of 2 runs failed: 2 signal \(killed by SIGSEGV\)' "$OUT"
expect_match '"end": ?true' "$(endline crash.jsonl)"

# non-zero exit
expect_exit 1 "$LACE" stat -r 1 -e task-clock --results exit.jsonl -- sh -c 'exit 3'
expect_eq "$(field exit.jsonl 0 fault)" exit
expect_eq "$(field exit.jsonl 0 exit_status)" 3

# hang past --timeout: the whole process group dies, quickly
start=$(date +%s)
expect_exit 1 "$LACE" stat -r 1 -e task-clock --timeout 0.5 --results hang.jsonl -- sh -c 'sleep 30.25; sleep 30.25'
[ $(( $(date +%s) - start )) -lt 10 ] || fail "--timeout 0.5 took more than 10 s"
expect_eq "$(field hang.jsonl 0 fault)" timeout
expect_eq "$(field hang.jsonl 0 timed_out)" true
pgrep -f 'sleep 30.25' >/dev/null && fail "the hung workload's child survived the timeout"

# output flood
expect_exit 1 "$LACE" stat -r 1 -e task-clock --output-limit 1M --results flood.jsonl -- yes
expect_eq "$(field flood.jsonl 0 fault)" flood
[ "$(field flood.jsonl 0 output_bytes)" -gt 1048576 ] || fail "flood bytes not recorded"

# children left behind (also one that escapes with setsid): counted and killed
expect_exit 1 "$LACE" stat -r 1 -e task-clock --results left.jsonl -- sh -c 'sleep 31.5 & setsid sleep 31.5 & exit 0'
expect_eq "$(field left.jsonl 0 fault)" leftover
expect_eq "$(field left.jsonl 0 leftover)" 2
sleep 0.2
pgrep -f 'sleep 31.5' >/dev/null && fail "leftover processes were not killed"

# a batch goes on past a failed run, and the statistics use the good ones
# (the failure fails the batch unless accepted: t_exit_status)
cat > flaky.sh <<'SH'
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count; [ "$n" -ne 1 ]
SH
expect_exit 0 "$LACE" stat -r 4 -e task-clock --ignore-failure --results flaky.jsonl -- sh flaky.sh
expect_eq "$(nruns flaky.jsonl)" 4
expect_eq "$(field flaky.jsonl 1 fault)" exit
expect_eq "$(field flaky.jsonl 2 fault)" ok
expect_match "\(3 runs," "$OUT"
expect_match '1 of 4 runs failed: 1 exit \(exit status 1\)' "$OUT"

# --stop-on-error stops at the first failure; the file is still complete JSON lines
rm -f count
expect_exit 1 "$LACE" stat -r 4 -e task-clock --stop-on-error --results stop.jsonl -- sh flaky.sh
expect_eq "$(nruns stop.jsonl)" 2
jq -e . stop.jsonl >/dev/null || fail "results file is not JSON lines"

# lace ab: a side that crashes leaves its rounds unpaired, the file keeps every
# run, and no comparison is a failure
expect_exit 1 "$LACE" ab -r 3 --warmup 0 --seed 1 -e task-clock --results ab.jsonl -A true -B 'kill -SEGV $$'
expect_eq "$(nruns ab.jsonl)" 6
expect_eq "$(jq -rs '[.[] | select(has("run")) | select(.side == "B") | .fault] | unique | join(",")' ab.jsonl)" signal
expect_match '3 of 6 runs failed: 3 signal \(killed by SIGSEGV\)' "$OUT"
expect_match 'task-clock +fewer than 2 paired rounds' "$OUT"

# a command that does not exist: a start fault, not a crash of lace
expect_exit 1 "$LACE" stat -r 1 -e task-clock --results nx.jsonl -- /nonexistent/prog
expect_eq "$(field nx.jsonl 0 fault)" start
exit 0
