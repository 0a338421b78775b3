# lace layout on the real kernel (Debian 12 cloud vmlinux with DWARF,
# fetched and cached outside the repository by scripts/fetch-vmlinux.sh):
# the marker regions have nm's bounds, every __jump_table entry is read,
# DWARF gives file:line for most functions.
. "$SRC/tests/integration/lib.sh"
V=$("$SRC/scripts/fetch-vmlinux.sh" 2>"$T/fetch.err") || skip "no vmlinux: $(tail -n 1 "$T/fetch.err")"
[ -f "$V" ] || skip "no vmlinux at '$V'"
nm "$V" > "$T/nm" || fail "nm failed"
sym() { awk -v n="$1" '$3 == n { print "0x" $1 }' "$T/nm" | sed 's/^0x0*/0x/'; }

expect_exit 0 "$LACE" layout --regions --csv --no-dwarf "$V"
R=$OUT
reg() { printf '%s\n' "$R" | awk -F, -v n="$1" '$1 == n { print $3","$4 }'; }
for r in entry irqentry noinstr sched cpuidle lock softirqentry; do
  expect_eq "$(reg $r)" "$(sym __${r}_text_start),$(sym __${r}_text_end)" "region $r vs nm"
done
expect_match '^irqentry,marker,.*,entry,' "$R"
expect_match '^cold,cold,' "$R"

# every jump-label entry: the table's size / 16
expect_exit 0 "$LACE" layout --jumps --csv --no-dwarf "$V"
want=$(( ($(sym __stop___jump_table) - $(sym __start___jump_table)) / 16 ))
expect_eq "$(printf '%s\n' "$OUT" | tail -n +2 | wc -l)" "$want" "jump entries"
# sites sit in functions, their slow paths in known regions
nofunc=$(printf '%s\n' "$OUT" | tail -n +2 | awk -F, '$3 == ""' | wc -l)
[ "$nofunc" -lt $((want / 100)) ] || fail "$nofunc of $want jump sites outside every function"

# functions: sizes from the symbol table, DWARF file:line for most
expect_exit 0 "$LACE" layout --csv "$V"
F=$OUT
n=$(printf '%s\n' "$F" | tail -n +2 | wc -l)
[ "$n" -gt 40000 ] || fail "only $n functions"
# every function in exactly one region
inreg=$(printf '%s\n' "$R" | tail -n +2 | awk -F, '{ s += $8 } END { print s }')
expect_eq "$inreg" "$n" "functions counted in regions"
withsrc=$(printf '%s\n' "$F" | tail -n +2 | awk -F, '$17 != ""' | wc -l)
[ "$withsrc" -gt $((n * 9 / 10)) ] || fail "only $withsrc of $n functions have DWARF file:line"
expect_match '^schedule,0x[0-9a-f]+,[0-9]+,sched,' "$F"
expect_match '^entry_SYSCALL_64,0x[0-9a-f]+,[0-9]+,entry,' "$F"
# no marker is a function
expect_nomatch '^__entry_text_start,' "$F"
echo "functions $n (with file:line $withsrc), jump entries $want"
exit 0
