#!/bin/bash
# report.html as a browser draws it: both studies' reports, rendered from
# fixtures (no build, no boot), opened in headless Chromium, and checked
# from the laid-out page (tests/fixtures/study/browser_check.py): every
# row of the table behind each chart has its mark and label drawn inside
# the chart with the table's value, bars start at zero (or are dots that
# say where the axis starts), every <pre> keeps its lines.
# The kernel study's fixture is a real --quick run with 4 executions; the
# test makes it a 23-execution one (executions 4-22 repeat the first
# four's rows, their live counts moved apart: what is tested is the
# drawing, not the numbers), since a chart once stopped after 16 rows;
# and it puts a
# real `lace diff` output (of the diff fixture's two builds) where the
# fixture's diff failed, so the report has its code block.  The check
# then has to catch each of the faults it was written for, planted in
# copies of the kernel report (a chart cut short, bars not from zero, a
# <pre> that lost its lines): it cannot pass by checking nothing.
# timeout: 120
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1
F=$SRC/tests/fixtures/study
command -v chromium >/dev/null ||
  skip "no chromium (scripts/setup-deps.sh test installs Debian's chromium)"

"$SRC/tests/fixtures/diff/build.sh" old.elf || fail "cannot build the diff fixture"
"$SRC/tests/fixtures/diff/build.sh" new.elf -DMOVE_ENTRY -DSLOW_COLD || fail "cannot build the diff fixture"
"$LACE" diff old.elf new.elf > diff.txt 2> diff.err
[ "$(wc -l < diff.txt)" -gt 3 ] || fail "lace diff printed too little: $(cat diff.err)"

mkdir ms ks
cp "$F/results.json" ms/results.json
expect_exit 0 "$LACE" study --report-only --out ms
python3 - "$F/kernel-results.json" ks/results.json diff.txt <<'PY' || fail "cannot make the 23-kernel fixture"
import copy, json, sys
d = json.load(open(sys.argv[1]))
r4 = d["r4_entry_text"]
ex = r4["executions"]
n0 = len(ex)
for i in range(n0, 23):
    e = copy.deepcopy(ex[i % n0])
    e["execution"] = i
    e["events"]["L1-icache-load-misses:k"] += 1000 * i
    ex.append(e)
r4["design"]["executions"] = 23
cmd = d["commands"][r4["diff"]["command"]]
cmd.update(output=open(sys.argv[3]).read(), exit=0, stderr="")
assert len(ex) == 23
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect_exit 0 "$LACE" study --kernel --report-only --out ks
grep -q "^    " ks/report.md || fail "the kernel report has no code block (lace diff excerpt)"

bad=""
for r in ms ks; do
  python3 "$F/browser_check.py" inject $r/report.html $r/check.html || fail "cannot prepare $r"
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --window-size=1200,3000 \
    --dump-dom "file://$T/$r/check.html" > $r/dom.html 2> $r/chromium.err ||
    fail "chromium could not render $r/report.html: $(tail -n 3 $r/chromium.err)"
  python3 "$F/browser_check.py" check $r/dom.html $r/report.md > $r/check.txt
  rc=$?
  cat $r/check.txt
  [ $rc -eq 0 ] || bad="$bad $r/report.html"
done
[ -z "$bad" ] || fail "not drawn right (above):$bad"

# Negative controls: the faults issue 26 found in a browser, planted in
# copies of the kernel report, each caught by the same check:
#  cut   - the reading-4 chart stops after 16 of its 23 rows;
#  bars  - its rows drawn as bars whose axis starts near the smallest
#          value (192k of 290k then), not at zero;
#  nopre - the lace diff excerpt as a paragraph, its line breaks lost.
python3 - ks/report.html <<'PY' || fail "cannot plant the faults"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
svgs = [m for m in re.finditer(r"<svg .*?</svg>", page, re.S)]
r4 = next(m for m in svgs if "each recorded execution" in m.group(0))
chart = r4.group(0)
dots = re.findall(r'<circle class="dot"[^>]*/>|<rect class="bar"[^>]*/>', chart)
assert len(dots) == 23, len(dots)
def planted(new_chart):
    return page[:r4.start()] + new_chart + page[r4.end():]
cut = chart
for d in dots[16:]:
    cut = cut.replace(d, "", 1)
open("ks/cut.html", "w", encoding="utf-8").write(planted(cut))
vals = [float(re.search(r'data-value="([^"]+)"', d).group(1)) for d in dots]
lo, hi = 0.9 * min(vals), max(vals)
bars = chart
for d, v in zip(dots, vals):
    label = re.search(r'data-label="([^"]*)"', d).group(1)
    cy = float(re.search(r'cy="([^"]+)"', d).group(1)) if 'cy="' in d else \
        float(re.search(r' y="([^"]+)"', d).group(1)) + 5
    bars = bars.replace(d, '<rect class="bar" data-label="%s" data-value="%s" x="200" y="%.1f" '
                        'width="%.1f" height="10"/>' % (label, v, cy - 5, 1 + 400 * (v - lo) / (hi - lo)), 1)
open("ks/bars.html", "w", encoding="utf-8").write(planted(bars))
nopre = re.sub(r"<pre>(.*?)</pre>", lambda m: "<p>%s</p>" % m.group(1), page, flags=re.S)
assert nopre != page
open("ks/nopre.html", "w", encoding="utf-8").write(nopre)
PY
for planted in "cut:16 marks for 23 table rows" \
               "bars:(the axis does not start at zero)" \
               "nopre:0 <pre> drawn for 1 code blocks"; do
  name=${planted%%:*} want=${planted#*:}
  python3 "$F/browser_check.py" inject ks/$name.html ks/$name.check.html || fail "cannot prepare $name"
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --window-size=1200,3000 \
    --dump-dom "file://$T/ks/$name.check.html" > ks/$name.dom 2> ks/$name.err ||
    fail "chromium could not render ks/$name.html: $(tail -n 3 ks/$name.err)"
  python3 "$F/browser_check.py" check ks/$name.dom ks/report.md > ks/$name.txt &&
    fail "the planted fault '$name' passed the check: $(cat ks/$name.txt)"
  grep -qF -- "$want" ks/$name.txt || fail "the planted fault '$name' was not caught as '$want': $(cat ks/$name.txt)"
  echo "planted '$name': caught ($(grep -F -- "$want" ks/$name.txt | head -n 1))"
done
exit 0
