#!/bin/bash
# lace stat's runner options: -C pins the workload, --pre/--post run around
# each run (a failing --pre is a start fault), --warmup runs are recorded
# but not counted, --show-output passes the output to stderr, and children
# and threads are counted (inherit) unless -i.
. "$SRC/tests/integration/lib.sh"
nruns() { jq -s '[.[] | select(has("run"))] | length' "$1"; }

# pinning: the workload sees only CPU 0
expect_exit 0 "$LACE" stat --no-results -C 0 --show-output -e task-clock -- sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_match 'Cpus_allowed_list:[[:space:]]+0$' "$ERR"
# with --output=null the workload's output is not shown (the default,
# inherit, is tested in t_stat_output)
expect_exit 0 "$LACE" stat --no-results --output=null -e task-clock -- printf 'zq%s' xout
expect_nomatch 'zqxout' "$OUT$ERR"

# --pre / --post run once per run (warmups included), outside the measurement
expect_exit 0 "$LACE" stat -r 3 --warmup 2 -e page-faults --results w.jsonl \
  --pre 'echo pre >> log' --post 'echo post >> log' -- true
expect_eq "$(grep -c pre log)" 5 "--pre runs"
expect_eq "$(grep -c post log)" 5 "--post runs"
expect_eq "$(nruns w.jsonl)" 5 "warmup and measured runs recorded"
expect_match '\(3 runs,' "$OUT"
expect_eq "$(jq -sc '[.[] | select(has("run")) | .warmup]' w.jsonl)" '[true,true,false,false,false]' "warmup flags"

# a failing --pre: the run is a start fault and is not executed
expect_exit 1 "$LACE" stat -r 2 -e task-clock --results pre.jsonl --pre 'exit 4' -- sh -c 'echo ran >> ran.log'
[ -e ran.log ] && fail "the workload ran although --pre failed"
expect_eq "$(jq -sc '[.[] | select(has("run")) | .fault] | unique' pre.jsonl)" '["start"]' "pre fault"

# children and threads are counted: 4 children each writing once
expect_exit 0 "$LACE" stat --no-results -x, -e syscalls:sys_enter_exit_group -- sh -c 'for i in 1 2 3 4; do /bin/true & done; wait'
n=$(printf '%s\n' "$OUT" | awk -F, '$3 == "syscalls:sys_enter_exit_group" { print $1 }')
if [ -n "$n" ] && [ "$n" != "<not supported>" ]; then
  [ "$n" -ge 5 ] || fail "children not counted: $n exit_group calls"
  expect_exit 0 "$LACE" stat --no-results -i -x, -e syscalls:sys_enter_exit_group -- sh -c 'for i in 1 2 3 4; do /bin/true & done; wait'
  n1=$(printf '%s\n' "$OUT" | awk -F, '$3 == "syscalls:sys_enter_exit_group" { print $1 }')
  [ "$n1" -lt "$n" ] || fail "-i still counted the children: $n1 vs $n"
fi

# progress on stderr only when it is a terminal
expect_exit 0 "$LACE" stat -r 2 --no-results -e page-faults -- true
expect_nomatch '\[run ' "$ERR"
if command -v script >/dev/null; then
  tty_out=$(script -qec "'$LACE' stat -r 2 --no-results -e page-faults -- true" /dev/null | tr '\r' '\n')
  expect_match '\[run 2/2\]' "$tty_out"
  tty_out=$(script -qec "'$LACE' ab -r 2 --seed 1 --no-results -e page-faults -A true -B true" /dev/null | tr '\r' '\n')
  expect_match '\[round 2/2: [AB]\]' "$tty_out"
fi

# lace ab --base/--head/--workload: {elf} is replaced by each file
cc -O2 -o fp "$SRC/tests/fixtures/measure/faultpages.c" || fail "cannot build the fixture"
cp fp fp2
expect_exit 0 "$LACE" ab -r 3 --seed 2 --no-results --json -e page-faults --base ./fp --head ./fp2 --workload '{elf} 50'
expect_eq "$(printf '%s' "$OUT" | jq -r '.a + "|" + .b')" './fp 50|./fp2 50' "--workload substitution"
expect_exit 2 "$LACE" ab --base ./fp --head ./fp2 --workload 'no placeholder'
expect_one_line "$ERR"
exit 0
