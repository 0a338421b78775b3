#!/bin/bash
# lace study runs its simulator measurements side by side (-j) with the
# same numbers as one at a time, and says what it does on stderr when
# stderr is a log (issue 26, items 1 and 3): `lace study --quick -j 2
# 2> log` leaves one line per step (phase, done/total, elapsed, time
# left) and no terminal escapes; -j 1 --quiet prints nothing on stderr
# and measures exactly what -j 2 measured (tests/integration/
# same_numbers.py: everything but times).
# timeout: 900
. "$SRC/tests/integration/lib.sh"
[ -x "$BUILD/vg/lace-vg-amd64-linux" ] && command -v valgrind >/dev/null ||
  skip "the simulator is not built (valgrind's static archives missing)"
cd "$T" || exit 1
"$LACE" study --quick --shuffle 2 --backend sim -j 2 --out s > out2.txt 2> log ||
  fail "lace study -j 2: $(tail -5 log)"
grep -q $'\r\|\033' log && fail "terminal escapes in a log: $(head -c 500 log | od -c | head)"
expect_match '^lace study: \[build, [0-9]+m[0-9]{2}s\] building every variant' "$(cat log)"
n=$(grep -c '^lace study: \[measure [0-9]*/[0-9]*, ' log)
total=$(sed -n 's/^lace study: \[measure 1\/\([0-9]*\), .*/\1/p' log)
[ -n "$total" ] && [ "$n" -eq "$total" ] || fail "expected a line per measurement ($total), got $n: $(cat log)"
expect_match "^lace study: \[measure $total/$total, [0-9]+m[0-9]{2}s, ~0m00s left\] " "$(cat log)"
expect_match '^lace study: \[path length, ' "$(cat log)"
# the same builds (--no-build keeps s/variants), one at a time
cp s/results.json j2.json
"$LACE" study --quick --shuffle 2 --backend sim -j 1 --no-build --quiet --out s > out1.txt 2> qlog ||
  fail "lace study -j 1: $(tail -5 qlog)"
[ -s qlog ] && fail "--quiet printed on stderr: $(head -5 qlog)"
python3 "$SRC/tests/integration/same_numbers.py" j2.json s/results.json >&2 ||
  fail "-j 1 and -j 2 measured different numbers"
echo "$total measurements, one line each; -j 1 and -j 2 agree"
