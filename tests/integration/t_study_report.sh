#!/bin/bash
# The study report, golden: `lace study --report-only` renders a fixture
# results file (a real `lace study --quick` run, trimmed to what the report
# reads by tests/fixtures/study/trim.py) into exactly report.md.golden and
# summary.golden, and the report keeps the wording rules of issue 17
# (tests/fixtures/study/check_report.py): every beyond/within agrees with
# the numbers printed next to it, every verdict of reading 4 with its row
# (its Holm p, effect and smallest detectable effect), reading 4 says
# whether its simulated executions differ, and in every chart of
# report.html the baseline mark lies inside its band.
# After a deliberate change to the report: UPDATE_GOLDEN=1 rewrites the
# golden files; review their diff like code.
. "$SRC/tests/integration/lib.sh"

F=$SRC/tests/fixtures/study
mkdir -p out
cp "$F/results.json" out/results.json
expect_exit 0 "$LACE" study --report-only --out out
printf '%s\n' "$OUT" > out/summary.txt
if [ -n "$UPDATE_GOLDEN" ]; then
  cp out/report.md "$F/report.md.golden"
  cp out/summary.txt "$F/summary.golden"
fi
diff -u "$F/report.md.golden" out/report.md >&2 ||
  fail "report.md differs from tests/fixtures/study/report.md.golden"
diff -u "$F/summary.golden" out/summary.txt >&2 ||
  fail "the summary differs from tests/fixtures/study/summary.golden"
python3 "$F/check_report.py" out/report.md out/report.html >&2 || fail "wording rules broken"

# the simulator counted each workload's measurement window: the report says
# so, and the fit over sizes shows what is left per run (nothing: 0 ± 0)
expect_match 'They count each workload.s measurement window only' "$(cat out/report.md)"
expect_match 'plus a fixed difference of 0 ± 0 instructions per run inside the measurement window' "$(cat out/report.md)"
# results of whole runs (no "window" key, older studies) keep their wording
mkdir -p whole
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["backend"].pop("window"); json.dump(r, open(sys.argv[2], "w"))' \
  out/results.json whole/results.json || fail "cannot write the whole-run results"
expect_exit 0 "$LACE" study --report-only --out whole
expect_match 'They count the whole run of each workload, start-up included' "$(cat whole/report.md)"
expect_match 'plus a fixed start-up difference of' "$(cat whole/report.md)"
expect_nomatch 'measurement window' "$(cat whole/report.md)"

# reading 4 is the placement design: recorded executions replayed through
# paired draws of baseline and each variant, Holm over every variant x
# primary event; --report-only judges the stored rows again.  A variant
# lace replay refused (code it adds or changes, above --max-approx) is not
# measured, with replay's reason, and is no test
expect_match 'executions of baseline recorded \(.lace stat --backend sim --record.' "$(cat out/report.md)"
expect_match 'Holm-adjusted over every variant measured \(8 tests\)' "$(cat out/report.md)"
expect_match 'The executions are replicas' "$(cat out/report.md)"
expect_match 'effect \[95% CI\] +Holm p +verdict' "$(cat out/summary.txt)"
mkdir -p refused
python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
for e in r["q4_placement"]["executions"]:
    e["replays"]["cold-slowpaths"]={"not_measured": "lace: v/hackbench: 23.08% of the executed instructions are carried over approximately (above --max-approx 1%), in: main"}
json.dump(r, open(sys.argv[2], "w"))' out/results.json refused/results.json || fail "cannot write the refused results"
expect_exit 1 "$LACE" study --report-only --out refused
expect_match '\| cold-slowpaths \| not measured: lace: v/hackbench: 23.08% .*above --max-approx 1%' "$(cat refused/report.md)"
expect_match 'Holm-adjusted over every variant measured \(6 tests\)' "$(cat refused/report.md)"
expect_match 'cold-slowpaths +not measured: lace: v/hackbench' "$OUT"

# the rules can fail: a flipped word, a verdict its row does not bear, a
# reading 4 silent on its executions, a baseline mark drawn outside its band
sed '0,/, within the layout noise floor/s//, beyond the layout noise floor/' out/report.md > flip.md
expect_exit 1 python3 "$F/check_report.py" flip.md
expect_match "says '.*beyond the layout noise floor" "$OUT"
# (the first verdict row whose Holm p is above 0.05 made "slower")
python3 - out/report.md slower.md <<'PY' || fail "no verdict row to make slower"
import re, sys
out, done = [], False
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    c = line.split("|")
    if not done and len(c) == 13 and re.match(r" [0-9.]+ $", c[7]) and float(c[7]) > 0.05 \
            and c[11].strip() != "(estimate)":
        c[11] = " slower "
        line, done = "|".join(c), True
    out.append(line)
assert done
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out))
PY
expect_exit 1 python3 "$F/check_report.py" slower.md
expect_match "verdict 'slower' disagrees with its row" "$OUT"
sed 's/The executions are replicas/The executions are/' out/report.md > silent.md
expect_exit 1 python3 "$F/check_report.py" silent.md
expect_match 'does not say whether its simulated executions differ' "$OUT"
sed -E '0,/data-label="baseline" data-value="[^"]+"/s//data-label="baseline" data-value="1e99"/' \
  out/report.html > band.html
expect_exit 1 python3 "$F/check_report.py" out/report.md band.html
expect_match 'outside its band' "$OUT"
