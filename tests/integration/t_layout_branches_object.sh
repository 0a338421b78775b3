# Branches of a relocatable object are those of the program linked from it:
# lace gives every section of the .o its own address and relocates the
# contents, so calls between functions and jumps into .text.unlikely (the
# .cold pieces) have real targets.  Compared function-relative
# (f+offset,kind,target+offset) against the linked program.
. "$SRC/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
F=$SRC/tests/fixtures/branches
python3 "$F/gen_funcs.py" --freestanding 300 > prog.c || fail "generator failed"
${CC:-gcc} -O2 -c -o prog.o prog.c || fail "cc -c failed"
${CC:-gcc} -O2 -nostdlib -static -Wl,-e,main -o prog prog.c || fail "cc failed"
for f in prog.o prog; do
  "$LACE" layout --csv --no-dwarf $f > $f.funcs.csv || fail "lace layout $f failed"
  "$LACE" layout --branches --csv --no-dwarf $f > $f.branches.csv || fail "lace layout --branches $f failed"
  python3 "$F/relative_rows.py" $f.branches.csv $f.funcs.csv 'f[0-9]+(\.cold)?' > $f.rel
done
if ! diff -u prog.rel prog.o.rel > rel.diff; then
  head -n 20 rel.diff
  fail "the object's branches differ from the linked program's"
fi
n=$(wc -l < prog.o.rel)
[ "$n" -gt 1000 ] || fail "only $n branches compared"
calls=$(grep -c ',call,f[0-9]*+0x0$' prog.o.rel)
[ "$calls" -gt 100 ] || fail "only $calls calls to function starts in the object"
grep -q '^[^,]*,cond,f[0-9]*\.cold+' prog.o.rel || fail "no jump into a .cold piece in the object"
# and in the object those cross from .text to .text.unlikely
awk -F, '$6 == ".text" && $5 == ".text.unlikely"' prog.o.branches.csv | grep -q . ||
  fail "no branch from .text to .text.unlikely in the object"

# calls out of the object (undefined symbols) have no target; the kernel's
# thunks are recognised by name as ret / indirect-call, as in a module
${CC:-gcc} -O2 -mfunction-return=thunk-extern -mindirect-branch=thunk-extern \
  -c -o thunks.o "$F/thunks.c" || fail "cc thunks.c failed"
expect_exit 0 "$LACE" layout --branches --csv --no-dwarf thunks.o
B=$(printf '%s\n' "$OUT" | tail -n +2 | cut -d, -f2,3,4 | sort | uniq -c | awk '{ print $1 " " $2 }')
expect_match '^2 ,indirect-call,g$' "$B"
expect_match '^2 ,ret,g$' "$B"
expect_match '^1 ,call,g$' "$B"
expect_nomatch ',0x0,' "$OUT"
echo "object vs program: $n branches, $calls calls, identical"
exit 0
