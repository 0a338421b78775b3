# Results are never lost silently: a results file that exists is kept as
# FILE.old before a new batch writes FILE (as perf record keeps
# perf.data.old), for the default name and a chosen one alike.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" stat -r 2 -e task-clock -- true
[ -s lace-results.jsonl ] || fail "no default results file"
first=$(head -n 1 lace-results.jsonl)
expect_exit 0 "$LACE" stat -r 1 -e page-faults -- true
[ -s lace-results.jsonl.old ] || fail "the previous results were not kept as .old"
expect_eq "$(head -n 1 lace-results.jsonl.old)" "$first" "lace-results.jsonl.old is the previous batch"
expect_match '"page-faults"' "$(head -n 1 lace-results.jsonl)"
# the previous batch still re-renders
expect_exit 0 "$LACE" report lace-results.jsonl.old
expect_match 'task-clock' "$OUT"

# lace ab and a chosen file do the same
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --results ab.jsonl -A true -B true
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 2 -e task-clock --results ab.jsonl -A true -B true
[ -s ab.jsonl.old ] || fail "lace ab did not keep ab.jsonl.old"
expect_match '"seed":1' "$(head -n 1 ab.jsonl.old)"
expect_match '"seed":2' "$(head -n 1 ab.jsonl)"

# an empty file is not worth keeping (and does not clobber a real .old)
: > ab.jsonl
expect_exit 0 "$LACE" stat -r 1 -e task-clock --results ab.jsonl -- true
expect_match '"seed":1' "$(head -n 1 ab.jsonl.old)"
exit 0
