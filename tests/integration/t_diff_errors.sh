# lace diff on bad input: exit 2 with one line naming the problem; never a crash.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not available"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 assembly fixture"
"$SRC/tests/fixtures/diff/build.sh" base || fail "building the fixture"
echo "not an elf" > junk
printf 'ok 1\nbad -3\n' > badhot

for args in "base" "base base base" "--bogus base base" "--json --csv base base" \
            "--min-align 3 base base" "--min-align x base base" "--max-hot-growth -5 base base" \
            "--fail-on loud base base" "--rule nosuch=error base base" "--rule hot-align-drop base base" \
            "--svg"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$LACE" diff $args
  expect_one_line "$ERR"
  expect_match '^lace: diff: ' "$ERR"
done
expect_exit 2 "$LACE" diff base missing.elf
expect_one_line "$ERR"
expect_match '^lace: missing.elf: ' "$ERR"
expect_exit 2 "$LACE" diff junk base
expect_one_line "$ERR"
expect_match '^lace: junk: ' "$ERR"
# a stripped file has no functions to compare (a gate on it would pass on
# nothing), with lace check too (issue 24, acceptance 8)
strip -o stripped base || fail "strip"
expect_exit 2 "$LACE" diff stripped base
expect_one_line "$ERR"
expect_match '^lace: stripped: no symbol table \(stripped\): lace diff compares functions' "$ERR"
expect_exit 2 "$LACE" diff base stripped
expect_match '^lace: stripped: no symbol table' "$ERR"
expect_exit 2 "$LACE" check --base stripped --head base --no-measure
expect_match 'no symbol table \(stripped\)' "$ERR"
expect_exit 2 "$LACE" diff --hot badhot base base
expect_one_line "$ERR"
expect_match '^lace: badhot: line 2: ' "$ERR"
expect_exit 2 "$LACE" diff --svg /nonexistent/dir/map.svg base base
expect_one_line "$ERR"
# fine options are fine
expect_exit 0 "$LACE" diff --min-align 64 --max-hot-growth 5% --fail-on info --rule region-change=off base base
exit 0
