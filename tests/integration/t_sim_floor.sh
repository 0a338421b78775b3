# bench_sim's floor of the instrumentation ($LACE_VG_NULL_MODEL, as the
# plugin's $LACE_TCG_NULL_EXEC): every segment calls an empty helper, so
# the program runs as it does under the model, says so on stderr, and
# every count is 0 -- what the bench reports as the floor is a run that
# modelled nothing.  The same run without it counts (the test can see).
. "$SRC/tests/integration/lib.sh"
VG=$BUILD/vg
need_vg
export VALGRIND_LIB=$VG

printf '%s\n' delta alpha charlie bravo echo golf foxtrot hotel > words
sort words > plain.out || fail "sort failed natively"
run() { # NAME [ENV...]: lace-vg on sort words; counts in NAME.counts
  local name=$1; shift
  rm -f "$name".lv.*
  env "$@" valgrind -q --tool=lace-vg --lace-out="$name.lv" sort words >"$name.out" 2>"$name.err" ||
    fail "$name: lace-vg failed: $(tail -3 "$name.err")"
  cmp -s plain.out "$name.out" || fail "$name: the program's output differs from its native run"
  awk '$1 ~ /^(instructions|L1-icache-loads|L1-icache-load-misses|iTLB-loads|iTLB-load-misses|stlb-loads|stlb-misses|fetch-blocks)$/ { print $1, $2 }' \
    "$name".lv.* > "$name.counts"
  [ "$(wc -l < "$name.counts")" -ge 8 ] || fail "$name: the output lacks its counts"
}

run model
awk '$1 == "instructions" && $2 > 0 { ok = 1 } END { exit !ok }' model.counts ||
  fail "the model counted no instructions: $(tr '\n' ' ' < model.counts)"
echo "without LACE_VG_NULL_MODEL: $(grep -E '^(instructions|L1-icache-load-misses) ' model.counts | tr '\n' ' ')"

run floor LACE_VG_NULL_MODEL=1
grep -q "LACE_VG_NULL_MODEL is set: nothing is modelled" floor.err ||
  fail "the floor run does not say that it models nothing: $(cat floor.err)"
awk '$2 != 0 { bad = 1 } END { exit bad }' floor.counts ||
  fail "LACE_VG_NULL_MODEL counted: $(tr '\n' ' ' < floor.counts)"
echo "LACE_VG_NULL_MODEL: program output intact, $(wc -l < floor.counts) counts, all 0"
exit 0
