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

# the rules can fail: a flipped word, a verdict from too few builds, a
# baseline bar drawn outside its band
sed '0,/, within the layout noise floor/s//, beyond the layout noise floor/' out/report.md > flip.md
expect_exit 1 python3 "$F/check_report.py" flip.md
expect_match "says '.*beyond the layout noise floor" "$OUT"
sed "s/beyond every randomized build's difference, too few builds to decide (/more than every randomized build differs (/" \
  out/report.md > few.md
expect_exit 1 python3 "$F/check_report.py" few.md
sed -E '0,/data-label="baseline" data-value="[^"]+"/s//data-label="baseline" data-value="1e99"/' \
  out/report.html > band.html
expect_exit 1 python3 "$F/check_report.py" out/report.md band.html
expect_match 'outside its band' "$OUT"
