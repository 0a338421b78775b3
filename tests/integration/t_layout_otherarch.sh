# An architecture lace does not decode branches for (i386, gcc -m32):
# sections, regions and functions all there, one warning line about
# branches, exit 0.
. "$SRC/tests/integration/lib.sh"
gcc -m32 -O2 -c -o "$T/i386.o" "$SRC/tests/fixtures/layout/ppc.c" 2>"$T/cc.err" ||
  skip "gcc -m32 cannot compile here: $(tail -n 1 "$T/cc.err")"
expect_exit 0 "$LACE" layout --csv "$T/i386.o"
expect_eq "$ERR" "" "no warning without --branches"
for fn in ppc_leaf ppc_mid ppc_top ppc_slow; do
  expect_match "^$fn,0x[0-9a-f]+,[0-9]+,\\.text" "$OUT"
done
expect_exit 0 "$LACE" layout --branches --json "$T/i386.o"
expect_one_line "$ERR"
expect_match "^lace: warning: $T/i386.o: .*branch" "$ERR"
expect_match '"arch":"other"' "$OUT"
expect_match '"disassembled":false' "$OUT"
exit 0
