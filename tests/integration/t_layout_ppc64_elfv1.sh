# lace layout on ppc64 big-endian ELFv1: function symbols name 24-byte
# descriptors in .opd; lace lists each function at the code the descriptor
# points at (a relocation in a .o, the descriptor's first doubleword in a
# linked program or library), with the symbol's st_size.  objdump's synthetic
# dot-symbols (<.name>:) are the reference; branches name their targets.
. "$SRC/tests/integration/lib.sh"
CC=powerpc64le-linux-gnu-gcc
OBJDUMP=powerpc64le-linux-gnu-objdump
command -v $CC >/dev/null || skip "powerpc64le-linux-gnu-gcc not installed (gcc-powerpc64le-linux-gnu)"
command -v $OBJDUMP >/dev/null || skip "powerpc64le-linux-gnu-objdump not installed (binutils-powerpc64le-linux-gnu)"
cat >"$T/v1.c" <<'C'
static __attribute__((noinline)) int v1_helper(int x) { return x * 3 + 1; }
__attribute__((noinline)) int v1_add(int a, int b) { return v1_helper(a) + b; }
int v1_loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += v1_add(i, n); return s; }
void _start(void) { for (;;) v1_loop(5); }
C
FLAGS="-O2 -mbig-endian -mabi=elfv1 -fno-asynchronous-unwind-tables"
$CC $FLAGS -c -o "$T/v1.o" "$T/v1.c" 2>"$T/cc.err" ||
  skip "$CC cannot emit big-endian ELFv1: $(head -n 1 "$T/cc.err")"
$CC $FLAGS -nostdlib -static -Wl,-EB -o "$T/v1" "$T/v1.c" 2>"$T/ld.err" ||
  skip "$CC cannot link big-endian ELFv1: $(head -n 1 "$T/ld.err")"
$CC $FLAGS -fPIC -shared -nostdlib -Wl,-EB -o "$T/v1.so" "$T/v1.c" 2>"$T/so.err" ||
  skip "$CC cannot link a big-endian ELFv1 shared library: $(head -n 1 "$T/so.err")"

for f in v1.o v1 v1.so; do
  expect_exit 0 "$LACE" layout --csv --no-dwarf "$T/$f"
  expect_eq "$ERR" "" "$f: no warning"
  # name,address,size from lace against objdump's <.name> and readelf's st_size
  got=$(printf '%s\n' "$OUT" | awk -F, 'NR > 1 { print $1, $2, $3, $11 }' | sort)
  want=$($OBJDUMP -d "$T/$f" | sed -n 's/^0*\([0-9a-f][0-9a-f]*\) <\.\([A-Za-z0-9_]*\)>:$/\2 \1/p' |
    while read -r name addr; do
      size=$(readelf -sW "$T/$f" | awk -v n="$name" '$8 == n && $4 == "FUNC" { print $3; exit }')
      echo "$name 0x$addr $size .text"
    done | sort)
  [ -n "$want" ] || fail "$f: objdump shows no <.name> entry points"
  expect_eq "$got" "$want" "$f: functions (name address size section)"
  expect_eq "$(printf '%s\n' "$got" | wc -l)" "4" "$f: function count"
  expect_exit 0 "$LACE" layout --json --no-dwarf "$T/$f"
  expect_match '"arch":"ppc64"' "$OUT"
  # v1_add's bl reaches v1_helper's code, not its descriptor
  expect_exit 0 "$LACE" layout --branches --csv --no-dwarf "$T/$f"
  expect_match '^0x[0-9a-f]+,0x[0-9a-f]+,call,v1_add,\.text,\.text,v1_helper$' "$OUT"
done
# stripped, the library's exported functions come from .dynsym, each still
# at its code (the .opd words are in the file), as in the unstripped one
want=$(printf '%s\n' "$got" | grep -v '^v1_helper ')
powerpc64le-linux-gnu-strip -o "$T/v1s.so" "$T/v1.so" 2>/dev/null || objcopy --strip-all "$T/v1.so" "$T/v1s.so" ||
  fail "strip failed"
expect_exit 0 "$LACE" layout --csv --no-dwarf "$T/v1s.so"
expect_eq "$(printf '%s\n' "$OUT" | awk -F, 'NR > 1 { print $1, $2, $3, $11 }' | sort)" "$want" "stripped v1s.so: functions"
exit 0
