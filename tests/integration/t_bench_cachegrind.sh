# Acceptance 4 of the workloads: each runs to completion under
# valgrind --tool=cachegrind (hackbench in fork mode too, children traced),
# and hackbench's I1 miss rate at the default -g 10 -f 20 is well above
# rt-tests hackbench's on the same arguments: the code footprint is real.
#
# The rate comparison runs in thread mode.  In fork mode every child's
# cachegrind counts include everything its parent executed before the fork
# (valgrind does not zero them), so summing 400 children counts the
# parent's start-up 400 times: that measures start-up, not messaging, and
# costs minutes.  Thread mode counts each instruction once.  Fork mode is
# still run to completion below, on a smaller group.
. "$SRC/tests/integration/lib.sh"

command -v valgrind >/dev/null || skip "valgrind not installed (Debian package valgrind)"
RT=$(command -v hackbench) || skip "rt-tests hackbench not installed"
HB=$BUILD/bench/hackbench
[ -x "$HB" ] || fail "$HB not built"
# A sanitizer runtime reads /proc and runs under valgrind badly: not the
# workload's behaviour, so sanitized builds (make check SANITIZE=1) skip.
is_sanitized "$HB" && skip "sanitizer build (its runtime cannot run under valgrind)"

# cg DIR CMD...: run under cachegrind (one output file per process), print
# "Ir I1mr" summed over the processes
cg() {
  dir=$1; shift
  mkdir -p "$dir"
  valgrind --tool=cachegrind --cache-sim=yes --trace-children=yes \
    --cachegrind-out-file="$dir/cg.%p" "$@" >"$dir/stdout" 2>"$dir/stderr" ||
    fail "'$*' under cachegrind failed: $(tail -n 5 "$dir/stderr")"
  awk '/^summary:/ { ir += $2; i1 += $3; n++ } END { if (!n) exit 1; printf "%d %d %d\n", ir, i1, n }' \
    "$dir"/cg.* || fail "no cachegrind summaries in $dir"
}

L=2
read -r rir ri1 rn <<EOF2
$(cg "$T/rt" "$RT" -T -l $L)
EOF2
read -r lir li1 ln <<EOF2
$(cg "$T/lace" "$HB" -T -l $L)
EOF2
rrate=$(awk -v m="$ri1" -v i="$rir" 'BEGIN { printf "%.4f", 100 * m / i }')
lrate=$(awk -v m="$li1" -v i="$lir" 'BEGIN { printf "%.4f", 100 * m / i }')
echo "I1 miss rate, -g 10 -f 20 -l $L -T: rt-tests $rrate% ($ri1 / $rir), lace $lrate% ($li1 / $lir)"
expect_match '^lace-counts: .* messages=8000 ' "$(tail -n 1 "$T/lace/stdout")"
# "well above": at least five times the rate
awk -v a="$lrate" -v b="$rrate" 'BEGIN { exit !(a >= 5 * b) }' ||
  fail "lace hackbench I1 miss rate $lrate% is not well above rt-tests' $rrate%"

# fork mode, to completion, every child traced (1 + 2 x 3 processes)
read -r fir fi1 fn <<EOF2
$(cg "$T/fork" "$HB" -g 1 -f 3 -l 2)
EOF2
[ "$fn" -eq 7 ] || fail "expected 7 processes traced in fork mode, got $fn"
expect_match '^lace-counts: .* messages=18 ' "$(tail -n 1 "$T/fork/stdout")"
echo "fork mode -g 1 -f 3 -l 2: $fn processes, $fi1 I1 misses / $fir instructions"

# the other two run to completion too
cg "$T/fb" "$BUILD/bench/faultbench" --pages 500 >/dev/null
expect_match '^lace-counts: workload=faultbench .* hash_faults=500 ' "$(tail -n 1 "$T/fb/stdout")"
cg "$T/ra" "$BUILD/bench/randaccess" --accesses 20000 --htab-kib 256 >/dev/null
expect_match '^lace-counts: workload=randaccess .* model_errors=0 ' "$(tail -n 1 "$T/ra/stdout")"
exit 0
