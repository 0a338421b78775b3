# lace diff --hot takes a real profile: perf report --stdio (flat and with
# --children) and perf script (flat and with -g callchains) of faultbench
# under perf record -e cpu-clock.  The hot set is then the sampled
# functions of faultbench, the others (kernel, libc) counted as found in
# neither image; an empty report is a one-line error.
. "$SRC/tests/integration/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
FB=$BUILD/bench/faultbench
built "$FB"
export HOME=$T   # perf's ~/.debug cache stays in the scratch dir
perf record -q -e cpu-clock -F 4000 -o flat.data -- "$FB" -n 60000 >/dev/null 2>rec.err &&
  perf record -q -g -e cpu-clock -F 4000 -o graph.data -- "$FB" -n 60000 >/dev/null 2>>rec.err ||
  skip "perf record -e cpu-clock does not work here: $(tail -n 1 rec.err)"
perf report -i flat.data --stdio > report.txt 2>/dev/null || fail "perf report"
perf report -i graph.data --stdio --children > children.txt 2>/dev/null || fail "perf report --children"
perf script -i flat.data > script.txt 2>/dev/null || fail "perf script"
perf script -i graph.data > graph.txt 2>/dev/null || fail "perf script -g"
grep -q '^ *[0-9.]*% .*\[\.\] ' report.txt || skip "no user-space samples of faultbench in perf report"

for f in report.txt children.txt script.txt graph.txt; do
  expect_exit 0 "$LACE" diff --json --hot "$f" "$FB" "$FB"
  n=$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["hot"]["old"]["functions"])')
  [ "$n" -ge 1 ] || fail "$f: no function of faultbench in the hot set"
  expect_exit 0 "$LACE" diff --hot "$f" "$FB" "$FB"
  expect_match "hot set \($f\)" "$OUT"
  echo "$f: $n hot functions"
done
# the profile's heaviest faultbench symbol is in the hot set
top=$(grep '\[\.\] ' report.txt | awk '$3 == "faultbench" { print $NF; exit }')
if [ -n "$top" ]; then
  expect_exit 0 "$LACE" diff --json --hot report.txt "$FB" "$FB"
  printf '%s' "$OUT" | grep -q "\"$top\"" || fail "top symbol $top of the profile not in the hot set"
fi
printf '# Overhead  Command  Symbol\n#\n' > empty.txt
expect_exit 2 "$LACE" diff --hot empty.txt "$FB" "$FB"
expect_one_line "$ERR"
expect_match 'perf report: no sample names a symbol' "$ERR"
