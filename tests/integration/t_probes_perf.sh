#!/bin/bash
# Acceptance 4 of issue 4: perf counts the hash_fault SDT probe exactly as
# often as the tracepoint's own counter says it fired, in the baseline and
# the cold-slowpaths builds; with the tracepoint disabled neither counts.
# Needs root (uprobes) and perf; the probe is removed afterwards.
. "$SRC/tests/integration/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
[ "$(id -u)" -eq 0 ] || skip "perf probe needs root"
[ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ] \
  || skip "no writable uprobe_events (tracefs not mounted)"

# perf keeps its SDT cache in ~/.debug (PERF_BUILDID_DIR is not honoured by
# buildid-cache): point HOME at the scratch dir so nothing is left behind.
export HOME=$T
cleanup() { perf probe -q -d 'sdt_lace:hash_fault' >/dev/null 2>&1; }
trap cleanup EXIT
cleanup

expect_exit 0 "$LACE" build -v baseline,cold-slowpaths -p hashmmu-driver --out "$T/v"
for v in baseline cold-slowpaths; do
  bin=$T/v/$v/hashmmu-driver
  perf buildid-cache --add "$bin" >/dev/null 2>&1 || fail "$v: perf buildid-cache failed"
  perf probe -q -x "$bin" sdt_lace:hash_fault >/dev/null 2>"$T/probe.err" \
    || skip "perf probe cannot add sdt_lace:hash_fault here: $(tail -n 1 "$T/probe.err")"
  for trace in hash_fault ""; do
    LACE_TRACE=$trace perf stat -x, -o "$T/stat.csv" -e sdt_lace:hash_fault -- \
      "$bin" --pages 64 --rounds 3 --old > "$T/run.json" || fail "$v: driver under perf failed"
    perf_n=$(awk -F, '$3 == "sdt_lace:hash_fault" { print $1 }' "$T/stat.csv")
    hits=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hash_fault_hits"])' "$T/run.json")
    faults=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["faults"])' "$T/run.json")
    [ -n "$perf_n" ] || fail "$v: no count from perf: $(cat "$T/stat.csv")"
    expect_eq "$perf_n" "$hits" "$v (LACE_TRACE=$trace): perf count vs tracepoint counter"
    if [ -n "$trace" ]; then
      expect_eq "$hits" "$faults" "$v: tracepoint hits vs hash faults"
      [ "$hits" -gt 0 ] || fail "$v: no faults counted"
    else
      expect_eq "$perf_n" 0 "$v: disabled tracepoint reached the probe"
    fi
    echo "$v LACE_TRACE=$trace: perf $perf_n, tracepoint $hits, faults $faults"
  done
  cleanup
done
exit 0
