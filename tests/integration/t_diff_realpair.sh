# A real C program (lace's own diff unit test: the diff core, util and
# cmocka) built three times: plain -O2 -ffunction-sections (A), with
# -falign-functions=64 (B), and with a linker script that gathers three
# functions into a page-aligned .hot.text section (C).  What lace diff
# reports must agree with what nm and objdump show.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null && command -v nm >/dev/null && command -v objdump >/dev/null || skip "gcc/nm/objdump missing"
[ -f /usr/include/cmocka.h ] || skip "cmocka headers missing"
S=$SRC
srcs="$S/tests/unit/test_diff.c $S/layout/diff.c $S/layout/diff_rules.c $S/layout/bloat.c $S/layout/match.c $S/layout/hotset.c $S/layout/hotset_perf.c $S/layout/findings.c $S/layout/expect.c $S/layout/branch_stats.c
      $S/util/strbuf.c $S/util/utf8.c $S/util/xalloc.c $S/util/error.c $S/util/parse_num.c"
cat > hot.ld <<'LD'
SECTIONS
{
  .hot.text ALIGN(4096) : { *(.text.diff_images) *(.text.funcs_match) *(.text.match_pass) }
}
INSERT AFTER .text;
LD
cc="gcc -O2 -ffunction-sections -I$S -D_GNU_SOURCE"
# shellcheck disable=SC2086
$cc -o A $srcs -lcmocka -lm && $cc -falign-functions=64 -o B $srcs -lcmocka -lm &&
  $cc -Wl,-T,hot.ld -o C $srcs -lcmocka -lm || fail "building the program"
./C >/dev/null 2>&1 || fail "the relinked program does not run"

# A -> C: exactly the three gathered functions changed region, into .hot.text
rows=$("$LACE" diff --csv A C | awk -F, '$2 == "region" { print $1 ":" $3 "->" $4 }' | sort | tr '\n' ' ')
expect_eq "$rows" "diff_images:.text->.hot.text funcs_match:.text->.hot.text match_pass:.text->.hot.text " "region rows"
in_hot=$(python3 - C <<'PY'
import subprocess, sys
h = [l.split() for l in subprocess.run(["objdump", "-h", sys.argv[1]], capture_output=True, text=True).stdout.splitlines()]
lo, size = next((int(p[3], 16), int(p[2], 16)) for p in h if len(p) > 3 and p[1] == ".hot.text")
for l in subprocess.run(["nm", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 3 and p[1] in "tT" and lo <= int(p[0], 16) < lo + size:
        print(p[2])
PY
)
in_hot=$(printf '%s\n' "$in_hot" | sort | tr '\n' ' ')
expect_eq "$in_hot" "diff_images funcs_match match_pass " "nm: functions inside .hot.text"
expect_exit 0 "$LACE" diff --json A C
printf '%s\n' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {x["name"]: x for x in d["regions"]}
assert r[".hot.text"]["new_functions"] == 3 and not r[".hot.text"]["in_old"], r
assert r[".hot.text"]["new_bytes"] + r[".text"]["new_bytes"] == r[".text"]["old_bytes"], r
assert d["bloat"]["line"] == "add/remove: 0/0 grow/shrink: 0/0 up/down: 0/0 (0)", d["bloat"]
' || fail "A -> C regions/bloat"

# A -> B: realigned and straddle rows equal what nm's addresses and sizes imply
python3 - A B <<'PY' > expected || fail "computing the expectation from nm"
import subprocess, sys
units = []
def funcs(path):
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
    seen, f, al = {}, {}, []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW" and int(p[1], 16) > 0:
            seen[p[3]] = seen.get(p[3], 0) + 1
            f[p[3]] = (int(p[0], 16), int(p[1], 16))
            if ".cold" not in p[3]:
                a = int(p[0], 16)
                al.append(min(a & -a if a else 64, 64))
    # the alignment unit: largest power of two <= 64 that 90% of functions have
    units.append(max(u for u in (1, 2, 4, 8, 16, 32, 64) if 10 * sum(x >= u for x in al) >= 9 * len(al)))
    return {k: v for k, v in f.items() if seen[k] == 1}
def geo(a, s):
    al = min(a & -a if a else 4096, 4096)
    lines = (a + s - 1) // 64 - a // 64 + 1
    pages = (a + s - 1) // 4096 - a // 4096 + 1
    return min(al, unit), lines, pages, lines > (s + 63) // 64, pages > (s + 4095) // 4096
a, b = funcs(sys.argv[1]), funcs(sys.argv[2])
unit = max(units)
print("unit", unit, file=sys.stderr)
with open("names", "w") as u:  # the functions nm names once in both
    u.write("".join(n + "\n" for n in sorted(set(a) & set(b))))
for n in sorted(set(a) & set(b)):
    ga, gb = geo(*a[n]), geo(*b[n])
    if ga[0] != gb[0]:
        print(n + ",realigned")
    if ga[3:] != gb[3:] or (a[n][1] == b[n][1] and ga[1:3] != gb[1:3]):
        print(n + ",straddle")
PY
[ -s expected ] || fail "nm shows no realigned function between A and B"
"$LACE" diff --csv A B | tail -n +2 | cut -d, -f1,2 | grep -E ',(realigned|straddle)$' |
  grep -Fxf <(sed 's/$/,realigned/; p; s/,realigned$/,straddle/' names) | sort > got
sort expected > want
diff want got >/dev/null || fail "lace vs nm: $(diff want got | head -10 | tr '\n' ' ')"
echo "A -> B: $(grep -c ",realigned$" want) realigned, $(grep -c ",straddle$" want) straddle rows (agree with nm)"
exit 0
