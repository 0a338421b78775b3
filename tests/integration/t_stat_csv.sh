#!/bin/bash
# lace stat -x: perf stat -x's columns (perf 6.1) read by one parser on
# both tools' output; any separator string; -r 1 prints no ( +- ); a mean
# below 1 keeps its decimals; perf's derived metrics (CPUs utilized, insn
# per cycle) and lace's MPKI, computed from known counts; where the
# elapsed time comes from.
. "$SRC/tests/integration/lib.sh"

# perf_csv_check FILE SEP EVENT UNIT: read EVENT's row by perf's column
# meanings -- value, unit, event, [variance "x.xx%" only when repeated],
# run time (ns), percentage running, metric value, metric unit -- and
# print "value variance run pct metric_value metric_unit" (variance "-"
# when absent).  Fails on a row that does not fit.
perf_csv_check() {
  awk -v sep="$2" -v ev="$3" -v unit="$4" '
    function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
    BEGIN { found = 0 }
    { n = split($0, f, sep) }
    n >= 3 && f[3] == ev {
      found = 1
      i = 4; var = "-"
      if (f[4] ~ /^[0-9]+\.[0-9][0-9]%$/) { var = f[4]; i = 5 }
      run = f[i]; p = f[i + 1]; mv = f[i + 2]; mu = f[i + 3]
      if (!num(f[1])) { print "value not numeric: " $0 > "/dev/stderr"; exit 2 }
      if (f[2] != unit) { print "unit not " unit ": " $0 > "/dev/stderr"; exit 2 }
      if (run !~ /^[0-9]+$/) { print "run time not an integer: " $0 > "/dev/stderr"; exit 2 }
      if (!num(p) || p + 0 > 100) { print "pct running not a percentage: " $0 > "/dev/stderr"; exit 2 }
      if (mv != "" && !num(mv)) { print "metric value not numeric: " $0 > "/dev/stderr"; exit 2 }
      print f[1], var, run, p, (mv == "" ? "-" : mv), (mu == "" ? "-" : mu)
    }
    END { if (!found) { print "no " ev " row" > "/dev/stderr"; exit 2 } }' "$1"
}

# 1. lace and perf, -r 3: the same parser reads both, variance present
expect_exit 0 "$LACE" stat --no-results -x, -e task-clock -r 3 -- true
printf '%s\n' "$OUT" >lace3.csv
l=$(perf_csv_check lace3.csv , task-clock msec) || fail "lace -r 3 row: $OUT"
case $l in *" - "*) fail "lace -r 3: no variance column: $OUT" ;; esac
case $l in *"CPUs utilized"*) ;; *) fail "lace: no CPUs utilized metric: $OUT" ;; esac
# lace-only columns follow perf's (sd %, runs counted): 10 fields in all
expect_eq "$(awk -F, '{ print NF }' lace3.csv)" 10 "lace -r 3 column count"
# 2. without -r: no variance column, as perf 6.1 prints none
expect_exit 0 "$LACE" stat --no-results -x, -e task-clock -- true
printf '%s\n' "$OUT" >lace1.csv
l=$(perf_csv_check lace1.csv , task-clock msec) || fail "lace -r 1 row: $OUT"
case $l in *" - "[0-9]*) ;; *) fail "lace -r 1 printed a variance column: $OUT" ;; esac
# <not supported> as perf: no value, empty unit, run 0, 100.00, empty metric
expect_exit 0 "$LACE" stat --no-results --backend hw -x, -e task-clock,cycles -- true
if printf '%s\n' "$OUT" | grep -q '^<not supported>'; then
  expect_match '^<not supported>,,cycles,0,100\.00,,,' "$OUT"
fi

