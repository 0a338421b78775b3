# The simulator's instruction count is cachegrind's I refs, exactly, as
# users run both: `lace stat --backend sim -e instructions -- PROG` against
# `valgrind --tool=cachegrind PROG`, each started the same way from the same
# environment, on a static program and dynamic ones (t_sim_parity compares
# forking programs process by process).  (lace
# used to count about 8,000 more: its virtual-clock library preloaded into
# every run, and VALGRIND_LIB handed on to the workload.)  With
# --virtual-clock the extra library is there again, and the count says so.
. "$SRC/tests/integration/lib.sh"
need_vg
command -v setarch >/dev/null || skip "setarch (util-linux) missing"
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
[ -x "$BUILD/vg/lace-valgrind" ] || fail "the tool's launcher $BUILD/vg/lace-valgrind is not built"
unset VALGRIND_LIB LD_PRELOAD

cat > loop.c <<'C'
int main(int argc, char **argv) { volatile long s = 0; for (long i = 0; i < 20000L * argc; i++) s += i; return 0; }
C
cc -O1 -static -o loop-static loop.c 2>/dev/null || skip "no static libc (libc6-dev)"
cc -O1 -o loop-dyn loop.c || fail "cannot build loop-dyn"
printf '%s\n' delta alpha charlie bravo echo golf foxtrot hotel > words

# cachegrind's I refs; lace lets the workload run with address
# randomization off, so cachegrind does too
cg() {
  rm -f cg.*
  env setarch "$(uname -m)" -R valgrind -q --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=cg.out "$@" >/dev/null 2>cg.err || fail "cachegrind on $*: $(tail -n 3 cg.err)"
  awk '/^summary:/ { print $2 }' cg.out
}
lace_sim() { # OPTS CMD...
  local opts=$1; shift
  env "$LACE" stat --backend sim $opts --no-results --json --output=null -r 2 -e instructions -- "$@" \
    > l.json 2> l.err || fail "lace stat on $*: $(tail -n 3 l.err)"
  python3 - l.json <<'PY' || fail "lace stat: runs differ or not counted: $(cat l.json | head -c 400)"
import json, sys
e = json.load(open(sys.argv[1]))["events"][0]
v = e["values"]
assert e["status"] == "counted" and len(v) == 2 and v[0] == v[1], e
print(int(v[0]))
PY
}

for prog in "./loop-static 3" "./loop-dyn 3" "sort words" "/bin/true"; do
  # shellcheck disable=SC2086
  want=$(cg $prog); got=$(lace_sim "" $prog)
  expect_eq "$got" "$want" "$prog: lace instructions vs cachegrind I refs"
  echo "$prog: $got instructions, cachegrind $want"
done

# the virtual clock is one more library in a dynamic program's start-up
# (a static one cannot load it): counted, and only when asked for
want=$(cg ./loop-dyn 3); got=$(lace_sim --virtual-clock ./loop-dyn 3)
[ "$got" -gt "$want" ] || fail "--virtual-clock: $got instructions, not more than cachegrind's $want"
echo "./loop-dyn 3 with --virtual-clock: $got (+$((got - want)): loading the clock library)"
expect_exit 0 "$LACE" stat --backend sim --virtual-clock --output=null -r 1 -e instructions -- ./loop-dyn
expect_match 'virtual clock' "$ERR$OUT"
exit 0
