# x86-64 kernel text is mapped with 2 MiB pages: a hot function pushed
# across a 2 MiB boundary of kernel text is a finding (text, Markdown, JSON,
# lace check) and is drawn in the SVG map; one that only crosses a 4 KiB
# boundary there costs no iTLB entry and is not.  lace knows kernel text by
# its address (x86-64 code in the kernel half of the address space).
. "$SRC/tests/integration/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the fixture is linked for x86-64"
cd "$T" || fail "no scratch folder"
cat > hp.c <<'C'
/* hot_path (1 KB) and a neighbour; the linker script places them */
__attribute__((section(".text.hot_path"), used, noinline)) void hot_path(void) { __asm__ volatile(".skip 1000, 0x90"); }
__attribute__((section(".text.other"), used, noinline)) void other(void) { __asm__ volatile(".skip 3000, 0x90"); }
__attribute__((section(".text.start"), used, noinline)) void _start(void) { hot_path(); other(); for (;;) ; }
C
gcc -O2 -fno-pie -fno-asynchronous-unwind-tables -c hp.c -o hp.o || fail "cc hp.c"
# link NAME TEXT_BASE HOT_OFFSET: hot_path at TEXT_BASE + HOT_OFFSET
link() {
  cat > "$1.ld" <<LD
ENTRY(_start)
SECTIONS {
  . = $2;
  .text : { *(.text.start) *(.text.other) . = $3; *(.text.hot_path) *(.text .text.*) }
  /DISCARD/ : { *(.note.*) *(.comment) *(.eh_frame) }
}
LD
  ld -static -nostdlib -T "$1.ld" hp.o -o "$1" || fail "ld $1"
}
K=0xffffffff81000000
link base $K 0x100000        # hot_path inside one 4 KiB and one 2 MiB page
link head4k $K 0x100f00      # crosses a 4 KiB boundary, not a 2 MiB one
link head2m $K 0x1fff00      # crosses the 2 MiB boundary at 0xffffffff81200000
link ubase 0x400000 0x100000 # the same as user-space code (not kernel text)
link uhead2m 0x400000 0x1fff00
# the premise, from nm: where hot_path lies
span() { # FILE PAGE: the number of PAGE-sized pages hot_path spans
  nm -S "$1" | python3 -c 'import sys
for l in sys.stdin:
    a, s, t, n = l.split()
    if n == "hot_path":
        a, s, p = int(a, 16), int(s, 16), int(sys.argv[1])
        print((a + s - 1) // p - a // p + 1)' "$2"
}
expect_eq "$(span base 4096) $(span base 2097152)" "1 1" "base: hot_path's 4K and 2M pages"
expect_eq "$(span head4k 4096) $(span head4k 2097152)" "2 1" "head4k: hot_path's 4K and 2M pages"
expect_eq "$(span head2m 2097152)" "2" "head2m: hot_path's 2M pages"
expect_eq "$(span uhead2m 2097152)" "2" "uhead2m: hot_path's 2M pages"
echo "hot_path" > hot.txt

# kernel text, automatic: the page rules use 2 MiB pages
expect_exit 1 "$LACE" diff --hot hot.txt base head2m
expect_match '^  page rules use 2048 KiB -> 2048 KiB pages \(x86-64 kernel text' "$OUT"
expect_match '^  warning hot-page-straddle +hot_path: hot, 1001 bytes at 0xffffffff811fff00 now spans 2 2M pages \(was 1\)' "$OUT"
expect_match '^  error +hot-footprint-growth +hot set: lines 16 -> 16, 2M pages 1 -> 2' "$OUT"
expect_exit 1 "$LACE" diff --md --hot hot.txt base head2m
expect_match '^- \*\*warning\*\* `hot-page-straddle` `hot_path`: .*now spans 2 2M pages' "$OUT"
expect_exit 1 "$LACE" diff --json --hot hot.txt --svg map.svg base head2m
printf '%s\n' "$OUT" > d.json
python3 - d.json <<'PY' || fail "JSON of the 2 MiB straddle"
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hot"]
assert h["old_rule_page"] == h["new_rule_page"] == 2 << 20, h
assert (h["old"]["hugepages"], h["new"]["hugepages"]) == (1, 2), h
f = [x for x in d["findings"] if x["rule"] == "hot-page-straddle"]
assert [x["subject"] for x in f] == ["hot_path"] and "2 2M pages" in f[0]["reason"], d["findings"]
PY
# the picture: the 2 MiB boundary drawn, hot_path outlined as crossing it
expect_match '<title>2048 KiB page boundary: 0xffffffff81200000</title>' "$(cat map.svg)"
expect_match 'class="cross"><title>hot_path 0xffffffff811fff00 \+1001 \(hot\) crosses a 2048 KiB page boundary' \
  "$(cat map.svg)"
expect_match 'hot 2 MiB pages 1 -> 2' "$(cat map.svg)"

# a 4 KiB straddle in kernel text is no finding (and no footprint growth) ...
expect_exit 0 "$LACE" diff --hot hot.txt base head4k
expect_nomatch 'hot-page-straddle|hot-footprint-growth' "$OUT"
expect_exit 0 "$LACE" diff --hot hot.txt --svg map4k.svg base head4k
expect_nomatch 'class="cross"' "$(cat map4k.svg)"
# ... unless the page rules are told to use 4 KiB pages
expect_exit 1 "$LACE" diff --hot hot.txt --page-size 4K base head4k
expect_match 'hot-page-straddle +hot_path: .*now spans 2 4K pages' "$OUT"

# user-space code: 4 KiB pages unless told otherwise
expect_exit 1 "$LACE" diff --hot hot.txt ubase uhead2m
expect_nomatch 'page rules use' "$OUT"
expect_match 'hot-page-straddle +hot_path: .*now spans 2 4K pages' "$OUT"
expect_exit 1 "$LACE" diff --hot hot.txt --page-size 2M ubase uhead2m
expect_match 'hot-page-straddle +hot_path: .*now spans 2 2M pages' "$OUT"

# lace check with the shipped config: the 2 MiB straddle fails the gate,
# the 4 KiB one in kernel text passes
ini=(--config "$SRC/doc/lace-check.ini" --set "diff.hot=$T/hot.txt" --no-measure)
expect_exit 1 "$LACE" check --base "$T/base" --head "$T/head2m" "${ini[@]}" --svg c.svg
expect_match '^### lace check: FAIL' "$OUT"
expect_match 'hot-page-straddle: hot_path: .*now spans 2 2M pages' "$OUT"
expect_match '2048 KiB page boundary' "$(cat c.svg)"
expect_exit 0 "$LACE" check --base "$T/base" --head "$T/head4k" "${ini[@]}"
expect_match '^### lace check: PASS' "$OUT"
exit 0
