#!/bin/bash
# lace report re-renders a finished, interrupted or cut-short batch; a last
# line cut short is ignored with a warning; a file that is not a results
# file is exit 2 with one line.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" stat -r 4 --json -e page-faults,context-switches --results s.jsonl -- true
live=$OUT
expect_exit 0 "$LACE" report --json s.jsonl
python3 -c '
import json,sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for k in ("command", "runs"):
    assert a[k] == b[k], k
for x, y in zip(a["events"], b["events"]):
    assert x["values"] == y["values"] and x["mean"] == y["mean"], (x, y)' "$live" "$OUT" || fail "report differs from the live output"
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
python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["runs"]==3 and not o["finished"], o' "$OUT" || fail "$OUT"

# runs with context switches far beyond the batch's norm are flagged (run 7 only)
python3 - <<'PY'
import json
with open("flag.jsonl", "w") as f:
    f.write(json.dumps({"lace_results": 1, "kind": "stat", "command": "x",
                        "events": [{"name": "page-faults", "unit": "", "scale": 1}]}) + "\n")
    for i, cs in enumerate([10, 11, 10, 12, 10, 11, 300, 10, 11, 12]):
        f.write(json.dumps({"run": i, "round": i, "warmup": False, "fault": "ok", "elapsed": 0.1,
                            "user": 0, "sys": 0, "ctx_switches": cs, "migrations": 0,
                            "counts": [{"value": 100 + i, "status": "counted", "enabled": 1, "running": 1}]}) + "\n")
    f.write(json.dumps({"end": True, "interrupted": False, "runs": 10}) + "\n")
PY
expect_exit 0 "$LACE" report flag.jsonl
expect_match "context switches beyond the batch's norm: 7 \\(300\\)$" "$OUT"
expect_nomatch 'CPU migrations beyond' "$OUT"

# perf's conventions from the counts: a multiplexed counter shows the share
# of time it ran, one never scheduled shows <not counted>, never 0
python3 - <<'PY'
import json
with open("mux.jsonl", "w") as f:
    f.write(json.dumps({"lace_results": 1, "kind": "stat", "command": "x",
                        "events": [{"name": "cycles", "unit": "", "scale": 1},
                                   {"name": "instructions", "unit": "", "scale": 1},
                                   {"name": "iTLB-loads", "unit": "", "scale": 1}]}) + "\n")
    for i in range(3):
        f.write(json.dumps({"run": i, "round": i, "fault": "ok", "elapsed": 0.1, "user": 0, "sys": 0,
                            "ctx_switches": 1, "migrations": 0, "counts": [
                                {"value": 2000, "raw": 1000, "status": "counted", "enabled": 200, "running": 100},
                                {"value": None, "raw": 0, "status": "not_counted", "enabled": 200, "running": 0},
                                {"value": None, "raw": 0, "status": "not_supported", "enabled": 0, "running": 0}]}) + "\n")
PY
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
python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["rounds"]==3 and o["events"][0]["name"]=="page-faults", o' "$OUT" || fail "$OUT"
exit 0
