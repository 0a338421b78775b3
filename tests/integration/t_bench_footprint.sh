# The code footprint is real: the generator is deterministic, and the
# handlers that receive 90% of hackbench's handler calls (default skew)
# exceed a 32 KiB L1i and span more 4 KiB pages than a 64-entry iTLB maps.
# Sizes and addresses come from the linked binary's symbol table.
. "$SRC/tests/integration/lib.sh"

HB=$BUILD/bench/hackbench
GEN=$BUILD/bench/gen_handlers
[ -x "$HB" ] && [ -x "$GEN" ] || fail "hackbench or gen_handlers not built"
command -v nm >/dev/null || skip "nm not installed"

# deterministic generator: same arguments, identical files; another seed differs
mkdir -p "$T/a" "$T/b" "$T/c"
"$GEN" --out "$T/a" --handlers 64 --kib 32 || fail "generator failed"
"$GEN" --out "$T/b" --handlers 64 --kib 32 || fail "generator failed"
"$GEN" --out "$T/c" --handlers 64 --kib 32 --seed 2 || fail "generator failed"
for f in lace_handlers_0.c lace_handlers_1.c lace_handlers_2.c lace_handlers_3.c lace_handlers_table.c; do
  cmp -s "$T/a/$f" "$T/b/$f" || fail "generator output $f differs between two runs"
done
cmp -s "$T/a/lace_handlers_0.c" "$T/c/lace_handlers_0.c" && fail "generator ignores --seed"
expect_exit 2 "$GEN" --out "$T/a" --handlers 0

expect_exit 0 "$HB" --list-hot=0.9
printf '%s\n' "$OUT" | awk '{print $1}' >"$T/hot"
nhot=$(wc -l <"$T/hot")
[ "$nhot" -ge 10 ] || fail "only $nhot hot handlers"
# mass of the list really is >= 0.9 and each probability is no larger than the one before
printf '%s\n' "$OUT" | awk '{ s += $2; if (NR > 1 && $2 > prev + 1e-12) bad = 1; prev = $2 }
  END { if (s < 0.9 || bad) exit 1 }' || fail "hot list is not the top 90%: $OUT"

nm -S -t d --defined-only "$HB" | awk '$4 ~ /^lace_gen_h[0-9]+$/ { print $4, $1, $2 }' >"$T/syms"
[ "$(wc -l <"$T/syms")" -ge 256 ] || fail "fewer than 256 generated handlers linked"
read -r bytes pages <<EOF2
$(awk 'NR == FNR { hot[$1] = 1; next }
       ($1 in hot) { a = $2 + 0; n = $3 + 0; b += n;
                     for (p = int(a / 4096); p <= int((a + n - 1) / 4096); p++) pg[p] = 1 }
       END { for (p in pg) np++; print b, np }' "$T/hot" "$T/syms")
EOF2
echo "hot set (90% of calls): $nhot handlers, $bytes bytes, $pages pages of 4 KiB"
[ "$bytes" -gt 32768 ] || fail "hot code is $bytes bytes, not more than a 32 KiB L1i"
[ "$pages" -gt 64 ] || fail "hot code spans $pages pages, not more than a 64-entry iTLB covers"
exit 0
