#!/bin/bash
# check-skips.sh LOG [ALLOW]: the CI gate on skips.  Reads the output of a
# test run (make check, tests/integration/run.sh, cmocka binaries) and
# fails on any skip that tests/skip-allow.txt (or ALLOW) does not allow.
#
# A skip is
#   - an integration test's line "SKIP t_name: reason" (run.sh), and
#   - a cmocka test's "[  SKIPPED ] test_name" after its "[ RUN      ]"
#     line; its reason is the last line the test printed in between
#     (print_message("skipped: ...")), empty when it printed none.
# Each allow-list line is "NAME REGEX": the test's name, then an extended
# regular expression that must match somewhere in the reason; "#" starts a
# comment line.  A skip nothing allows is printed and the gate fails.
# Prints the skip count; also fails when LOG holds no integration summary
# ("N passed, N failed, N skipped"), so a run that never got to the tests
# cannot pass the gate.
set -u
log=${1:?usage: check-skips.sh LOG [ALLOW]}
allow=${2:-$(cd "$(dirname "$0")/.." && pwd)/tests/skip-allow.txt}
[ -r "$log" ] || { echo "check-skips: cannot read $log" >&2; exit 2; }
[ -r "$allow" ] || { echo "check-skips: cannot read the allow-list $allow" >&2; exit 2; }

# every skip as "name<TAB>reason"
skips=$(awk '
  /^SKIP [^ :]+: / {
    name = $2; sub(/:$/, "", name)
    reason = $0; sub(/^SKIP [^ :]+: /, "", reason)
    printf "%s\t%s\n", name, reason; next
  }
  /^\[ RUN      \] / { run = $4; msg = ""; next }
  /^\[  SKIPPED \] / {
    if ($4 == run && run != "") { printf "%s\t%s\n", run, msg; run = "" }
    next
  }
  /^\[/ { next }
  run != "" && NF { msg = $0; sub(/^skipped: */, "", msg) }
' "$log")

summaries=$(grep -cE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log")

unexpected=0 total=0
while IFS=$'\t' read -r name reason; do
  [ -n "$name" ] || continue
  total=$((total + 1))
  ok=0
  while read -r aname apat; do
    case $aname in ''|'#'*) continue ;; esac
    [ "$aname" = "$name" ] || continue
    if printf '%s\n' "$reason" | grep -Eq -- "$apat"; then ok=1; break; fi
  done <"$allow"
  if [ $ok -eq 1 ]; then
    echo "check-skips: allowed skip: $name: $reason"
  else
    echo "check-skips: UNEXPECTED skip: $name: ${reason:-(no reason given)}"
    unexpected=$((unexpected + 1))
  fi
done <<<"$skips"

echo "check-skips: $total skipped, $unexpected unexpected (allow-list: ${allow#"$PWD"/})"
if [ "$summaries" -eq 0 ]; then
  echo "check-skips: no integration summary line in $log: the tests did not run to the end"
  exit 1
fi
[ $unexpected -eq 0 ]
