# lace layout on a linked x86-64 fixture whose layout is known: chosen
# alignments, a line and a page straddle, the merged cold run, a
# marker-bounded entry region with irqentry nested inside, a relative jump
# table, an SDT probe, DWARF file:line.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not installed"
FX=$("$SRC/tests/fixtures/layout/build.sh") || fail "fixture build failed"
X=$FX/layout_x86

expect_exit 0 "$LACE" layout --csv "$X"
CSV=$OUT
expect_match '^name,address,size,region,alignment,lines,pages' "$(printf '%s\n' "$CSV" | head -n 1)"
# row NAME -> "region,alignment,lines,pages,pad,straddles_line,straddles_page"
row() { printf '%s\n' "$CSV" | awk -F, -v n="$1" '$1 == n { print $4","$5","$6","$7","$9","$10 }'; }
align() { printf '%s\n' "$CSV" | awk -F, -v n="$1" '$1 == n { print $5 }'; }
a64=$(align fx_align64)
[ $((a64 % 64)) -eq 0 ] || fail "fx_align64 alignment $a64"
expect_eq "$(row fx_align64 | cut -d, -f1,3,5)" ".text,1,0" "fx_align64 region,lines,straddle"
expect_eq "$(row fx_align16)" ".text,16,2,1,1,0" "fx_align16"
expect_eq "$(row fx_align32)" ".text,32,1,1,0,0" "fx_align32"
expect_eq "$(row fx_straddle | cut -d, -f1,3,4,5,6)" ".text,4,2,0,1" "fx_straddle lines,pages,straddles"
expect_eq "$(row fx_hot.cold | cut -d, -f1)" "cold" "fx_hot.cold region"
expect_eq "$(row fx_entry_a | cut -d, -f1)" "entry" "fx_entry_a region"
expect_eq "$(row fx_irq_a | cut -d, -f1)" "irqentry" "fx_irq_a region"
expect_eq "$(row fx_entry_b | cut -d, -f1)" "entry" "fx_entry_b region"
# addresses agree with nm
for f in fx_align64 fx_straddle fx_hot fx_entry_a; do
  want=$(nm "$X" | awk -v n="$f" '$3 == n { print "0x" $1 }' | sed 's/0x0*/0x/')
  got=$(printf '%s\n' "$CSV" | awk -F, -v n="$f" '$1 == n { print $2 }')
  expect_eq "$got" "$want" "$f address vs nm"
done
# markers are not functions
expect_nomatch '^__entry_text_start,' "$CSV"

# JSON: the same facts from the whole model
expect_exit 0 "$LACE" layout --json "$X"
printf '%s\n' "$OUT" > "$T/x.json"
python3 - "$T/x.json" "$X" <<'PY' || fail "JSON check failed"
import json, subprocess, sys
m = json.load(open(sys.argv[1]))
nm = {l.split()[2]: int(l.split()[0], 16) for l in subprocess.check_output(["nm", sys.argv[2]], text=True).splitlines() if len(l.split()) == 3}
regions = {r["name"]: r for r in m["regions"]}
funcs = {f["name"]: f for f in m["functions"]}
e = regions["entry"]
assert int(e["start"], 16) == nm["__entry_text_start"] and int(e["end"], 16) == nm["__entry_text_end"], e
assert e["kind"] == "marker" and e["nfuncs"] == 2, e
i = regions["irqentry"]
assert m["regions"][i["parent"]]["name"] == "entry", i
c = regions["cold"]
assert c["kind"] == "cold" and int(c["start"], 16) == nm["fx_hot.cold"], c
# cold pieces joined to their parents
assert funcs["fx_hot.cold"]["parent_name"] == "fx_hot" and funcs["fx_hot.cold"]["suffix"] == "cold"
assert funcs["fx_helper.part.0.cold"]["parent_name"] == "fx_helper.part.0"
assert funcs["fx_helper.part.0"]["parent_name"] == "fx_helper" and funcs["fx_helper.part.0"]["base_name"] == "fx_helper"
# every function in exactly one region
assert sum(r["nfuncs"] for r in m["regions"]) == len(m["functions"])
# jump table: two relative entries, decoded and resolved
j = m["jumps"]
assert len(j) == 2, j
assert int(j[0]["code"], 16) == nm["fx_hot"] + 13 and j[0]["func_name"] == "fx_hot", j[0]
assert int(j[0]["target"], 16) == nm["fx_hot.cold"] and j[0]["target_region_name"] == "cold", j[0]
assert j[0]["key_symbol"] == "fx_key" and j[0]["key_flags"] == 0 and j[0]["table"] == "__lace_jump_table", j[0]
assert j[1]["key_symbol"] == "fx_key2" and j[1]["key_flags"] == 1 and j[1]["target_func_name"] == "fx_helper", j[1]
assert j[1]["distance"] == nm["fx_helper"] - nm["fx_entry_b"], j[1]
# the SDT probe
p = m["probes"]
assert len(p) == 1 and p[0]["provider"] == "lacefix" and p[0]["name"] == "hit" and p[0]["func_name"] == "fx_probed", p
# DWARF: C functions have file:line, assembly ones none
assert funcs["fx_probed"]["src_file"].endswith("probe.c") and funcs["fx_probed"]["src_line"] == 6, funcs["fx_probed"]
assert funcs["main"]["src_line"] == 12
assert funcs["fx_align64"]["src_file"] is None
PY

# the probe address is the one readelf reports
loc=$(readelf -n "$X" | awk '/Name: hit/ {f=1} f && /Location:/ {sub(",", "", $2); print $2; exit}')
expect_exit 0 "$LACE" layout --probes --csv "$X"
expect_eq "$(printf '%s\n' "$OUT" | awk -F, 'NR==2 {print $3}')" "$(printf '0x%x' "$loc")" "probe pc vs readelf -n"

# --no-dwarf drops file:line; the text report names every table
expect_exit 0 "$LACE" layout --no-dwarf --json --functions "$X"
expect_nomatch 'probe\.c' "$OUT"
expect_exit 0 "$LACE" layout "$X"
for h in '^Sections:' '^Regions:' '^Functions:' '^Jump-label sites:' '^SDT probes:'; do
  expect_match "$h" "$OUT"
done
# geometry options change the answer: with 4 KiB "lines" fx_straddle spans 2
expect_exit 0 "$LACE" layout --csv --line 4096 "$X"
expect_eq "$(printf '%s\n' "$OUT" | awk -F, '$1 == "fx_straddle" { print $6","$9 }')" "2,1" "fx_straddle lines at 4096 B"
expect_exit 2 "$LACE" layout --line 48 "$X"
expect_one_line "$ERR"
expect_exit 2 "$LACE" layout --json --csv "$X"
expect_exit 2 "$LACE" layout --bogus "$X"
expect_one_line "$ERR"
exit 0
