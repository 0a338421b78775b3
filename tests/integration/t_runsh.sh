# The integration runner itself (tests/integration/run.sh) on a scratch tree
# of made-up tests: pass, skip, fail, and a hang that ignores SIGTERM and
# leaves a grandchild behind.  The hang must be a FAIL that says it timed out
# after the seconds its "# timeout: N" line asks for, with its whole process
# group killed; JOBS=3 must print the same results in the same order (a slow
# first test does not let later ones jump ahead) and the same last line.
# timeout: 120
. "$SRC/tests/integration/lib.sh"

d=$T/tree/tests/integration
mkdir -p "$d"
cp "$SRC/tests/integration/run.sh" "$SRC/tests/integration/lib.sh" "$d/" || fail "cannot copy run.sh"
tag=lace-runsh-$$
printf 'sleep 2; echo slow-ok\n' >"$d/t_1_slow.sh"
printf 'sleep 4; echo nap-ok\n' >"$d/nap.sh"  # not t_*: only run when named
printf 'echo "no widget here"; exit 77\n' >"$d/t_2_skip.sh"
printf 'echo broken; exit 3\n' >"$d/t_3_fail.sh"
cat >"$d/t_4_hang.sh" <<EOF
# timeout: 2
echo started
trap '' TERM
bash -c 'exec -a $tag-child sleep 600' &
exec -a $tag sleep 601
EOF
printf 'echo ok\n' >"$d/t_5_fast.sh"

want='PASS t_1_slow
SKIP t_2_skip: no widget here
FAIL t_3_fail
    broken
FAIL t_4_hang (timed out after 2s, process group killed)
    started
PASS t_5_fast
failed: t_3_fail t_4_hang
2 passed, 2 failed, 1 skipped'

for jobs in 1 3; do
  start=$(date +%s)
  out=$(env -u TESTS JOBS=$jobs TEST_TIMEOUT=60 "$d/run.sh" 2>&1); rc=$?
  secs=$(( $(date +%s) - start ))
  [ $rc -eq 1 ] || fail "JOBS=$jobs: run.sh exited $rc, expected 1: $out"
  # timings vary; everything else must be exact
  got=$(printf '%s\n' "$out" | sed -E 's/ \((exit [0-9]+, )?[0-9]+s\)$//')
  expect_eq "$got" "$want" "JOBS=$jobs: run.sh output"
  pgrep -f "$tag" >/dev/null && fail "JOBS=$jobs: the timed-out test's processes survive"
  # 2 s to the timeout, 5 s of grace after SIGTERM; the default 60 s is far
  [ $secs -lt 30 ] || fail "JOBS=$jobs: took ${secs}s"
  echo "JOBS=$jobs: ${secs}s"
done

# the slow tests run alongside each other: JOBS=3 is not sequential (two
# 4 s naps take 8 s one after the other; the margin is for a loaded machine,
# where a 2 s test took 3.4 s through the runner)
start=$(date +%s)
JOBS=3 TESTS="nap t_5_fast nap" "$d/run.sh" >/dev/null 2>&1 || fail "JOBS=3 of passing tests failed"
[ $(( $(date +%s) - start )) -lt 7 ] || fail "JOBS=3 ran two 4 s tests one after the other"

# bad settings are usage errors
expect_exit 2 env -u TESTS JOBS=0 "$d/run.sh"
expect_exit 2 env -u TESTS TEST_TIMEOUT=soon "$d/run.sh"
exit 0
