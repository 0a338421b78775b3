#!/bin/bash
# -o FILE / --output-file FILE of lace stat and lace ab (perf stat's -o):
# the report goes to FILE, nothing to stdout; text and CSV start with perf's
# "# started on" line; --append adds; a bad path is a usage error before
# any run; a write error is one line and exit 1; a batch that cannot start
# leaves the previous report in place.
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1

expect_exit 0 "$LACE" stat -r 2 -e task-clock --no-results -o rep.txt -- true
expect_eq "$OUT" "" "stdout with -o"
expect_match '^# started on ' "$(head -1 rep.txt)"
expect_match 'Performance counter stats for .true. \(2 runs' "$(cat rep.txt)"
expect_exit 0 "$LACE" stat -r 2 -e task-clock --no-results --output-file rep.txt --append -x ';' -- true
expect_eq "$(grep -c '^# started on ' rep.txt)" 2 "--append keeps the first report"
expect_match '^[0-9.]+;msec;task-clock;' "$(tail -1 rep.txt)"
# without --append the file is replaced
expect_exit 0 "$LACE" stat -e task-clock --no-results -o rep.txt -x, -- true
expect_eq "$(grep -c '^# started on ' rep.txt)" 1 "-o replaces the file"

# ab: the same option
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results -o ab.txt -A true -B true
expect_eq "$OUT" "" "ab stdout with -o"
expect_match 'task-clock' "$(cat ab.txt)"

# errors: usage errors before running, one line; the old report survives
echo keep > old.txt
expect_exit 2 "$LACE" stat -o old.txt --backend nonsense -- true
expect_eq "$(cat old.txt)" keep "a batch that never started emptied -o FILE"
expect_exit 2 "$LACE" stat --no-results -o /nonexistent-dir/r.txt -- touch ran
expect_one_line "$ERR"
expect_match '^lace: stat: -o /nonexistent-dir/r.txt: No such file' "$ERR"
[ -e ran ] && fail "the workload ran although -o FILE cannot be written"
expect_exit 2 "$LACE" stat --append -- true
expect_match '^lace: stat: --append needs -o FILE' "$ERR"
expect_exit 2 "$LACE" ab --append -A true -B true
expect_match '^lace: ab: --append needs -o FILE' "$ERR"
# a write error: exit 1, one line naming the file
expect_exit 1 "$LACE" stat -e task-clock --no-results -o /dev/full -- true
expect_match '^lace: stat: writing /dev/full: No space left on device$' "$ERR"
expect_exit 1 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results -o /dev/full -A true -B true
expect_match 'lace: ab: writing /dev/full: No space left on device' "$ERR"
exit 0
