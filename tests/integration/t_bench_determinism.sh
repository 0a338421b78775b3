# Acceptance 3 of the workloads: with the same arguments, two runs print
# identical counts (the lace-counts line), for each workload; hackbench in
# process mode over sockets and pipes and in thread mode.  A different seed
# changes them, so the comparison can fail.
. "$SRC/tests/integration/lib.sh"

# counts BIN ARGS...: the lace-counts line
counts() {
  expect_exit 0 "$@"
  line=$(printf '%s\n' "$OUT" | grep '^lace-counts: ')
  [ -n "$line" ] || fail "no lace-counts line from '$*': $OUT"
  expect_one_line "$line"
  printf '%s\n' "$line"
}

check() {
  a=$(counts "$@") || exit 1
  b=$(counts "$@") || exit 1
  expect_eq "$b" "$a" "two runs of '$*'"
  echo "ok: $a"
}

HB=$BUILD/bench/hackbench
check "$HB" -g 2 -f 4 -l 10 --ring-pages 8
check "$HB" -g 2 -f 4 -l 10 -p --page-size 4k --old
check "$HB" -g 2 -f 4 -l 10 -T
check "$HB" -g 1 -f 3 -l 10 -i
check "$HB" -g 1 -f 3 -l 10 -T -p
check "$BUILD/bench/faultbench" --pages 3000 --passes 2 --htab-kib 256 --page-size 4k
check "$BUILD/bench/faultbench" --pages 300 --old
# randaccess evicts (region twice the table): eviction choices must repeat too
check "$BUILD/bench/randaccess" --accesses 100000 --htab-kib 256 --old
check "$BUILD/bench/randaccess" --accesses 100000 --htab-kib 256 --load-only

# the counts depend on the seed (the test could fail)
a=$(counts "$HB" -g 1 -f 2 -l 5 --seed 1) || exit 1
b=$(counts "$HB" -g 1 -f 2 -l 5 --seed 2) || exit 1
[ "${a#*handler_sum=}" != "${b#*handler_sum=}" ] || fail "hackbench seeds 1 and 2 gave the same handler_sum"
a=$(counts "$BUILD/bench/randaccess" --accesses 50000 --htab-kib 256 --seed 1) || exit 1
b=$(counts "$BUILD/bench/randaccess" --accesses 50000 --htab-kib 256 --seed 2) || exit 1
[ "${a#*checksum=}" != "${b#*checksum=}" ] || fail "randaccess seeds 1 and 2 gave the same checksum"
exit 0
