# bench_qemu's floor of a plugin called once per block
# ($LACE_TCG_NULL_EXEC, as lace-vg's $LACE_VG_NULL_MODEL): the same boot
# and workload, every count 0, and lace says so on stderr, so that the
# zeros cannot pass for a measurement.  The same boot without it counts
# (the test can see).
# Boots Debian's kernel from lace's cache (lib.sh's qemu_guest).
# timeout: 300
. "$SRC/tests/integration/lib.sh"
need_qemu_x86
qemu_guest

EV=instructions,L1-icache-load-misses,fetch-blocks
counts() { # NAME: the events' values of NAME.csv, one line
  awk -F, '$3 ~ /^(instructions|L1-icache-load-misses|fetch-blocks)/ { printf "%s=%s ", $3, $1 }' "$1.csv"
}
run() { # NAME [ENV...]
  local name=$1; shift
  env "$@" "$LACE" stat --backend qemu -r 1 --no-results -x, -o "$name.csv" -e "$EV" -- /bin/true \
    2>"$name.err" || fail "$name: lace stat failed: $(tail -3 "$name.err")"
}

run model
echo "without LACE_TCG_NULL_EXEC: $(counts model)"
grep -q "LACE_TCG_NULL_EXEC" model.err && fail "a warning without LACE_TCG_NULL_EXEC: $(cat model.err)"
awk -F, '$3 == "instructions" && $1 > 0 { ok = 1 } END { exit !ok }' model.csv ||
  fail "the plugin counted no instructions: $(cat model.csv)"

run floor LACE_TCG_NULL_EXEC=1
echo "with LACE_TCG_NULL_EXEC: $(counts floor)"
grep -q "LACE_TCG_NULL_EXEC is set: the TCG plugin models nothing" floor.err ||
  fail "the floor run does not say that it models nothing: $(cat floor.err)"
[ "$(awk -F, '$3 ~ /^(instructions|L1-icache-load-misses|fetch-blocks)$/' floor.csv | wc -l)" = 3 ] ||
  fail "the floor run lacks its counts: $(cat floor.csv)"
awk -F, '$3 ~ /^(instructions|L1-icache-load-misses|fetch-blocks)$/ && $1 != 0 { bad = 1 } END { exit bad }' floor.csv ||
  fail "LACE_TCG_NULL_EXEC counted: $(cat floor.csv)"
exit 0
