# A separate debug file (objcopy --only-keep-debug, the shape of Debian's
# -dbgsym files: code sections NOBITS) and a stripped shared library list
# their functions, each with a warning that says what is missing.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null && command -v objcopy >/dev/null && command -v strip >/dev/null ||
  skip "gcc/objcopy/strip missing"
printf 'int f(int x) { return x + 1; }\nint g(int x) { return f(x) * 2; }\n' > p.c
gcc -O2 -g -fPIC -shared -o libp.so p.c && objcopy --only-keep-debug libp.so libp.debug &&
  strip -o libp.stripped libp.so || fail "building the fixtures"
names() { "$LACE" layout --csv --functions --no-dwarf "$1" 2>/dev/null | tail -n +2 | cut -d, -f1 | sort | tr '\n' ' '; }
want=$(names libp.so)
expect_match '^f g $' "$want"
expect_eq "$(names libp.debug)" "$want" "functions of the debug file"
expect_exit 0 "$LACE" layout --functions libp.debug
expect_match 'warning: .*libp.debug: code sections have no contents \(a separate debug file' "$ERR"
expect_eq "$(names libp.stripped)" "$want" "functions of the stripped library (.dynsym)"
expect_exit 0 "$LACE" layout --functions libp.stripped
expect_match 'warning: .*libp.stripped: no symbol table \(stripped\): functions from .dynsym' "$ERR"
# nm lists nothing in a stripped file: neither does the bloat-o-meter view
expect_exit 0 "$LACE" diff --bloat libp.stripped libp.stripped
expect_match '^Total: Before=0, After=0' "$OUT"
exit 0
