# lace diff --bloat prints exactly what the kernel's scripts/bloat-o-meter -t
# prints: on relocatable objects shaped like modules (aliases, statics with
# .N suffixes, cold parts, weak and ifunc symbols), on the study builds, on
# two real modules of a Debian stable update (scripts/fetch-modules.sh) and
# on the real Debian stable update pair (scripts/fetch-vmlinux.sh).
# timeout: 600
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null && command -v nm >/dev/null || skip "gcc/nm missing"
BOM=$("$SRC/scripts/fetch-bloat-o-meter.sh" 2>"$T/fetch.err") ||
  skip "no scripts/bloat-o-meter: $(tail -n 1 "$T/fetch.err")"

# two versions of a module-like object
for v in 1 2; do
  cat > m$v.c <<C
#include <stddef.h>
static int helper(int x) { return x * $v + 1; }
int work(int x) { return helper(x) + (x > 3 ? helper(x - 1) : 0); }
/* aliases: bloat-o-meter counts each name */
int work_alias(int x) __attribute__((alias("work")));
#if $v == 2
int work_alias2(int x) __attribute__((alias("work")));
int grown(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * i ^ s; return s; }
#else
int grown(int *p, int n) { return n ? p[0] : 0; }
int gone(int x) { return x + 42; }
#endif
__attribute__((weak)) int weakling(int x) { return x + $v; }
static int impl(void) { return $v; }
static void *resolve(void) { return (void *)impl; }
int chosen(void) __attribute__((ifunc("resolve")));
__attribute__((cold, noinline)) void slow_path(int x) { if (x) __builtin_trap(); }
int uses(int x) { if (__builtin_expect(x == 99, 0)) slow_path(x); return x * $v; }
int table[16 * $v];
C
  gcc -O2 -ffunction-sections -c -o m$v.o m$v.c || fail "building m$v.o"
done
python3 "$BOM" -t m1.o m2.o > want || fail "bloat-o-meter on objects"
expect_exit 0 "$LACE" diff --bloat m1.o m2.o
printf '%s\n' "$OUT" > got
diff want got > d.txt || fail "objects: lace diff --bloat differs from bloat-o-meter -t: $(head -5 d.txt | tr '\n' ' ')"
# the second alias of work is a name of its own, as in bloat-o-meter
expect_match '^add/remove: 1/1 grow/shrink: 5/0 ' "$(head -1 got)"
expect_match '^work_alias2 +- +15 +\+15$' "$(cat got)"
# and the summary line of the ordinary diff is the same line
expect_exit 0 "$LACE" diff m1.o m2.o
expect_match "^$(head -1 got | sed 's/[()]/\\&/g')\$" "$OUT"
echo "objects: $(head -1 got)"

# bloat_same OLD NEW WHAT: both tools print the same bytes
bloat_same() {
  python3 "$BOM" -t "$1" "$2" > bwant || fail "$3: bloat-o-meter failed"
  "$LACE" diff --bloat "$1" "$2" > bgot || fail "$3: lace diff --bloat failed"
  diff bwant bgot > bd.txt || fail "$3: lace differs from bloat-o-meter -t: $(head -5 bd.txt | tr '\n' ' ')"
  echo "$3: $(head -1 bgot) ($(wc -l < bgot) lines, identical)"
}

# the study builds: the variants that change symbols (a tracepoint removed,
# slow paths split into .cold parts) against baseline
expect_exit 0 "$LACE" build --variant baseline,no-tracepoint,cold-slowpaths --program hackbench --out vb
bloat_same vb/baseline/hackbench vb/no-tracepoint/hackbench "study no-tracepoint"
# the tracepoint's two functions are gone and nothing grew
expect_match '^add/remove: 0/2 grow/shrink: 0/' "$(head -1 bgot)"
bloat_same vb/baseline/hackbench vb/cold-slowpaths/hackbench "study cold-slowpaths"

# two real modules of the stable update (their symbol tables: aliases,
# .constprop/.isra/.cold parts, __pfx_ padding symbols of 6.1)
if mods=$("$SRC/scripts/fetch-modules.sh" btrfs xfs 2> fetchm.err); then
  printf '%s\n' "$mods" | while read -r a b; do
    bloat_same "$a" "$b" "module $(basename "$a")"
  done || exit 1
else
  skip_part "the module comparison: no fetched modules ($(tail -n 1 fetchm.err))"
fi

if N=$("$SRC/scripts/fetch-vmlinux.sh" 2>fetchk.err) && O=$("$SRC/scripts/fetch-vmlinux.sh" --previous 2>>fetchk.err); then
  bloat_same "$O" "$N" kernels
else
  skip_part "the kernel comparison: no fetched vmlinux pair ($(tail -n 1 fetchk.err))"
fi
parts_done
