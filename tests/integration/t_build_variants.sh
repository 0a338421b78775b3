#!/bin/bash
# lace build: every variant of linker_scripts/variants.conf, checked with
# objdump/nm (and again with lace layout): the disabled hash_fault site in
# hash_page_mm is one 5-byte nop; in the -cold variants its jump target and
# the slow path are outside hash_page_mm, inside __lace_cold_text_*; in the
# entry-out variants every .entry.text function lies contiguously between
# the markers, which start on a 4 KiB boundary; in baseline they do not;
# the no-tracepoint build has no site at all.  The manifests' sha256 match
# sha256sum.  The driver runs in every variant, and with LACE_TRACE the
# tracepoint counts every hash fault.
. "$SRC/tests/integration/lib.sh"
command -v objdump >/dev/null || skip "objdump not installed"
command -v python3 >/dev/null || skip "python3 not installed"

out=$T/v
expect_exit 0 "$LACE" build --all --program hashmmu-driver --out "$out"
for v in baseline entry-text entry-out cold-slowpaths entry-out-cold no-tracepoint; do
  [ -x "$out/$v/hashmmu-driver" ] || fail "$v: no driver built"
  [ -f "$out/$v/manifest.json" ] || fail "$v: no manifest"
done

# --- objdump / nm checks ------------------------------------------------
check() { # variant
  local v=$1 bin=$out/$1/hashmmu-driver
  nm -S -n "$bin" > "$T/$v.nm" || fail "$v: nm failed"
  objdump -h "$bin" > "$T/$v.h"
  objdump -s -j __lace_jump_table "$bin" > "$T/$v.jt" 2>/dev/null || : > "$T/$v.jt"
  # the .entry.text functions, from the objects (the link merges sections)
  for o in "$out/$v"/obj/*.o; do objdump -t "$o"; done | awk '$4 == ".entry.text" && $3 == "F" { print $NF }' | sort -u > "$T/$v.entry"
  python3 - "$v" "$T" "$bin" <<'EOF' || exit 1
import re, subprocess, sys
v, T, binpath = sys.argv[1:]
def die(msg):
    print(f"FAIL: {v}: {msg}", file=sys.stderr); sys.exit(1)
syms = {}
funcs = []
for line in open(f"{T}/{v}.nm"):
    p = line.split()
    if len(p) == 4 and p[2] in "Tt":
        a, s, n = int(p[0], 16), int(p[1], 16), p[3]
        syms[n] = (a, s); funcs.append((a, s, n))
    elif len(p) == 3:
        syms.setdefault(p[2], (int(p[0], 16), 0))
entry_funcs = set(open(f"{T}/{v}.entry").read().split())
if not entry_funcs >= {"lace_syscall", "lace_exception_entry"}:
    die(f"entry functions not found in the objects: {entry_funcs}")
# jump table: 16-byte entries {s32 code, s32 target, s64 key}, self-relative
data = bytearray(); base = None
for line in open(f"{T}/{v}.jt"):
    m = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ?){1,4})", line)
    if m:
        if base is None: base = int(m.group(1), 16)
        data += bytes.fromhex(m.group(2).replace(" ", ""))
sites = []
for off in range(0, len(data) - len(data) % 16, 16):
    a = base + off
    code = a + int.from_bytes(data[off:off+4], "little", signed=True)
    target = a + 4 + int.from_bytes(data[off+4:off+8], "little", signed=True)
    sites.append((code, target))
hpm, hpm_size = syms["hash_page_mm"]
in_hpm = [s for s in sites if hpm <= s[0] < hpm + hpm_size]
if v == "no-tracepoint":
    if in_hpm: die("no-tracepoint build still has a site in hash_page_mm")
    if "__trace_hash_fault_slow" in syms: die("no-tracepoint build has the slow path")
    print(f"{v}: no tracepoint site, no slow path"); sys.exit(0)
if len(in_hpm) != 1: die(f"expected one jump-label site in hash_page_mm, found {len(in_hpm)}")
code, target = in_hpm[0]
dis = subprocess.run(["objdump", "-d", f"--start-address={code:#x}", f"--stop-address={code+5:#x}", binpath],
                     capture_output=True, text=True).stdout
insns = [l for l in dis.splitlines() if re.match(r"^\s+[0-9a-f]+:\t", l)]
if len(insns) != 1 or "0f 1f 44 00 00" not in insns[0] or "nop" not in insns[0]:
    die(f"site {code:#x} is not one 5-byte nop: {insns}")
slow = syms["__trace_hash_fault_slow"][0]
cold = v in ("cold-slowpaths", "entry-out-cold")
if cold:
    cs, ce = syms["__lace_cold_text_start"][0], syms["__lace_cold_text_end"][0]
    if hpm <= target < hpm + hpm_size: die("slow-path target inside hash_page_mm")
    if not cs <= target < ce: die(f"target {target:#x} outside the cold region {cs:#x}-{ce:#x}")
    if not cs <= slow < ce: die("__trace_hash_fault_slow outside the cold region")
else:
    if not hpm <= target < hpm + hpm_size: die("baseline-style build: the call block should be hash_page_mm's tail")
    if "__lace_cold_text_start" in syms: die("cold markers in a variant without a cold region")
ef = sorted((a, s, n) for a, s, n in funcs if n in entry_funcs)
lo, hi = ef[0][0], max(a + s for a, s, n in ef)
between = [n for a, s, n in funcs if lo <= a < hi and s > 0 and n not in entry_funcs]
if v.startswith("entry-"):
    es, ee = syms["__entry_text_start"][0], syms["__entry_text_end"][0]
    inside = [n for a, s, n in funcs if es <= a < ee and s > 0]
    others = [n for n in inside if n not in entry_funcs]
    align = 4096 if v.startswith("entry-out") else 8
    if es % align: die(f"__entry_text_start {es:#x} not {align}-byte aligned")
    if others: die(f"non-entry functions between the markers: {others[:5]}")
    if any(not (es <= a and a + s <= ee) for a, s, n in ef): die("an entry function lies outside the markers")
    if v == "entry-text":
        before = [n for a, s, n in funcs if a < es and s > 0]
        if not before: die("entry-text: no ordinary code before the entry text")
    print(f"{v}: entry text {es:#x}-{ee:#x}, {len(ef)} functions, contiguous, {align}-byte aligned")
else:
    if "__entry_text_start" in syms: die("entry markers in a variant without an entry region")
    if not between: die("entry functions are contiguous in a build that should interleave them")
    print(f"{v}: entry functions interleaved with {len(between)} others ({between[:3]})")
print(f"{v}: site {code:#x} nop5, target {target:#x}, slow path {slow:#x}")
EOF
}
for v in baseline entry-text entry-out cold-slowpaths entry-out-cold no-tracepoint; do
  check $v
done

# --- the same facts through lace layout -----------------------------------
if "$LACE" layout --help >/dev/null 2>&1; then
  for v in baseline entry-text entry-out cold-slowpaths entry-out-cold; do
    bin=$out/$v/hashmmu-driver
    "$LACE" layout --json "$bin" > "$T/$v.json" || fail "$v: lace layout failed"
    python3 - "$v" "$T/$v.json" "$T/$v.entry" <<'EOF' || exit 1
import json, sys
v, path, entry_path = sys.argv[1:]
d = json.load(open(path))
entry = set(open(entry_path).read().split())
def die(m):
    print(f"FAIL: lace layout {v}: {m}", file=sys.stderr); sys.exit(1)
j = [x for x in d["jumps"] if x["func_name"] == "hash_page_mm"]
if len(j) != 1: die(f"{len(j)} jump sites in hash_page_mm")
cold = v.endswith("cold") or v == "cold-slowpaths"
if cold and (j[0]["target_region_name"] != "lace_cold" or j[0]["target_func_name"] == "hash_page_mm"):
    die(f"slow path not in the cold region: {j[0]}")
if not cold and j[0]["target_func_name"] != "hash_page_mm":
    die(f"slow path block should be hash_page_mm's tail: {j[0]}")
reg = [r for r in d["regions"] if r["name"] == "entry"]
in_entry = {f["name"] for f in d["functions"] if f["region_name"] == "entry"}
if v.startswith("entry-"):
    if len(reg) != 1: die("no entry region")
    if int(reg[0]["start"], 16) % (4096 if v.startswith("entry-out") else 8): die("entry region misaligned")
    if in_entry != entry: die(f"entry region holds {sorted(in_entry)}, expected {sorted(entry)}")
elif reg:
    die(f"an entry region in a variant without one: {reg[0]}")
print(f"lace layout {v}: ok")
EOF
  done
else
  echo "lace layout not available: checked with objdump/nm only"
fi

# --- manifests ----------------------------------------------------------
for v in baseline cold-slowpaths no-tracepoint; do
  want=$(sha256sum "$out/$v/hashmmu-driver" | cut -d' ' -f1)
  python3 - "$out/$v/manifest.json" "$v" "$want" <<'EOF' || exit 1
import json, sys
m = json.load(open(sys.argv[1])); v, want = sys.argv[2:]
assert (m["schema"], m["schema_version"]) == ("lace-build-manifest", 1), m.get("schema")
o = {x["name"]: x for x in m["outputs"]}
assert m["variant"] == v, m["variant"]
assert m["compiler"].startswith("gcc") or m["compiler"], m["compiler"]
assert isinstance(m["cflags"], list) and m["script"].endswith(".ld"), m
assert o["hashmmu-driver"]["sha256"] == want, (o, want)
assert len(m["script_sha256"]) == 64
EOF
  [ $? -eq 0 ] || fail "$v: manifest wrong"
done
grep -q -- '-DLACE_SLOWPATH_COLD' "$out/cold-slowpaths/manifest.json" || fail "cold flags not in the manifest"

# --- the driver runs; the tracepoint counts every fault -------------------
for v in baseline entry-out-cold; do
  r=$(LACE_TRACE=hash_fault "$out/$v/hashmmu-driver" --pages 32 --rounds 3 --old) || fail "$v: driver failed"
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["faults"] > 0 and d["hash_fault_hits"] == d["faults"], d' "$r" \
    || fail "$v: tracepoint hits differ from faults: $r"
done
r=$("$out/no-tracepoint/hashmmu-driver" --pages 8 --rounds 2) || fail "no-tracepoint driver failed"
expect_match '"hash_fault_hits": -1' "$r"
exit 0
