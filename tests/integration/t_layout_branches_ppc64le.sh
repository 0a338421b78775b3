# ppc64le branches against powerpc64le-linux-gnu-objdump: the generated
# program (freestanding: Debian's cross compiler has no libc), -O2, linked;
# every branch row (address, target, kind) must be objdump's: b/bl (I-form),
# bc forms (beq, bdnz, bcl ...), blr and its conditional forms (ret),
# bctr (indirect jump), bctrl (indirect call).
. "$SRC/tests/integration/lib.sh"
CC=powerpc64le-linux-gnu-gcc OD=powerpc64le-linux-gnu-objdump
command -v $CC >/dev/null || skip "$CC not installed (gcc-powerpc64le-linux-gnu)"
command -v $OD >/dev/null || skip "$OD not installed (binutils-powerpc64le-linux-gnu)"
command -v python3 >/dev/null || skip "no python3"
F=$SRC/tests/fixtures/branches
python3 "$F/gen_funcs.py" --freestanding 400 > prog.c || fail "generator failed"
$CC -O2 -nostdlib -static -Wl,-e,main -o prog prog.c || fail "cross compile failed"

expect_exit 0 "$LACE" layout --branches --csv --no-dwarf prog
printf '%s\n' "$OUT" | tail -n +2 | cut -d, -f1-3 | sort > lace.rows
$OD -d --no-show-raw-insn prog | python3 "$F/objdump_branches.py" --ppc | sort > objdump.rows
if ! diff -u objdump.rows lace.rows > rows.diff; then
  head -n 20 rows.diff
  fail "lace and objdump disagree on $(grep -c '^[-+]0x' rows.diff) ppc64le branch rows"
fi
for k in jump cond call indirect-jump indirect-call ret; do
  grep -q ",$k\$" lace.rows || fail "no $k branch in the ppc64le program"
done
n=$(wc -l < lace.rows)
[ "$n" -gt 1500 ] || fail "only $n branch rows"
# calls name their target function (bl to the local entry point, f+0x8)
printf '%s\n' "$OUT" | awk -F, '$3 == "call" && $7 ~ /^f[0-9]+$/' | grep -q . ||
  fail "no call resolved to its target function"
# an object calling out: `bl ext` (R_PPC64_REL24 against an undefined
# symbol) is a call without a target, not a call to address 0
$CC -O2 -c -o thunks.o "$F/thunks.c" || fail "cross compile thunks.c failed"
expect_exit 0 "$LACE" layout --branches --csv --no-dwarf thunks.o
expect_match '^0x[0-9a-f]+,,call,g,' "$OUT"
expect_nomatch ',0x0,' "$OUT"
expect_match ',,indirect-call,g,' "$OUT"
echo "ppc64le branch rows $n: identical to objdump"
exit 0
