#!/bin/bash
# doc/study.md's study sections are generated (issue 26 item 7): the
# parts between its "kernel study: generated" and "model study: generated"
# markers must be exactly what scripts/study-doc.sh renders from
# doc/study-kernel-results.json and doc/study-results.json with this lace
# (so a number typed by hand, or a report change not carried to the doc,
# fails here: run `make study-doc`); every number in their tables is a
# value of their file, as rounded there; and the check bites: a copy of
# the doc with one number changed fails it.
# timeout: 60
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1
doc=$SRC/doc/study.md
for f in study-kernel-results.json study-results.json; do
  [ -f "$SRC/doc/$f" ] || fail "no doc/$f"
done

LACE=$LACE "$SRC/scripts/study-doc.sh" --check 2> check.err ||
  fail "$(cat check.err)"

python3 - "$doc" "$SRC/doc" <<'PY' || fail "a number in doc/study.md's generated tables is not its results file's"
import json, re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
NUM = r"[+-]?[0-9][0-9,]*(?:\.[0-9]+)?"
bad, total = [], 0
for name, res in (("model", "study-results.json"), ("kernel", "study-kernel-results.json")):
    b = doc.index(f"<!-- {name} study: generated")
    e = doc.index(f"<!-- {name} study: end of the generated part -->")
    d = json.load(open(f"{sys.argv[2]}/{res}"))
    d.pop("commands", None)
    vals = []
    def walk(o):
        if isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
        elif isinstance(o, (int, float)) and not isinstance(o, bool):
            vals.append(float(o))
    walk(d)
    n = 0
    lines = doc[b:e].split("\n")
    for i, line in enumerate(lines):
        # table body rows: not the header (the row above the |---| one)
        if not line.startswith("|") or line.startswith("|-") or \
                (i + 1 < len(lines) and lines[i + 1].startswith("|-")):
            continue
        for cell in line.strip("|").split("|"):
            cell = cell.strip()
            # a numeric cell: one number, or "size: count" pairs
            if not re.fullmatch(rf"{NUM}|{NUM}: {NUM}(, {NUM}: {NUM})*", cell):
                continue
            for num in re.findall(NUM, cell):
                n += 1
                dec = len(num.split(".")[1]) if "." in num else 0
                x = float(num.replace(",", ""))
                if not any(abs(v - x) <= 0.5 * 10 ** -dec + 1e-9 for v in vals):
                    bad.append(f"{name}: {num} (in: {line[:90]})")
    print(f"t_study_doc: {n} numbers in the {name} study's tables")
    if n < 50:
        bad.append(f"{name}: only {n} numbers in its tables")
    total += n
for x in bad:
    print("t_study_doc: not in the results file:", x)
sys.exit(1 if bad else 0)
PY

# the check bites: one hash-fault count changed by hand
# one number of reading 1's table changed: the no-tracepoint kernel's
# hash faults at the first size
sed 's/^\(| `ppc64le-no-tracepoint` | absent | [^|]*| [^|]*| [0-9]*: \)[0-9]*/\1999999/' "$doc" > planted.md
cmp -s "$doc" planted.md && fail "the planted change did not apply (reading 2's table changed?)"
STUDY_DOC=$T/planted.md LACE=$LACE "$SRC/scripts/study-doc.sh" --check > /dev/null 2> planted.err &&
  fail "a doc with 999999 hash faults planted passed the check"
grep -q "^-| .ppc64le-no-tracepoint. | absent | .*999999" planted.err ||
  fail "the check did not show the changed number: $(head -5 planted.err)"
exit 0
