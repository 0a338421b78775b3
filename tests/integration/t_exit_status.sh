# Exit statuses never report a success that did not happen: a comparison
# without two paired rounds, a batch with failed runs, output that could not
# be written (a full disk, a closed stdout), conflicting output flags.
. "$SRC/tests/integration/lib.sh"

# lace ab: B always fails, so no round is paired: exit 1, and says why
expect_exit 1 "$LACE" ab -r 3 --warmup 0 --seed 1 -e task-clock --no-results -A true -B false
expect_match 'lace: ab: 0 rounds ran both A and B without a fault: a comparison needs at least 2' "$ERR"
# one good round of two is still not a comparison
cat > once.sh <<'SH'
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count; [ "$n" -eq 0 ]
SH
expect_exit 1 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results -A true -B 'sh once.sh'
expect_match 'lace: ab: 1 rounds ran both' "$ERR"
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results -A true -B true

# lace stat: a failed run fails the batch (as hyperfine), unless accepted
cat > flaky.sh <<'SH'
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count; [ "$n" -ne 1 ]
SH
rm -f count
expect_exit 1 "$LACE" stat -r 3 -e task-clock --no-results -- sh flaky.sh
expect_match '1 of 3 runs failed: 1 exit' "$OUT"
expect_match 'lace: stat: 1 of 3 runs failed \(--ignore-failure to accept' "$ERR"
rm -f count
expect_exit 0 "$LACE" stat -r 3 -e task-clock --no-results --ignore-failure -- sh flaky.sh
expect_match '1 of 3 runs failed: 1 exit' "$OUT"
expect_match '\(2 runs' "$OUT"

# a write error on stdout: one line, exit 1, for every command
cc -O1 -o prog -x c - <<'C' || fail "cc"
int f(int x) { return x * 3; }
int main(int c, char **v) { (void)v; return f(c) == 3 ? 0 : 1; }
C
cp prog prog2
"$LACE" stat -r 1 -e task-clock --results r.jsonl -- true >/dev/null 2>&1 || fail "stat for report"
for cmd in "layout prog" "diff prog prog2" "stat --no-results -e task-clock -- true" \
           "ab -r 2 --warmup 0 --seed 1 -e task-clock --no-results -A true -B true" \
           "report r.jsonl" "build --list" "help" "help stat" "--version" "stat --help"; do
  # shellcheck disable=SC2086
  "$LACE" $cmd >/dev/full 2>err; rc=$?
  [ $rc -eq 1 ] || fail "lace $cmd >/dev/full exited $rc, expected 1: $(cat err)"
  expect_match '^lace: [a-z]+: writing output' "$(grep -v '^lace: \(ab: seed\|hint\|note\)' err)"
  expect_one_line "$(grep -v '^lace: \(ab: seed\|hint\|note\)' err)"
  # shellcheck disable=SC2086
  "$LACE" $cmd >&- 2>err; rc=$?
  [ $rc -eq 1 ] || fail "lace $cmd with stdout closed exited $rc, expected 1: $(cat err)"
  expect_match '^lace: [a-z]+: writing output: standard output is closed$' \
    "$(grep -v '^lace: \(ab: seed\|hint\|note\)' err)"
done
# the workload itself still starts when lace's stdout is closed
"$LACE" stat -r 1 -e task-clock --no-results -- true >&- 2>err
expect_nomatch 'cannot start|Broken pipe' "$(cat err)"

# conflicting output flags are usage errors in every command
for cmd in "stat --json --md -- true" "stat --json -x, -- true" "stat --md -x; -- true" \
           "ab --json --md -A true -B true" \
           "report --json --md r.jsonl" "report --json -x, r.jsonl" \
           "diff --json --md prog prog2" "layout --json --csv prog"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$LACE" $cmd
  expect_one_line "$ERR"
  expect_match 'exclude each other' "$ERR"
done
exit 0
