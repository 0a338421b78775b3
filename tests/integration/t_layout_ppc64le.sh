# lace layout on ppc64le (built with Debian's powerpc64le-linux-gnu-gcc): an
# object and a linked program, sections, regions and functions.
. "$SRC/tests/integration/lib.sh"
command -v powerpc64le-linux-gnu-gcc >/dev/null || skip "powerpc64le-linux-gnu-gcc not installed (gcc-powerpc64le-linux-gnu)"
FX=$("$SRC/tests/fixtures/layout/build.sh") || fail "fixture build failed"

for f in ppc.o ppc; do
  expect_exit 0 "$LACE" layout --csv --no-dwarf "$FX/$f"
  CSV=$OUT
  for fn in ppc_leaf ppc_mid ppc_slow ppc_top; do
    expect_match "^$fn,0x[0-9a-f]+,[0-9]+,\\.text" "$CSV"
  done
  expect_eq "$(printf '%s\n' "$CSV" | tail -n +2 | wc -l)" "4" "$f function count"
  # sizes agree with the symbol table
  want=$(powerpc64le-linux-gnu-readelf -sW "$FX/$f" 2>/dev/null | awk '$8 == "ppc_mid" { print $3 }')
  [ -n "$want" ] || want=$(readelf -sW "$FX/$f" | awk '$8 == "ppc_mid" { print $3 }')
  expect_eq "$(printf '%s\n' "$CSV" | awk -F, '$1 == "ppc_mid" { print $3 }')" "$want" "ppc_mid size"
  expect_exit 0 "$LACE" layout --json --no-dwarf "$FX/$f"
  expect_match '"arch":"ppc64le"' "$OUT"
done
# in the object the cold function sits in its own .text.unlikely
expect_exit 0 "$LACE" layout --csv --no-dwarf "$FX/ppc.o"
expect_match '^ppc_slow,0x[0-9a-f]+,[0-9]+,\.text\.unlikely,' "$OUT"
# DWARF of the ppc64le object: file:line through the relocations
expect_exit 0 "$LACE" layout --csv "$FX/ppc.o"
expect_match '^ppc_mid,0x[0-9a-f]+,[0-9]+,\.text,.*ppc\.c,7,' "$OUT"
exit 0
