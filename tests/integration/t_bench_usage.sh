# Acceptance 5 of the workloads: invalid arguments get the usage text and
# exit 2; --help (exit 0) documents every long option each program accepts.
. "$SRC/tests/integration/lib.sh"

for w in hackbench faultbench randaccess; do
  bin=$BUILD/bench/$w
  [ -x "$bin" ] || fail "$bin not built"

  expect_exit 0 "$bin" --help
  expect_match "^usage: $w" "$OUT"
  help=$OUT
  # every long option in the program's getopt table appears in --help
  opts=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", \(no\|required\)_argument.*/\1/p' "$SRC/bench/$w.c")
  [ -n "$opts" ] || fail "found no options in bench/$w.c"
  # (and the model options all share, bench/mmuctx.h); matched in the
  # shell, not one grep per option, to keep the test quick
  for o in $opts htab-kib page-size old young seed; do
    case "$help" in *"--$o"*) ;; *) fail "$w --help does not document --$o" ;; esac
  done

  for bad in "--bogus" "-Z" "--seed" "--seed=abc" "--seed=-1" "--htab-kib=300" \
             "--page-size=8k" "extra-arg"; do
    expect_exit 2 "$bin" $bad
    expect_match "^$w: " "$ERR"
    expect_match "usage: $w" "$ERR"
    [ -z "$OUT" ] || fail "$w $bad wrote to stdout: $OUT"
  done
done

HB=$BUILD/bench/hackbench
for bad in "-g 0" "-f x" "-l -3" "-s 0" "--skew=-1" "--depth=abc" "--ring-pages=0" "--list-hot=2" "-g 1000 -f 1000" "-p -i"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$HB" $bad
  expect_match "usage: hackbench" "$ERR"
done
for bad in "--pages=0" "--passes=x"; do
  expect_exit 2 "$BUILD/bench/faultbench" $bad
done
for bad in "--pages=0" "--accesses=0"; do
  expect_exit 2 "$BUILD/bench/randaccess" $bad
done
exit 0
