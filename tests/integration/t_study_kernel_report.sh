# lace study --kernel --report-only renders the kernel study's reports from
# a results.json (tests/fixtures/study/kernel-results.json: a real
# `lace study --kernel --quick --no-build` run on this project's kernels,
# command outputs cut short; reading 4 from a run of 2026-12-06 with the
# placement design, its analysis left out: --report-only judges it again): the four readings with the numbers of that
# file, the slow path's placement, the phases, two SVG figures in the
# HTML; a reading whose step failed says "not measured" with its reason
# and the exit status is 1.  No kernel, no QEMU: runs in CI.
# (t_study_kernel, in make check-kernel, runs the study itself.)
# timeout: 60
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1
mkdir ks
cp "$SRC/tests/fixtures/study/kernel-results.json" ks/results.json
"$LACE" study --kernel --report-only --out ks > summary.txt 2> err.txt ||
  fail "report-only: $(cat err.txt)"
md=ks/report.md
for h in "## 1. The disabled \`hash_fault\` tracepoint" "## 2. Old vs young PTEs" \
         "## 3. The hash insert path per call" "## 4. x86-64 entry code" "## How long each phase took"; do
  grep -qF "$h" "$md" || fail "report.md has no '$h'"
done
# the numbers are the file's: hash_page_mm per call, absent vs disabled
read -r absent disabled < <(python3 - <<'PY'
import json
d = json.load(open("ks/results.json"))
pc = {c["name"]: [p for p in c["points"] if p["pages"] == 512][0]["hash_page_mm_per_call"]
      for c in d["r1_tracepoint"]["configs"]}
print("%.1f %.1f" % (pc["absent"], pc["disabled"]))
PY
)
grep -qF "(${disabled} vs ${absent})" "$md" || fail "report.md does not give hash_page_mm per call ${disabled} vs ${absent}"
grep -q "hash_fault_cold_stub" "$md" || fail "report.md does not say where cold-slowpaths' slow path sits"
# reading 1's explanation is generated from the code (issue 26 item 5):
# the site's instructions and the slow path's size and place, from the
# layout model's hash_fault_code, and the cold variant's difference as
# the site plus the moves before it
grep -qF "a \`b\` over the 12-instruction slow path inlined at +80" "$md" ||
  fail "report.md does not say baseline's site skips an inline 12-instruction slow path"
grep -qF "sits at \`hash_fault_cold_stub\`+0 in cold" "$md" ||
  fail "report.md does not place cold-slowpaths' slow path from the code"
grep -qF "of which 2 are the site itself" "$md" || fail "report.md does not count the site's instructions"
grep -qF "8 of them register moves (\`mr\`) instead of 5" "$md" ||
  fail "report.md does not explain the cold variant's difference from the code"
# and it measures the hash-fault path's L1i/iTLB misses in the three builds
for k in ppc64le-no-tracepoint ppc64le-baseline ppc64le-cold-slowpaths; do
  grep -Eq "^\| \`$k\` \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \|$" "$md" ||
    fail "report.md has no hash-fault path misses row for $k"
done
grep -Eq '^L1i misses per 1,000 calls: `ppc64le-no-tracepoint` [0-9.]+, ' "$md" ||
  fail "report.md does not give the misses per 1,000 calls"
grep -q "__hash_page_4K" "$md" || fail "report.md has no __hash_page_4K path"
# reading 4, the placement design (issue 34): the controls first, the
# seed's pair first among the verdicts, every number from the file's rows
grep -q '^\*\*The controls\*\*' "$md" || fail "reading 4 does not give its controls"
grep -q '^- Negative control (holds): `entry-align-4k` against baseline, every address the same modulo 4096: \([0-9]*\) of \1 cells with equal kernel L1i misses, equivalent' "$md" ||
  fail "reading 4 does not state its negative control: $(grep 'Negative control' "$md")"
grep -m1 -A2 '^| profile | A -> B | event |' "$md" | tail -1 |
  grep -q '^| skylake-client | `entry-align-8` -> `entry-in-text` | `L1-icache-load-misses:k` |' ||
  fail "reading 4's verdicts do not start with the seed's pair"
grep -q "3/3 relinks and 3/3 reordered builds reproduced exactly by virtual layouts" "$md" ||
  fail "reading 4 does not say the virtual layouts reproduce the real ones"
grep -q "^\*\*The executions\*\* (live, each boot recorded)" "$md" || fail "reading 4 does not show its executions"
# the seed pair's A mean is the mean of entry-align-8's replayed kernel L1i
# misses over every execution and draw of the file
am=$(python3 - <<'PY'
import json
d = json.load(open("ks/results.json"))["r4_entry_text"]
K = d["design"]["draws"]
kern = ["x86_64-baseline", "x86_64-entry-align-8", "x86_64-entry-in-text", "x86_64-entry-align-4k"]
v = []
for e in d["executions"]:
    own = e["kernel"]
    others = [k for k in kern if k != own]
    i = 0 if own == kern[1] else 1 + others.index(kern[1])
    rows = e["replays"]["skylake-client"]["rows"]
    v += [rows[k * 4 + i]["L1-icache-load-misses:k"] for k in range(1, K + 1)]
print("%.0f" % (sum(v) / len(v)))
PY
)
grep -q "^| skylake-client | \`entry-align-8\` -> \`entry-in-text\` | \`L1-icache-load-misses:k\` | $am |" "$md" ||
  fail "the seed pair's A mean is not the rows' $am: $(grep -m1 '^| skylake-client | `entry-align-8`' "$md")"
grep -q "What the emulation cannot show" "$md" || fail "no reading says what emulation cannot show"
[ "$(grep -c "<svg" ks/report.html)" -ge 2 ] || fail "report.html has fewer than 2 figures"
grep -q "kernel instructions per hash fault" summary.txt || fail "no terminal summary: $(head -3 summary.txt)"
# the summary's verdict table: every row's cells start under their
# headers, however wide the events' names ("L1-icache-load-misses:k")
python3 - summary.txt <<'PY' || fail "the summary's verdict columns do not line up"
import sys
lines = open(sys.argv[1]).read().split("\n")
h = next(i for i, l in enumerate(lines) if l.lstrip().startswith("profile ") and " event " in l)
cols = [lines[h].index(c) for c in ("A -> B", "event", "effect [95% CI]", "verdict")]
rows = [l for l in lines[h + 1:] if l.startswith("    ") and l.strip()]
assert rows, "no rows"
for l in rows:
    for c in cols:
        assert l[c - 1] == " " and l[c] != " ", (c, l)
PY

# a failed step: its reading says so, and the exit status is 1
mkdir ks2
python3 - <<'PY'
import json
d = json.load(open("ks/results.json"))
c = d["r1_tracepoint"]["configs"][0]
c["not_measured"] = "build/kernels/ppc64le-no-tracepoint/vmlinux: not built (lace build --kernel)"
json.dump(d, open("ks2/results.json", "w"))
PY
"$LACE" study --kernel --report-only --out ks2 > /dev/null 2> err2.txt
expect_eq "$?" 1 "exit status with a step not measured"
grep -q "not measured: build/kernels/ppc64le-no-tracepoint/vmlinux: not built" ks2/report.md ||
  fail "the failed step's reason is not in the report"
grep -q "could not be measured" err2.txt || fail "no one-line error: $(cat err2.txt)"
exit 0
