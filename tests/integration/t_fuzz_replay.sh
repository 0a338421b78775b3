# Replays the fuzz regression corpus (tests/fuzz/corpus/<harness>/: every
# crasher the fuzzer found, minimized) and freshly built seeds through the
# harness code itself, built with gcc into $BUILD (ASan/UBSan under
# SANITIZE=1), then feeds the single-file inputs to the real `lace layout`:
# it must exit 0 or 2, with one `lace: FILE: ...` line on 2, never a signal,
# and print nothing on stderr but `lace: ...` lines.
. "$SRC/tests/integration/lib.sh"

# every harness in tests/fuzz/ must have its replay twin: tests/fuzz/module.mk
# builds them all with `make check`, so a missing one is a broken build, not
# a reason to skip
replays=""
for src in "$SRC"/tests/fuzz/fuzz_*.c; do
  h=$(basename "$src" .c)
  case $h in fuzz_input|fuzz_check) continue ;; esac
  [ -x "$BUILD/tests/fuzz/replay_$h" ] ||
    fail "$BUILD/tests/fuzz/replay_$h is not built (tests/fuzz/module.mk builds it with make check)"
  replays="$replays $BUILD/tests/fuzz/replay_$h"
done
[ -n "$replays" ] || fail "no fuzz harness in $SRC/tests/fuzz"

"$SRC/tests/fuzz/seeds/make-seeds.sh" "$T/seeds" >/dev/null 2>&1 || fail "cannot build the fuzz seeds"

total=0
for r in $replays; do
  h=${r##*/replay_}
  corpus=$SRC/tests/fuzz/corpus/$h
  seeds=$T/seeds
  [ "$h" = fuzz_diff ] && seeds=$T/seeds/pairs
  # only files, the seeds' pairs/ directory is the diff harness's
  inputs=$(find "$seeds" -maxdepth 1 -type f ! -name '.*'; [ -d "$corpus" ] && find "$corpus" -type f ! -name '.*')
  n=$(printf '%s\n' $inputs | grep -c .)
  [ "$n" -gt 0 ] || fail "no seeds or corpus inputs for $h"
  expect_exit 0 "$r" $inputs
  expect_match "^replayed $n inputs\$" "$OUT"
  total=$((total + n))
done

# the CLI on every single-ELF input the fuzzer kept
cli=0
"$LACE" help | grep -q '^ *layout ' || fail "$LACE has no layout command"
for f in $(find "$SRC/tests/fuzz/corpus" -type f ! -path '*/fuzz_diff/*' ! -name '.*' 2>/dev/null); do
  timeout -s KILL 60 "$LACE" layout "$f" >/dev/null 2>"$T/err"; rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "lace layout $f exited $rc: $(head -c 1500 "$T/err")"
  if [ $rc -eq 2 ]; then
    expect_one_line "$(cat "$T/err")"
    expect_match "^lace: $f: " "$(cat "$T/err")"
  fi
  # whatever a library says reaches the user as lace's own lines
  # (libbfd prints some warnings to stderr past its error handler)
  if grep -av "^lace: " "$T/err" | grep -aq .; then
    fail "lace layout $f: stderr lines not from lace: $(grep -av '^lace: ' "$T/err" | head -c 500)"
  fi
  cli=$((cli + 1))
done
[ $cli -gt 0 ] || fail "no single-file input in $SRC/tests/fuzz/corpus for lace layout"
# recordings (fuzz_record) through the real `lace replay`: 0, or 2 with one line
for f in $(find "$SRC/tests/fuzz/corpus/fuzz_record" -type f ! -name '.*' 2>/dev/null); do
  timeout -s KILL 60 "$LACE" replay "$f" >/dev/null 2>"$T/err"; rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "lace replay $f exited $rc: $(head -c 1500 "$T/err")"
  [ $rc -eq 0 ] || { expect_one_line "$(cat "$T/err")"; expect_match "^lace: $f: " "$(cat "$T/err")"; }
done
echo "replayed $total inputs through $(printf '%s\n' $replays | wc -l) harnesses, $cli through lace layout"
exit 0
