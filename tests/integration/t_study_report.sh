#!/bin/bash
# The study report, golden: `lace study --report-only` renders a fixture
# results file (a real `lace study --quick` run, trimmed to what the report
# reads by tests/fixtures/study/trim.py) into exactly report.md.golden and
# summary.golden, and the report keeps the wording rules of issue 17
# (tests/fixtures/study/check_report.py): every beyond/within agrees with
# the numbers printed next to it, every rank phrase with its counts, no
# placement verdict from repeats of a simulated count, and in every chart
# of report.html the baseline bar lies inside its band.
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

# reading 4 is one execution replayed through every build, its ranks
# Holm-adjusted over variants x events; a variant lace replay refused
# (code it adds or changes, above --max-approx) is not measured, with
# replay's reason, and is no test
expect_match "recorded once \(.lace stat --backend sim --record.\) and replayed" "$(cat out/report.md)"
expect_match 'Holm over 16 tests multiplies the smallest p by 16' "$(cat out/report.md)"
expect_match 'p +Holm p +rank among randomized builds' "$(cat out/summary.txt)"
mkdir -p refused
python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
rows=r["q4_placement"]["rows"]
rows[1]={"config": rows[1]["config"], "variant": rows[1]["variant"],
  "not_measured": "lace: v/hackbench: 23.08% of the executed instructions are carried over approximately (above --max-approx 1%), in: main"}
json.dump(r, open(sys.argv[2], "w"))' out/results.json refused/results.json || fail "cannot write the refused results"
expect_exit 1 "$LACE" study --report-only --out refused
expect_match '\| cold-slowpaths \| not measured: lace: v/hackbench: 23.08% .*above --max-approx 1%' "$(cat refused/report.md)"
expect_match 'Holm over 12 tests' "$(cat refused/report.md)"
expect_match 'cold-slowpaths +not measured: lace: v/hackbench' "$OUT"

# the rules can fail: a flipped word, a verdict from too few builds, a
# baseline bar drawn outside its band
sed '0,/, within the layout noise floor/s//, beyond the layout noise floor/' out/report.md > flip.md
expect_exit 1 python3 "$F/check_report.py" flip.md
expect_match "says '.*beyond the layout noise floor" "$OUT"
# (a spread of K < 19 builds turned into a verdict, counts made to agree)
sed -E "0,/within the layout spread \(([0-9]+) of ([0-9]+) builds differ less, ([0-9]+) more/s//more than every randomized build differs (\2 of \2 builds differ less, 0 more/" \
  out/report.md > few.md
cmp -s few.md out/report.md && fail "no rank phrase to turn into a verdict"
expect_exit 1 python3 "$F/check_report.py" few.md
expect_match 'verdict from [0-9]+ < 19 builds' "$OUT"
sed -E '0,/data-label="baseline" data-value="[^"]+"/s//data-label="baseline" data-value="1e99"/' \
  out/report.html > band.html
expect_exit 1 python3 "$F/check_report.py" out/report.md band.html
expect_match 'outside its band' "$OUT"
