#!/bin/bash
# Integration test runner: runs every tests/integration/t_*.sh against the
# real lace binary.  A test exits 0 (pass), 77 (skip: it prints why on its
# last line) or anything else (fail).  Ends with the one line
# "N passed, N failed, N skipped".
#
# Environment for the tests: LACE (the binary), BUILD (build dir), SRC (the
# source tree), T (a fresh scratch dir per test), lib.sh sourced for helpers.
# TESTS="t_a t_b" runs a subset.
#
# Timeouts (as kselftest's): every test runs in its own session and process
# group with stdin from /dev/null, and is killed, its whole process group,
# after TEST_TIMEOUT seconds (default 300), or after N seconds when the
# test's leading comment block has a line "# timeout: N".  A test that runs out of time is a FAIL that says
# so: SIGTERM to the group, SIGKILL 5 s later.
#
# JOBS=N runs N tests at once (default 1).  Each test's result and output are
# still printed whole and in the order of the list.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SRC=$(cd "$here/../.." && pwd)
export LACE=${LACE:-$SRC/build/lace}
export BUILD=${BUILD:-$SRC/build}
default_timeout=${TEST_TIMEOUT:-300}
jobs=${JOBS:-1}
case $default_timeout in ''|*[!0-9]*|0) echo "run.sh: TEST_TIMEOUT must be a number of seconds > 0" >&2; exit 2 ;; esac
case $jobs in ''|*[!0-9]*|0) echo "run.sh: JOBS must be a number > 0" >&2; exit 2 ;; esac
scratch=$(mktemp -d "${TMPDIR:-/tmp}/lace-it.XXXXXX")
res=$scratch/.results
mkdir -p "$res"

if [ -n "${TESTS:-}" ]; then
  list=""
  for t in $TESTS; do list="$list $here/${t%.sh}.sh"; done
else
  list=$(ls "$here"/t_*.sh 2>/dev/null | sort)
fi
tests=($list)
n=${#tests[@]}

# the test's own "# timeout: N" line in its leading comment block, else the
# default
timeout_of() {
  local v
  v=$(awk '!/^#/ && NF { exit } /^# *timeout: *[0-9]+ *$/ { sub(/^# *timeout: */, ""); print $1 + 0; exit }' "$1" 2>/dev/null)
  echo "${v:-$default_timeout}"
}

# run_one I: runs test I into $res/I.out and writes "rc secs" to $res/I.rc
# (rc 124 with $res/I.timeout present: killed for taking too long).  A
# background job of a non-interactive shell is no process group leader, so
# setsid(1) does not fork: the pid we get is the new group's id.
run_one() {
  local i=$1 t=${tests[$1]} name limit start pid wd rc
  name=$(basename "$t" .sh)
  limit=$(timeout_of "$t")
  export T="$scratch/$name"
  mkdir -p "$T"
  echo "$limit" >"$res/$i.limit"
  start=$(date +%s)
  (cd "$T" && exec setsid bash "$t") </dev/null >"$res/$i.out" 2>&1 &
  pid=$!
  echo "$pid" >"$res/$i.pgid"
  # the watchdog sleeps in a group of its own, so killing the group ends
  # the sleep too
  setsid bash -c 'sleep "$1"; : >"$2"; kill -TERM -- -"$3" 2>/dev/null; sleep 5; kill -KILL -- -"$3" 2>/dev/null' \
    watchdog "$limit" "$res/$i.timeout" "$pid" </dev/null >/dev/null 2>&1 &
  wd=$!
  # (bash reports a job killed by a signal on stderr; the FAIL line says it)
  { wait "$pid"; } 2>/dev/null; rc=$?
  # the group, and the pid in case the watchdog has not reached setsid() yet
  kill -KILL -- -"$wd" 2>/dev/null
  kill -KILL "$wd" 2>/dev/null
  { wait "$wd"; } 2>/dev/null
  # anything the test left running in its group goes with it
  kill -KILL -- -"$pid" 2>/dev/null
  [ -e "$res/$i.timeout" ] && rc=124
  echo "$rc $(( $(date +%s) - start ))" >"$res/$i.rc.tmp" && mv "$res/$i.rc.tmp" "$res/$i.rc"
}

pass=0 fail=0 skip=0
failed=""
next=0   # the next test whose result is printed
report() {
  local i=$1 name rc secs out
  name=$(basename "${tests[$i]}" .sh)
  read -r rc secs <"$res/$i.rc"
  out=$res/$i.out
  if [ -e "$res/$i.timeout" ]; then
    fail=$((fail+1)); failed="$failed $name"
    echo "FAIL $name (timed out after $(cat "$res/$i.limit")s, process group killed)"
    tail -n 40 "$out" | sed 's/^/    /'
    return
  fi
  case $rc in
    0) pass=$((pass+1)); echo "PASS $name (${secs}s)" ;;
    77) skip=$((skip+1)); echo "SKIP $name: $(tail -n 1 "$out")" ;;
    *) fail=$((fail+1)); failed="$failed $name"
       echo "FAIL $name (exit $rc, ${secs}s)"
       tail -n 40 "$out" | sed 's/^/    /' ;;
  esac
}
# print every finished result that is next in order
flush() {
  while [ "$next" -lt "$n" ] && [ -e "$res/$next.rc" ]; do
    report "$next"
    next=$((next+1))
  done
}
running() {
  local i c=0
  for ((i = next; i < started; i++)); do [ -e "$res/$i.rc" ] || c=$((c+1)); done
  echo "$c"
}

# interrupted: end every test still running, with its group
started=0
on_signal() {
  local i
  trap '' INT TERM
  for ((i = 0; i < started; i++)); do
    [ -e "$res/$i.rc" ] || kill -KILL -- -"$(cat "$res/$i.pgid" 2>/dev/null)" 2>/dev/null
  done
  wait
  echo "run.sh: interrupted" >&2
  exit 130
}
trap on_signal INT TERM
trap 'rm -rf "$scratch"' EXIT

for ((started = 0; started < n; )); do
  while [ "$(running)" -ge "$jobs" ]; do
    wait -n 2>/dev/null
    flush
  done
  run_one "$started" &
  started=$((started+1))
  # the runner writes the pgid first; on_signal reads it
  while [ ! -e "$res/$((started-1)).pgid" ] && kill -0 $! 2>/dev/null; do sleep 0.05; done
  flush
done
while [ "$next" -lt "$n" ]; do
  wait -n 2>/dev/null || wait
  flush
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