if command -v perf >/dev/null && perf stat -x, -e task-clock true >/dev/null 2>&1; then
  perf stat -x, -r 3 -e task-clock true 2>perf3.csv >/dev/null || fail "perf stat -r 3 failed"
  p=$(perf_csv_check perf3.csv , task-clock msec) || fail "perf -r 3 row: $(cat perf3.csv)"
  case $p in *" - "*) fail "perf -r 3: parser found no variance: $(cat perf3.csv)" ;; esac
  perf stat -x, -e task-clock true 2>perf1.csv >/dev/null || fail "perf stat failed"
  p=$(perf_csv_check perf1.csv , task-clock msec) || fail "perf -r 1 row: $(cat perf1.csv)"
  case $p in *" - "[0-9]*) ;; *) fail "perf -r 1: parser expected no variance: $(cat perf1.csv)" ;; esac
  # the metric names agree where both compute one
  expect_eq "$(perf_csv_check lace3.csv , task-clock msec | cut -d' ' -f6-)" \
    "$(perf_csv_check perf3.csv , task-clock msec | cut -d' ' -f6-)" "task-clock metric unit"
  perf_note="perf and lace"
else
  perf_note="lace only (perf cannot count task-clock here)"
fi

# 3. a separator of several characters, as perf takes it; \t is a tab
expect_exit 0 "$LACE" stat --no-results -x '::' -e task-clock,page-faults -r 2 -- true
printf '%s\n' "$OUT" >multi.csv
perf_csv_check multi.csv '::' task-clock msec >/dev/null || fail "-x '::': $OUT"
perf_csv_check multi.csv '::' page-faults '' >/dev/null || fail "-x '::': $OUT"
expect_match '^[0-9]+::::page-faults::[0-9]+\.[0-9][0-9]%::' "$OUT"
expect_exit 0 "$LACE" stat --no-results -x '\t' -e page-faults -- true
expect_match "^[0-9]+		page-faults	" "$OUT"
# a name holding the separator is quoted
expect_exit 0 "$LACE" stat --no-results -x / -e software/config=2/ -- true
expect_match '^[0-9]+//"software/config=2/"/' "$OUT"

# 4. -r 1 prints no ( +- ) (one value has no spread); -r 3 does
expect_exit 0 "$LACE" stat --no-results -r 1 -e task-clock,page-faults -- true
expect_nomatch '\+-' "$OUT"
expect_match 'seconds time elapsed' "$OUT"
expect_exit 0 "$LACE" stat --no-results -r 3 -e task-clock,page-faults -- true
expect_match 'page-faults .*\( \+- +[0-9.]+% \)' "$OUT"
expect_match '\+- [0-9.]+ seconds time elapsed' "$OUT"
# 5. where the elapsed time comes from
expect_match '^  \(elapsed: wall clock of the native runs\)$' "$OUT"

# handcrafted batches: known counts, so the output is known
# row VALUES...: one run line per value list (one value per event)
mk() { # mk FILE EVENTS_JSON ELAPSED VALUE_LISTS...
  local f=$1 evs=$2 el=$3 i=0; shift 3
  echo '{"lace_results":1,"kind":"stat","command":"x","repeat":'$#',"events":'"$evs"'}' >"$f"
  for vals in "$@"; do
    local counts="" v
    for v in $vals; do
      counts="$counts${counts:+,}{\"value\":$v,\"raw\":$v,\"status\":\"counted\",\"enabled\":100,\"running\":100}"
    done
    echo '{"run":'$i',"round":'$i',"warmup":false,"fault":"ok","elapsed":'$el',"user":0,"sys":0,"ctx_switches":1,"migrations":0,"counts":['"$counts"']}' >>"$f"
    i=$((i + 1))
  done
  echo '{"end":true,"interrupted":false,"runs":'$i'}' >>"$f"
}

# 6. a mean below 1 keeps its decimals (0.4 context switches, not 0)
mk sub1.jsonl '[{"name":"context-switches","unit":"","scale":1},{"name":"cpu-migrations","unit":"","scale":1}]' 0.1 \
  "0 0" "1 0" "0 0" "1 0" "0 0"
expect_exit 0 "$LACE" report sub1.jsonl
expect_match '^ +0\.40 +context-switches' "$OUT"
expect_match '^ +0 +cpu-migrations' "$OUT"
expect_exit 0 "$LACE" report -x, sub1.jsonl
expect_match '^0\.40,,context-switches,' "$OUT"
expect_match '^0,,cpu-migrations,' "$OUT"

