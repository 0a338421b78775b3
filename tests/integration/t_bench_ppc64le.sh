# The ppc64le guest workloads: with Debian's cross compiler (and its libc)
# installed, plain make builds build/ppc64le/bench/{hackbench,faultbench,
# randaccess} as static ELF64 little-endian PowerPC programs whose LOAD
# segments are 64 KiB aligned (a 64 KiB-page kernel can map them).  Host
# side: faultbench --real touches real pages and reports them.  The cross
# part is skipped, saying why, when the cross compiler or libc is missing.
# timeout: 60
. "$SRC/tests/integration/lib.sh"

# host side: --real touches a real mapping and reports pages and passes
FB=$BUILD/bench/faultbench
[ -x "$FB" ] || fail "$FB not built"
expect_exit 0 "$FB" --real --pages 64
expect_match '^64 pages x 1 passes, one store per page: ' "$OUT"
expect_match '^touches/s: [0-9]+$' "$OUT"
expect_match '^lace-counts: workload=faultbench mode=real page_size=[0-9]+k access=store pages=64 passes=1$' "$OUT"
expect_nomatch 'hash_faults' "$OUT"
expect_exit 2 "$FB" --real --old
expect_one_line "$ERR"
expect_match '^faultbench: --old is an option of the hash MMU model' "$ERR"

CC=powerpc64le-linux-gnu-gcc
command -v $CC >/dev/null || skip "$CC not installed (gcc-powerpc64le-linux-gnu): no guest workloads"
case $($CC -print-file-name=libc.a) in
  /*) ;;
  *) skip "$CC has no static libc (libc6-dev-ppc64el-cross): no guest workloads" ;;
esac

for w in hackbench faultbench randaccess; do
  bin=$BUILD/ppc64le/bench/$w
  [ -x "$bin" ] || fail "$bin not built although $CC is installed"
  h=$(LC_ALL=C readelf -h "$bin") || fail "readelf -h $bin"
  expect_match 'Class: +ELF64' "$h"
  expect_match 'Data: +.*little endian' "$h"
  expect_match 'Machine: +PowerPC64' "$h"
  expect_match 'Type: +EXEC' "$h"
  l=$(LC_ALL=C readelf -lW "$bin") || fail "readelf -l $bin"
  expect_nomatch 'INTERP|DYNAMIC' "$l"    # static: no loader, no libraries
  # every LOAD segment aligned for 64 KiB pages (or more)
  for a in $(printf '%s\n' "$l" | awk '$1 == "LOAD" { print $NF }'); do
    [ $((a)) -ge 65536 ] || fail "$w: a LOAD segment aligned to $a, below 64 KiB"
  done
  # the same program as the host's: the study code and the workload's main
  syms=$(LC_ALL=C nm "$bin") || fail "nm $bin"
  expect_match ' T main$' "$syms"
  expect_match ' T hash_page_mm$' "$syms"
done
# faultbench knows --real; hackbench links the generated handlers
grep -q -- '--real' "$BUILD/ppc64le/bench/faultbench" || fail "ppc64le faultbench has no --real"
expect_match ' T lace_gen_h0000$' "$(nm "$BUILD/ppc64le/bench/hackbench")"
exit 0
