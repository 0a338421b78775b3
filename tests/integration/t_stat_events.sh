#!/bin/bash
# lace stat: event names in perf's spelling, perf's <not supported>
# convention with a one-line hint, and the output formats (--json fields,
# -x CSV, -v).
. "$SRC/tests/integration/lib.sh"

# software events through every spelling: generic, pmu/config=/, modifiers, groups
expect_exit 0 "$LACE" stat --no-results -x, -e 'page-faults,software/config=2/,faults:u,{minor-faults,major-faults},cs' -- true
pf=$(printf '%s\n' "$OUT" | awk -F, '$3 == "page-faults" { print $1 }')
sw=$(printf '%s\n' "$OUT" | awk -F, '$3 == "software/config=2/" { print $1 }')
[ "$pf" -gt 0 ] || fail "page-faults not counted: $OUT"
[ "$sw" -gt 0 ] || fail "software/config=2/ not counted: $OUT"
expect_match '^[0-9]+,,faults:u,' "$OUT"
expect_match '^[0-9]+,,minor-faults,' "$OUT"
expect_match '^[0-9]+,,cs,' "$OUT"
# native names through libpfm4 (its perf:: table exists on every machine)
expect_exit 0 "$LACE" stat --no-results -x, -e perf::PERF_COUNT_SW_PAGE_FAULTS,PERF_COUNT_SW_CONTEXT_SWITCHES -- true
expect_match '^[0-9]+,,perf::PERF_COUNT_SW_PAGE_FAULTS,' "$OUT"
expect_match '^[0-9]+,,PERF_COUNT_SW_CONTEXT_SWITCHES,' "$OUT"

# unknown names and bad syntax: exit 2, one line naming the event
for bad in 'no-such-event:zz' 'syscalls:no_such_tp' 'nopmu/config=1/' 'cpu/config=1' '{page-faults' 'page-faults:q' ''; do
  expect_exit 2 "$LACE" stat --no-results -e "$bad" -- true
  expect_one_line "$ERR"
  expect_match '^lace: ' "$ERR"
done
expect_exit 2 "$LACE" stat --no-results --backend nope -- true
expect_one_line "$ERR"
expect_exit 2 "$LACE" stat --no-results -r 0 -- true
expect_exit 2 "$LACE" stat --no-results -C 99999 -- true
expect_exit 2 "$LACE" stat --no-results
expect_one_line "$ERR"

# hardware events on a CPU without them: <not supported>, a one-line hint
# naming the simulator backend, exit 0
if perf stat -e cycles true 2>&1 | grep -q 'not supported'; then
  expect_exit 0 "$LACE" stat --no-results --backend hw -e cycles,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,r003c,page-faults -- true
  for e in cycles L1-icache-loads L1-icache-load-misses iTLB-loads iTLB-load-misses r003c; do
    expect_match "<not supported> +$e" "$OUT"
  done
  expect_match '^ +[0-9]+ +page-faults' "$OUT"
  expect_match 'hint: .*--backend sim' "$ERR"
  [ "$(printf '%s\n' "$ERR" | grep -c hint)" -eq 1 ] || fail "expected one hint line: $ERR"
  expect_exit 0 "$LACE" stat --no-results --backend hw --json -e cycles -- true
  printf '%s' "$OUT" | jq -e '.events[0] | .status == "not_supported" and .mean == null' >/dev/null ||
    fail "JSON of an unsupported event: $OUT"
fi

# a non-root user under perf_event_paranoid >= 2: counted in user space only,
# said in one note line; a tracepoint is refused with the sysctl named.
# The tracepoint is one this machine's kernel has (root lists them: kernels
# differ, one without CONFIG_FTRACE_SYSCALLS has no syscalls:*); with no
# tracefs mounted, the one line says that instead
tp=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
  [ -d "$d/events" ] || continue
  tp=$(cd "$d/events" && for e in */*/id; do [ -f "$e" ] && { dirname "$e"; break; }; done)
  [ -n "$tp" ] && break
done
tp=${tp/\//:}
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
  cp "$LACE" ./lace-copy && chmod 755 . ./lace-copy
  nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
  expect_exit 0 nobody ./lace-copy stat --no-results -e page-faults -- /bin/true
  expect_match '^ +[0-9]+ +page-faults' "$OUT"
  expect_match 'note: kernel.perf_event_paranoid=[0-9]+ and not root: events count user space only' "$ERR"
  expect_exit 2 nobody ./lace-copy stat --no-results -e "${tp:-syscalls:sys_enter_write}" -- /bin/true
  expect_one_line "$ERR"
  if [ -n "$tp" ]; then
    expect_match 'perf_event_paranoid' "$ERR"
  else
    expect_match 'tracefs is not mounted' "$ERR"
  fi
fi

# --json: the stable fields
expect_exit 0 "$LACE" stat -r 3 --json -e page-faults,task-clock --results s.jsonl -- true
printf '%s' "$OUT" | jq -e '
  .command == "true" and .runs == 3
  and ([.events[].name] == ["page-faults", "task-clock"])
  and all(.events[]; has("name") and has("unit") and has("mean") and has("stddev") and has("sem")
          and (.values | length) == 3
          and ((.sem - .stddev / (3 | sqrt)) | fabs) <= 1e-9 * ([1, .stddev] | max))
  and .events[1].unit == "msec"
  and (.elapsed.values | length) == 3' >/dev/null || fail "--json: $OUT"
# the text table labels the SE of the mean and sigma apart; -v adds min/median/max
expect_exit 0 "$LACE" report -v s.jsonl
expect_match 'page-faults +\( \+- +[0-9.]+% \)  sd +[0-9.]+%' "$OUT"
expect_match 'standard error of the mean' "$OUT"
expect_match 'min [0-9]+  median [0-9]+  max [0-9]+' "$OUT"
expect_match 'seconds time elapsed' "$OUT"

# duration_time: perf's tool event, the run's wall clock in ns, close to the
# elapsed time lace reports (a sleep of 0.2 s takes at least 0.2 s)
expect_exit 0 "$LACE" stat --no-results -x, -e duration_time -- sleep 0.2
ns=$(printf '%s\n' "$OUT" | awk -F, '$3 == "duration_time" { print $1 }')
[ -n "$ns" ] || fail "no duration_time row: $OUT"
expect_eq "$(printf '%s\n' "$OUT" | awk -F, '$3 == "duration_time" { print $2 }')" ns "duration_time unit"
awk -v v="$ns" 'BEGIN { exit !(v >= 2e8 && v < 5e9) }' || fail "duration_time $ns ns for sleep 0.2"
exit 0
