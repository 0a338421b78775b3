# Jump-label sites are init when their code is in init text, not when bit 1
# of the key says so (x86 objtool sets it at build time on most sites), and
# an old absolute-format __jump_table is a warning, not garbage sites.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not available"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 assembly fixture"
cat > j.S <<'S'
	.text
	.globl main
	.type main, @function
main:	nop
1:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00	/* the site: a 5-byte nop */
	xor %eax, %eax
2:	ret
	.size main, . - main
	.section .init.text, "ax", @progbits
	.globl boot_fn
	.type boot_fn, @function
boot_fn: nop
3:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
4:	ret
	.size boot_fn, . - boot_fn
	.data
	.globl k
	.type k, @object
k:	.quad 0, 0
	.size k, 16
	.section __jump_table, "aw", @progbits
	.balign 8
#ifdef ABSOLUTE
	.quad 1b, 2b, k
	.quad 3b, 4b, k
#else
	.long 1b - ., 2b - .
	.quad k + 2 - .		/* bit 1 set at build time, as objtool does */
	.long 3b - ., 4b - .
	.quad k - .
#endif
S
gcc -no-pie -o rel j.S && gcc -no-pie -DABSOLUTE -o abs j.S || fail "building the fixtures"

expect_exit 0 "$LACE" layout --json --jumps --no-dwarf rel
printf '%s\n' "$OUT" | python3 -c '
import json, sys
j = json.load(sys.stdin)["jumps"]
s = {x["func_name"]: x for x in j}
assert len(j) == 2, j
assert s["main"]["key_flags"] == 2 and s["main"]["init"] is False, s["main"]
assert s["boot_fn"]["key_flags"] == 0 and s["boot_fn"]["init"] is True, s["boot_fn"]
' || fail "init decided by the section"
expect_exit 0 "$LACE" layout --jumps --no-dwarf rel
expect_nomatch 'main -> main  \[k init\]' "$OUT"
expect_match 'boot_fn -> boot_fn  \[k init\]' "$OUT"
expect_exit 0 "$LACE" layout --csv --jumps rel
expect_match ',__jump_table,1$' "$OUT"

# absolute entries: no sites, one warning naming the format
"$LACE" layout --json --jumps --no-dwarf abs > abs.json 2> abs.err || fail "layout abs exited $?"
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jumps"]))' abs.json)" 0 "absolute sites"
expect_match 'warning: .*abs: __jump_table: .*absolute-format' "$(cat abs.err)"
exit 0
