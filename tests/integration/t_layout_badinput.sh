# Bad input to lace layout: one line "lace: FILE: reason" and exit 2, never
# a crash; a stripped binary is sections only, exit 0, with a warning.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not installed"
FX=$("$SRC/tests/fixtures/layout/build.sh") || fail "fixture build failed"

bad() { # FILE PATTERN
  expect_exit 2 "$LACE" layout "$1"
  expect_one_line "$ERR"
  expect_match "^lace: $(printf '%s' "$1" | sed 's/[.]/\\./g'): $2" "$ERR"
}
bad "$T/missing" 'No such file'
mkdir -p "$T/dir"
bad "$T/dir" 'is a directory'
: > "$T/empty"
bad "$T/empty" 'empty file'
printf 'just some text\n' > "$T/text"
bad "$T/text" 'not an ELF file'
head -c 32 "$FX/layout_x86" > "$T/header"
bad "$T/header" 'truncated ELF'
size=$(stat -c %s "$FX/layout_x86")
head -c $((size / 2)) "$FX/layout_x86" > "$T/half"
bad "$T/half" 'truncated ELF'
# cut inside the section contents, keeping the section header table
head -c 8000 "$FX/layout_x86" > "$T/cut"
expect_exit 2 "$LACE" layout "$T/cut"
expect_one_line "$ERR"
# a section header pointing past the end (headers intact, contents lost)
python3 - "$FX/layout_x86" "$T/lying" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum = struct.unpack_from("<HH", d, 0x3a)
# make the .text header's size huge
for i in range(shnum):
    o = shoff + i * shentsize
    typ, flags = struct.unpack_from("<IQ", d, o + 4)
    if typ == 1 and flags & 4:
        struct.pack_into("<Q", d, o + 0x20, 1 << 40)
        break
open(sys.argv[2], "wb").write(d)
PY
bad "$T/lying" 'truncated ELF: section'
for f in missing dir empty text header half lying; do
  expect_exit 2 "$LACE" layout --json --branches "$T/$f"
  expect_one_line "$ERR"
done

# a symbol name that is not UTF-8 still gives valid JSON: each byte that
# is not UTF-8 becomes U+FFFD (util/utf8.h), the rest of the name stays
python3 - "$FX/layout_x86.o" "$T/badname.o" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"fx_align64\0")
while i >= 0:
    d[i:i + 2] = b"\xff\xfe"
    i = d.find(b"fx_align64\0", i + 1)
open(sys.argv[2], "wb").write(d)
PY
expect_exit 0 "$LACE" layout --json --no-dwarf "$T/badname.o"
printf '%s\n' "$OUT" | python3 -c 'import json, sys; m = json.load(sys.stdin); assert any(f["name"] == "\ufffd\ufffd_align64" for f in m["functions"])' ||
  fail "JSON with a non-UTF-8 symbol name is not valid"

# stripped: sections only, a warning, exit 0
expect_exit 0 "$LACE" layout "$FX/layout_stripped"
expect_eq "$ERR" "lace: warning: $FX/layout_stripped: no symbol table; sections only"
expect_match '^Sections:' "$OUT"
expect_match ' 0 functions' "$OUT"
expect_exit 0 "$LACE" layout --csv "$FX/layout_stripped"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" "1" "stripped CSV is the header alone"

# usage errors
expect_exit 2 "$LACE" layout
expect_one_line "$ERR"
expect_exit 2 "$LACE" layout "$FX/layout_x86" "$FX/layout_x86"
expect_one_line "$ERR"
expect_exit 2 "$LACE" layout --page 1000 "$FX/layout_x86"
expect_one_line "$ERR"
expect_exit 2 "$LACE" layout --fetch
expect_one_line "$ERR"
exit 0
