# `lace build` puts the workloads in a variant as it does the study code
# (bench/workloads.conf is the contract), and placement changes no count:
# the lace-counts lines of a variant's workloads equal the host build's.
. "$SRC/tests/integration/lib.sh"

for w in hackbench faultbench randaccess; do
  [ -x "$BUILD/bench/$w" ] || fail "$BUILD/bench/$w not built"
done
expect_exit 0 "$LACE" build --variant baseline,entry-out --program hackbench,faultbench,randaccess \
  --out "$T/v" -j 2

counts() { "$@" | grep '^lace-counts: ' || fail "no counts from '$*'"; }

for v in baseline entry-out; do
  for w in hackbench faultbench randaccess; do
    [ -x "$T/v/$v/$w" ] || fail "lace build made no $v/$w"
  done
  # the generated handlers are linked into the variant's hackbench
  n=$(nm "$T/v/$v/hackbench" | grep -c ' T lace_gen_h[0-9]')
  [ "$n" -ge 256 ] || fail "$v/hackbench links $n generated handlers"
  for args in "hackbench -g 2 -f 3 -l 10" "faultbench --pages 500 --old" \
              "randaccess --accesses 20000 --htab-kib 256"; do
    set -- $args
    w=$1; shift
    expect_eq "$(counts "$T/v/$v/$w" "$@")" "$(counts "$BUILD/bench/$w" "$@")" "$v/$w $* vs host build"
  done
done
exit 0
