#!/bin/sh
# Run every cmocka unit-test binary given; cmocka prints its own summary
# lines per group. Exit non-zero when any binary fails.
fail=0
for t in "$@"; do
  "$t" || { echo "unit: $t failed" >&2; fail=1; }
done
exit $fail
