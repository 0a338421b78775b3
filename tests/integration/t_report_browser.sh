#!/bin/bash
# report.html as a browser draws it: both studies' reports, rendered from
# fixtures (no build, no boot), opened in headless Chromium, and checked
# from the laid-out page (tests/fixtures/study/browser_check.py): every
# row of the table behind each chart has its mark and label drawn inside
# the chart with the table's value, bars start at zero (or are dots that
# say where the axis starts), every <pre> keeps its lines.
# The kernel study's fixture is a real --quick run with 3 relinks; the
# test makes it a 23-layout one as `--shuffle 19` writes (relinks 4-19
# repeat the counts of relinks 1-3: what is tested is the drawing, not
# the numbers), since the chart once stopped after 16 rows; and it puts a
# real `lace diff` output (of the diff fixture's two builds) where the
# fixture's diff failed, so the report has its code block.
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
shuf = [k for k in r4["layouts"] if k.get("shuffle")]
for i in range(len(shuf) + 1, 20):
    k = copy.deepcopy(shuf[(i - 1) % len(shuf)])
    k["kernel"] = "x86_64-baseline-shuffle-%d" % i
    r4["layouts"].append(k)
d["shuffle"] = 19
cmd = d["commands"][r4["diff"]["command"]]
cmd.update(output=open(sys.argv[3]).read(), exit=0, stderr="")
assert len(r4["layouts"]) == 23
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
exit 0
