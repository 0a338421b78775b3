# Replays the fuzz regression corpus (tests/fuzz/corpus/<harness>/: every
# crasher the fuzzer found, minimized) and freshly built seeds through the
# harness code itself, built with gcc into $BUILD (ASan/UBSan under
# SANITIZE=1), then feeds the single-file inputs to the real `lace layout`:
# it must exit 0 or 2, with one `lace: FILE: ...` line on 2, never a signal,
# and print nothing on stderr but `lace: ...` lines.
. "$SRC/tests/integration/lib.sh"

replays=$(ls "$BUILD"/tests/fuzz/replay_fuzz_* 2>/dev/null)
[ -n "$replays" ] || skip "no fuzz harness built yet (layout/ has no image_load)"

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
  expect_exit 0 "$r" $inputs
  expect_match "^replayed $n inputs\$" "$OUT"
  total=$((total + n))
done

# the CLI on every single-ELF input the fuzzer kept
cli=0
if "$LACE" help | grep -q '^ *layout '; then
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
fi
echo "replayed $total inputs through $(printf '%s\n' $replays | wc -l) harnesses, $cli through lace layout"
exit 0