# 7. metrics: 3000 instructions / 1500 cycles = 2.00 IPC; 9 L1i misses
# and 3 iTLB misses per 3000 instructions = 3.00 and 1.00 MPKI; 50 msec
# of task-clock in 0.1 s = 0.500 CPUs utilized
ev='[{"name":"instructions","unit":"","scale":1},{"name":"cycles","unit":"","scale":1},{"name":"L1-icache-load-misses","unit":"","scale":1},{"name":"iTLB-load-misses","unit":"","scale":1},{"name":"task-clock","unit":"msec","scale":1e-6},{"name":"page-faults","unit":"","scale":1}]'
mk met.jsonl "$ev" 0.1 "2900 1450 8 2 50000000 10" "3100 1550 10 4 50000000 10"
expect_exit 0 "$LACE" report met.jsonl
expect_match '^ +3000 +instructions +# +2\.00 insn per cycle' "$OUT"
expect_match '^ +9 +L1-icache-load-misses +# +3\.00 L1i MPKI' "$OUT"
expect_match '^ +3 +iTLB-load-misses +# +1\.00 iTLB MPKI' "$OUT"
expect_match '^ +50\.00 msec +task-clock +# +0\.500 CPUs utilized' "$OUT"
expect_nomatch 'page-faults +#' "$OUT"
expect_exit 0 "$LACE" report -x, met.jsonl
expect_match '^3000,,instructions,[0-9.]+%,100,100\.00,2\.00,insn per cycle,' "$OUT"
expect_match '^9,,L1-icache-load-misses,[0-9.]+%,100,100\.00,3\.00,L1i MPKI,' "$OUT"
expect_match '^3,,iTLB-load-misses,[0-9.]+%,100,100\.00,1\.00,iTLB MPKI,' "$OUT"
expect_match '^10,,page-faults,[0-9.]+%,100,100\.00,,,' "$OUT"
expect_exit 0 "$LACE" report --json met.jsonl
printf '%s' "$OUT" | jq -e '
  (.events | map({(.name): [.metric_value, .metric_unit]}) | add) as $m
  | $m.instructions == [2, "insn per cycle"] and $m["L1-icache-load-misses"] == [3, "L1i MPKI"]
  and $m["iTLB-load-misses"] == [1, "iTLB MPKI"] and $m["page-faults"] == [null, ""]
  and (($m["task-clock"][0] - 0.5) | fabs) < 1e-9 and .elapsed_source == "native"' >/dev/null ||
  fail "--json metrics: $OUT"
# perf's aliases and modifiers pair up; different modifiers or a
# simulated count over a native one do not
ev='[{"name":"instructions:u","unit":"","scale":1},{"name":"cpu-cycles:u","unit":"","scale":1},{"name":"l1i-load-misses:u","unit":"","scale":1},{"name":"iTLB-load-misses","unit":"","scale":1}]'
mk alias.jsonl "$ev" 0.1 "3000 1500 9 3"
expect_exit 0 "$LACE" report alias.jsonl
expect_match 'instructions:u +# +2\.00 insn per cycle' "$OUT"
expect_match 'l1i-load-misses:u +# +3\.00 L1i MPKI' "$OUT"
expect_nomatch 'iTLB MPKI' "$OUT"
ev='[{"name":"instructions","unit":"","scale":1,"simulated":true},{"name":"cycles","unit":"","scale":1},{"name":"L1-icache-load-misses","unit":"","scale":1,"simulated":true}]'
mk mixed.jsonl "$ev" 0.1 "3000 1500 9"
expect_exit 0 "$LACE" report mixed.jsonl
expect_nomatch 'insn per cycle' "$OUT"
expect_match 'L1-icache-load-misses \[sim\] +# +3\.00 L1i MPKI' "$OUT"
expect_match 'elapsed: wall clock of the native run; simulated events come from a separate run under valgrind' "$OUT"
# every event simulated: the time is valgrind's
ev='[{"name":"instructions","unit":"","scale":1,"simulated":true}]'
mk allsim.jsonl "$ev" 0.5 "3000"
expect_exit 0 "$LACE" report allsim.jsonl
expect_match "elapsed: wall clock of the simulator's run under valgrind" "$OUT"
expect_exit 0 "$LACE" report --json allsim.jsonl
printf '%s' "$OUT" | jq -e '.elapsed_source == "simulator"' >/dev/null || fail "elapsed_source: $OUT"
echo "CSV columns checked against $perf_note"
exit 0
