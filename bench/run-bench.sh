#!/bin/bash
# Runs every bench/bench_*.sh (make bench).  Each prints its own ratios; a
# script exits 0 (goal met), 77 (skipped, says why) or other (goal missed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for b in "$here"/bench_*.sh; do
  [ -e "$b" ] || continue
  bash "$b"; rc=$?
  case $rc in 0|77) ;; *) echo "$(basename "$b"): goal missed (exit $rc)"; fail=1 ;; esac
done
exit $fail
