# The CI gate on skips (scripts/check-skips.sh, run by .ci/run after each
# make check) and lib.sh's skip helpers.  On a scratch tree of made-up tests
# run by run.sh: an allowed skip passes the gate and prints the count; a
# planted unexpected skip fails it, and so does an allowed reason on
# another test; a part left out with skip_part turns the test into a SKIP
# naming the part, never a PASS; a missing build output (built) is a
# FAIL, not a skip.  cmocka's "[  SKIPPED ]" counts too, with the reason
# the test printed; a log with no summary line fails.  The tree's own
# allow-list is well formed and names real tests.
# timeout: 60
. "$SRC/tests/integration/lib.sh"
gate=$SRC/scripts/check-skips.sh
d=$T/tree/tests/integration
mkdir -p "$d"
cp "$SRC/tests/integration/run.sh" "$SRC/tests/integration/lib.sh" "$d/" || fail "cannot copy run.sh"
hdr='. "$SRC/tests/integration/lib.sh"'
printf '%s\necho fine\n' "$hdr" >"$d/t_a_pass.sh"
printf '%s\nskip "no widget here (Debian package widget)"\n' "$hdr" >"$d/t_b_widget.sh"
printf '%s\nskip_part "the gadget part: no gadget (Debian package gadget)"\necho rest ran\nparts_done\n' \
  "$hdr" >"$d/t_c_parts.sh"
printf '%s\nbuilt "$BUILD/no-such-output"\necho unreachable\n' "$hdr" >"$d/t_d_built.sh"

env -u TESTS LACE=/bin/false BUILD="$T/build" "$d/run.sh" >run.log 2>&1
expect_match '^PASS t_a_pass' "$(cat run.log)"
expect_match '^SKIP t_b_widget: no widget here \(Debian package widget\)$' "$(cat run.log)"
expect_match '^SKIP t_c_parts: the rest passed; skipped: the gadget part: no gadget \(Debian package gadget\)$' \
  "$(cat run.log)"
expect_match '^FAIL t_d_built' "$(cat run.log)"
expect_match "no-such-output is missing: a build output of lace's own" "$(cat run.log)"
expect_match '^1 passed, 1 failed, 2 skipped$' "$(cat run.log)"

# both skips allowed: the gate passes and counts them
printf '# a comment\nt_b_widget\t^no widget here\nt_c_parts  no gadget \\(Debian package gadget\\)\n' >allow.txt
expect_exit 0 "$gate" run.log allow.txt
expect_match '^check-skips: 2 skipped, 0 unexpected' "$OUT"

# a planted unexpected skip: the gate fails and names it
printf 't_b_widget\t^no widget here\n' >allow1.txt
expect_exit 1 "$gate" run.log allow1.txt
expect_match '^check-skips: UNEXPECTED skip: t_c_parts: the rest passed; skipped: the gadget part' "$OUT"
expect_match '^check-skips: 2 skipped, 1 unexpected' "$OUT"

# an allowed reason on another test does not count; nor does another reason
printf 't_a_pass\t^no widget here\nt_c_parts\tno gadget\n' >allow2.txt
expect_exit 1 "$gate" run.log allow2.txt
expect_match 'UNEXPECTED skip: t_b_widget: no widget here' "$OUT"
printf 't_b_widget\tno sprocket\nt_c_parts\tno gadget\n' >allow3.txt
expect_exit 1 "$gate" run.log allow3.txt
expect_match 'UNEXPECTED skip: t_b_widget' "$OUT"

# cmocka: the skipped test with the reason it printed, not the summary's
# repeat of its name
cat >unit.log <<'EOF'
[==========] Running 2 test(s).
[ RUN      ] test_ok
[       OK ] test_ok
[ RUN      ] test_needs_pmu
skipped: the kernel has no software PMU
[  SKIPPED ] test_needs_pmu
[==========] 2 test(s) run.
[  PASSED  ] 1 test(s).
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] test_needs_pmu
3 passed, 0 failed, 0 skipped
EOF
expect_exit 1 "$gate" unit.log allow.txt
expect_match '^check-skips: UNEXPECTED skip: test_needs_pmu: the kernel has no software PMU$' "$OUT"
expect_match '^check-skips: 1 skipped, 1 unexpected' "$OUT"
printf 'test_needs_pmu\tno software PMU\n' >allow4.txt
expect_exit 0 "$gate" unit.log allow4.txt

# no summary line: the tests never ran to the end
grep -v 'passed,' unit.log >cut.log
expect_exit 1 "$gate" cut.log allow4.txt
expect_match 'no integration summary line' "$OUT"

# the tree's own allow-list: "name pattern" lines naming real tests (or
# cmocka tests), each pattern a valid regular expression
while read -r name pat; do
  case $name in ''|'#'*) continue ;; esac
  [ -n "$pat" ] || fail "tests/skip-allow.txt: $name has no reason pattern"
  [ -f "$SRC/tests/integration/$name.sh" ] || grep -q "\\b$name\\b" "$SRC"/tests/unit/*.c ||
    fail "tests/skip-allow.txt: no test $name"
  printf '' | grep -Eq -- "$pat"; [ $? -le 1 ] || fail "tests/skip-allow.txt: $name: bad pattern $pat"
done <"$SRC/tests/skip-allow.txt"
exit 0
