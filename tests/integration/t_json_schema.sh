#!/bin/bash
# Every JSON document lace writes names its schema and schema version
# (util/json_schema.h, doc/lace.1), so a script can refuse a revision it
# does not know: layout, diff, stat, ab, report of both kinds of batch and
# compare.
# (lace check's report is checked in t_check, the build manifest in
# t_build_variants.)
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1

has_schema() { # NAME JSON-TEXT
  local got
  got=$(printf '%s' "$2" | jq -r '"\(.schema) \(.schema_version)"') ||
    fail "$1: not JSON: $(printf '%s' "$2" | head -c 300)"
  expect_eq "$got" "lace-$1 1" "$1 --json schema"
}

expect_exit 0 "$LACE" layout --json "$LACE"
has_schema layout "$OUT"
expect_exit 0 "$LACE" diff --json "$LACE" "$LACE"
has_schema diff "$OUT"
expect_exit 0 "$LACE" stat -r 2 -e task-clock --results s.jsonl --json -- true
has_schema stat "$OUT"
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --results a.jsonl --json -A true -B true
has_schema ab "$OUT"
expect_exit 0 "$LACE" report --json s.jsonl
has_schema stat "$OUT"
expect_exit 0 "$LACE" report --json a.jsonl
has_schema ab "$OUT"
"$LACE" stat -r 2 -e task-clock --results s2.jsonl --output null -- true >/dev/null 2>&1 ||
  fail "second lace stat batch failed"
expect_exit 0 "$LACE" compare --json s.jsonl s2.jsonl
has_schema compare "$OUT"
# -o FILE carries the same document
expect_exit 0 "$LACE" stat -r 2 -e task-clock --no-results --json -o s.json -- true
expect_eq "$OUT" "" "stdout with -o"
has_schema stat "$(cat s.json)"

# a command line that is not UTF-8 keeps its field: each bad byte becomes
# U+FFFD (util/utf8.h), as in every other JSON lace writes
expect_exit 0 "$LACE" stat -r 1 -e task-clock --no-results --json -- true $'caf\xc3\xa9\xff'
expect_eq "$(printf '%s' "$OUT" | jq -r .command)" $'true \'caf\xc3\xa9\xef\xbf\xbd\'' "stat --json command"
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results --json -A true -B $'true \xff'
expect_eq "$(printf '%s' "$OUT" | jq -r .b)" $'true \xef\xbf\xbd' "ab --json command"
exit 0
