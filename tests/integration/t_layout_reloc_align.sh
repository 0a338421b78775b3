# In a relocatable object lace picks each section's address, aligned to the
# section's sh_addralign and no more; the linker promises a function no
# more than that either.  So a function's alignment is that of its offset
# in the section, capped at sh_addralign: the first function of a 16-aligned
# .text is 16-aligned, not 4096 (btrfs.ko reported half its .text at 32 to
# 4096).  With -ffunction-sections every function is its own section.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not installed"
cat >"$T/a.c" <<'C'
int ra_a(int x) { return x * 3 + 1; }
int ra_b(int x) { return ra_a(x) ^ 5; }
int ra_c(int x) { return ra_b(x) - ra_a(x + 1); }
int ra_d(int x) { return ra_c(x) * ra_b(x); }
int ra_e(int x) { return ra_d(x) + 7; }
__attribute__((aligned(64), section(".text.big"))) int ra_f(int x) { return ra_e(x) | 1; }
C
check() {
  expect_exit 0 "$LACE" layout --json --no-dwarf "$1"
  printf '%s\n' "$OUT" > "$T/l.json"
  python3 - "$T/l.json" "$1" <<'PY' || fail "$2: alignment check failed"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["relocatable"] is True
secs = m["sections"]
fs = m["functions"]
assert len(fs) == 6, [f["name"] for f in fs]
for f in fs:
    s = secs[f["section"]]
    off = int(f["address"], 16) - int(s["address"], 16)
    want = s["alignment"]
    while want > 1 and off % want:
        want //= 2
    assert f["alignment"] == want, (sys.argv[2], f["name"], off, s["alignment"], f["alignment"])
    assert f["alignment"] <= s["alignment"], (f["name"], s)
# ra_f asked for 64 and gets it: its own section is 64-aligned, at offset 0
# where the section's alignment is the cap; .text stays 16-aligned
f = {x["name"]: x for x in fs}
assert f["ra_f"]["alignment"] == 64, f["ra_f"]
assert secs[f["ra_a"]["section"]]["alignment"] == 16, secs[f["ra_a"]["section"]]
PY
}
gcc -O2 -falign-functions=16 -c -o "$T/a.o" "$T/a.c" || fail "gcc failed"
check "$T/a.o" "one .text"
# the 16-aligned first function in .text: 16, though lace put .text at 0
expect_exit 0 "$LACE" layout --csv --no-dwarf "$T/a.o"
expect_match '^ra_a,0x0,[0-9]+,\.text,16,' "$OUT"
gcc -O2 -falign-functions=16 -ffunction-sections -c -o "$T/fs.o" "$T/a.c" || fail "gcc failed"
check "$T/fs.o" "-ffunction-sections"
expect_exit 0 "$LACE" layout --csv --no-dwarf "$T/fs.o"
expect_match '^ra_b,0x[0-9a-f]+,[0-9]+,\.text\.ra_b,16,' "$OUT"
exit 0
