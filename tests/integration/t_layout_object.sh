# lace layout on a relocatable .o: allocated sections get distinct
# addresses, symbols move with their section, and the jump table is read
# with its relocations applied, so its targets land in the right section.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not installed"
FX=$("$SRC/tests/fixtures/layout/build.sh") || fail "fixture build failed"
O=$FX/layout_x86.o

expect_exit 0 "$LACE" layout --json "$O"
printf '%s\n' "$OUT" > "$T/o.json"
python3 - "$T/o.json" <<'PY' || fail "JSON check failed"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["relocatable"] is True
secs = [s for s in m["sections"] if s["alloc"]]
spans = sorted((int(s["address"], 16), int(s["address"], 16) + max(s["size"], 1), s["name"]) for s in secs)
for a, b in zip(spans, spans[1:]):
    assert a[1] <= b[0], ("overlap", a, b)
addr = {s["name"]: int(s["address"], 16) for s in secs}
f = {x["name"]: x for x in m["functions"]}
assert len(m["functions"]) == 13, len(m["functions"])
# .text.unlikely is its own section here: a section region, no cold run
cold = f["fx_hot.cold"]
assert m["regions"][cold["region"]]["name"] == ".text.unlikely", cold
assert int(cold["address"], 16) == addr[".text.unlikely"]
assert all(r["kind"] != "cold" for r in m["regions"])
assert m["regions"][f["fx_irq_a"]["region"]]["name"] == "irqentry"
# fx_align64 is 64-aligned inside .text, the section starts 4096-aligned
assert int(f["fx_align64"]["address"], 16) % 64 == 0
j = m["jumps"]
assert len(j) == 2
assert int(j[0]["target"], 16) == int(cold["address"], 16), j[0]
assert j[0]["target_region_name"] == ".text.unlikely" and j[0]["func_name"] == "fx_hot", j[0]
assert int(j[0]["code"], 16) == int(f["fx_hot"]["address"], 16) + 13, j[0]
assert j[0]["key_symbol"] == "fx_key" and j[1]["key_symbol"] == "fx_key2" and j[1]["key_flags"] == 1, j
PY
# relocated contents: branches across sections reach their real targets
expect_exit 0 "$LACE" layout --branches --csv --no-dwarf "$O"
B=$OUT
cold=$(printf '%s\n' "$B" | awk -F, '$4 == "fx_hot" && $3 == "cond" { print $5","$7 }')
expect_eq "$cold" ".text.unlikely,fx_hot.cold" "fx_hot's jne into .text.unlikely"
back=$(printf '%s\n' "$B" | awk -F, '$4 == "fx_hot.cold" && $3 == "jump" { print $5","$7 }')
expect_eq "$back" ".text,fx_hot" "fx_hot.cold's jmp back"
# the SDT note of a .o, relocated to its function
expect_exit 0 "$LACE" layout --probes --csv --no-dwarf "$FX/probe.o"
expect_match '^lacefix,hit,0x[0-9a-f]+,fx_probed,' "$OUT"

# DWARF of a .o, relocated (libdwfl) and moved to lace's section addresses:
# functions in two sections (.text, .text.startup) get their file:line
expect_exit 0 "$LACE" layout --csv "$FX/probe.o"
expect_eq "$ERR" "" "no warning"
expect_match '^fx_probed,0x0,[0-9]+,\.text,.*probe\.c,6,' "$OUT"
expect_match '^main,0x[0-9a-f]+,[0-9]+,\.text\.startup,.*probe\.c,12,' "$OUT"
exit 0
