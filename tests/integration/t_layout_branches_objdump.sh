# Branch agreement with objdump: a generated C program of 2,100 functions
# (loops, conditions, switch tables, calls, tail calls, function pointers,
# cold paths), compiled at -O2; every branch lace reports (address, target,
# kind) must be exactly what `objdump -d` shows, and nothing more or less.
# The libopcodes-only engine (LACE_DISASM=libopcodes) must agree too.
. "$SRC/tests/integration/lib.sh"
command -v objdump >/dev/null || skip "no objdump"
command -v python3 >/dev/null || skip "no python3"
F=$SRC/tests/fixtures/branches
python3 "$F/gen_funcs.py" 2100 > prog.c || fail "generator failed"
${CC:-gcc} -O2 -o prog prog.c || fail "cc failed"
nf=$(nm prog | grep -c ' [tT] f[0-9]')
[ "$nf" -ge 2000 ] || fail "only $nf functions in the program"

rows() { tail -n +2 | cut -d, -f1-3 | sort; }
expect_exit 0 "$LACE" layout --branches --csv --no-dwarf prog
printf '%s\n' "$OUT" | rows > lace.rows
head -n 1 <<<"$OUT" | grep -q '^address,target,kind,function,target_region' || fail "CSV header: $(head -n 1 <<<"$OUT")"
objdump -d --no-show-raw-insn prog > prog.dis || fail "objdump failed"
python3 "$F/objdump_branches.py" < prog.dis | sort > objdump.rows

direct() { grep -E ',(jump|cond|call)$' "$1" | grep -v ',,' | wc -l; }
nd=$(direct objdump.rows)
[ "$nd" -ge 4000 ] || fail "only $nd direct branches in objdump's output"
if ! diff -u objdump.rows lace.rows > rows.diff; then
  head -n 20 rows.diff
  fail "lace and objdump disagree on $(grep -c '^[-+]0x' rows.diff) branch rows"
fi
# each kind is present, so the comparison covered all of them
for k in jump cond call indirect-jump indirect-call ret; do
  grep -q ",$k\$" lace.rows || fail "no $k branch in the program"
done

# decoding edges: zero runs, an instruction cut by a symbol, an object in .text
${CC:-gcc} -c -o edges.o "$F/edges.S" && ${CC:-gcc} -nostdlib -static -Wl,-e,zf -o edges edges.o ||
  fail "cc edges.S failed"
"$LACE" layout --branches --csv edges | rows > edges.lace || fail "lace on edges failed"
objdump -d --no-show-raw-insn edges | python3 "$F/objdump_branches.py" | sort > edges.objdump
diff -u edges.objdump edges.lace || fail "lace and objdump disagree on edges.S"
[ "$(wc -l < edges.lace)" -ge 5 ] || fail "edges.S: only $(wc -l < edges.lace) branches"

LACE_DISASM=libopcodes "$LACE" layout --branches --csv --no-dwarf prog | rows > slow.rows
cmp -s slow.rows lace.rows || fail "the libopcodes-only engine disagrees with the fast x86 path"

# every branch among the f functions belongs to one (only crt code such as
# deregister_tm_clones, whose symbols have no size, lies outside functions)
lo=$(nm prog | awk '$3 ~ /^f[0-9]+$/ { print $1 }' | sort | head -n 1)
orphans=$(printf '%s\n' "$OUT" | tail -n +2 |
  awk -F, '$6 == ".text" && $4 == "" { print $1 }' |
  while read -r a; do [ $((a)) -ge $((16#$lo)) ] && echo "$a"; done | wc -l)
[ "$orphans" -eq 0 ] || fail "$orphans branches among the f functions without a function"
calls=$(printf '%s\n' "$OUT" | tail -n +2 | awk -F, '$3 == "call" && $4 ~ /^f[0-9]+$/ && $7 ~ /^f[0-9]+$/' | wc -l)
[ "$calls" -ge 500 ] || fail "only $calls calls between f functions with both ends named"
# another architecture (the same file relabelled aarch64): no branches, one
# warning line, exit 0
cp edges other && printf '\267\000' | dd of=other bs=1 seek=18 conv=notrunc 2>/dev/null
expect_exit 0 "$LACE" layout --branches --csv other
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 1 "branch rows of an aarch64 file (header only)"
expect_one_line "$ERR"
expect_match '^lace: warning: other: branches are not decoded for architecture aarch64$' "$ERR"

echo "functions $nf, branch rows $(wc -l < lace.rows), direct $nd: identical to objdump"
exit 0
