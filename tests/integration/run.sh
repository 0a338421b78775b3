#!/bin/bash
# Integration test runner: runs every tests/integration/t_*.sh against the
# real lace binary.  A test exits 0 (pass), 77 (skip: it prints why on its
# last line) or anything else (fail).  Ends with the one line
# "N passed, N failed, N skipped".
#
# Environment for the tests: LACE (the binary), BUILD (build dir), SRC (the
# source tree), T (a fresh scratch dir per test), lib.sh sourced for helpers.
# TESTS="t_a t_b" runs a subset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SRC=$(cd "$here/../.." && pwd)
export LACE=${LACE:-$SRC/build/lace}
export BUILD=${BUILD:-$SRC/build}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/lace-it.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

pass=0 fail=0 skip=0
failed=""
if [ -n "${TESTS:-}" ]; then
  list=""
  for t in $TESTS; do list="$list $here/${t%.sh}.sh"; done
else
  list=$(ls "$here"/t_*.sh 2>/dev/null | sort)
fi
for t in $list; do
  name=$(basename "$t" .sh)
  export T="$scratch/$name"
  mkdir -p "$T"
  start=$(date +%s)
  out=$(cd "$T" && bash "$t" 2>&1)
  rc=$?
  secs=$(( $(date +%s) - start ))
  case $rc in
    0) pass=$((pass+1)); echo "PASS $name (${secs}s)" ;;
    77) skip=$((skip+1)); echo "SKIP $name: $(printf '%s\n' "$out" | tail -n 1)" ;;
    *) fail=$((fail+1)); failed="$failed $name"
       echo "FAIL $name (exit $rc, ${secs}s)"
       printf '%s\n' "$out" | tail -n 40 | sed 's/^/    /' ;;
  esac
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
