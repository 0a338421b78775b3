# Issue 26, acceptance item 7: lace's path length of __hash_page_64K and
# hash_page_mm (--path-length, the calls no interrupt landed in) equals an
# independent count: QEMU's gdbstub (qemu-system-ppc64 -S -gdb) driven by
# gdb-multiarch single-steps a few calls of each from the local entry
# until the pc reaches the return address the call left in LR.  QEMU's
# stub masks interrupts and timers while it steps (its default sstep
# flags), so a stepped call is an uninterrupted one.
#
# Two things make gdb's own `stepi` miscount, so the steps are sent as raw
# gdbstub packets (`maint packet s`, the pc read back with `p40`):
# - gdb steps over a whole ldarx...stdcx. sequence as one step (it must on
#   hardware, where a trap between them loses the reservation):
#   __hash_page_64K's PTE update hides three instructions that way;
# - QEMU ends a block at a priority hint (`or 2,2,2`, HMT_MEDIUM in
#   plpar_hcall) with a pause, and the step then runs the next instruction
#   too: a step from a non-branch instruction that lands 8 bytes on ran two.
# Without these, stepi counts 302 for __hash_page_64K where 306
# instructions run (doc/events.md).  The test also steps one call with
# gdb's own stepi and requires its count to be what each raw-stepped
# call's trace predicts for it (steps, less the instructions after each
# load-and-reserve up to its store-conditional): the issue's 302 is
# reproduced and accounted for, not just set aside.
#
# The guest: Debian's ppc64le kernel from lace's cache (lib.sh's
# ppc_guest) with a workload touching 32 fresh 64 KiB pages as /init;
# gdb waits for its main before counting (the boot's own calls take other
# paths).  Skipped, saying which, without qemu-system-ppc64, gdb-multiarch,
# the fetched kernel, or the cross compiler for the workload.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
command -v gdb-multiarch >/dev/null || skip "gdb-multiarch not installed"
command -v powerpc64le-linux-gnu-gcc >/dev/null || skip "powerpc64le-linux-gnu-gcc not installed"
ppc_guest
cd "$T" || exit 1

N=32        # fresh pages: one hash fault and one preload each
CALLS=12    # calls stepped per function
powerpc64le-linux-gnu-gcc -static -O2 -o touch "$SRC/tests/fixtures/qemu/ppc_touch.c" ||
  fail "cross cc -static touch"

# lace's reading
"$LACE" stat --backend qemu --kernel "$ppc_vmlinux" --system-map "$ppc_map" \
  -e instructions:k --path-length __hash_page_64K,hash_page_mm -r 1 --no-results --json \
  -- ./touch $N > lace.json 2> lace.err || fail "lace stat: $(tail -3 lace.err)"

# the single-step count, on a guest of its own (QEMU's machine as lace runs it)
mkcpio touch touch.cpio
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
main=$(readelf -sW touch | awk '$NF == "main" { print $2 }')
[ -n "$main" ] || fail "no main in touch"
sym() { awk -v f="$1" '$3 == f { print $1 }' "$ppc_map"; }
qemu-system-ppc64 -accel tcg -smp 1 -display none -monitor none -no-reboot \
  -icount shift=0,sleep=off -rtc base=2020-01-01T00:00:00,clock=vm \
  -M pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
  -cpu POWER8 -m 1024 -serial file:console.txt -kernel "$ppc_vmlinux" -initrd touch.cpio \
  -append "console=hvc0 quiet panic=-1 mitigations=off -- $N" \
  -gdb "tcp:127.0.0.1:$port" -S > qemu.log 2>&1 &
qpid=$!
trap 'kill $qpid 2>/dev/null; wait $qpid 2>/dev/null' EXIT

cat > step.py <<'PY'
import collections, gdb, json, os, re

def raw(pkt):
    out = gdb.execute("maint packet " + pkt, to_string=True)
    return re.search(r'received: "(.*)"', out).group(1)

def pc():   # register 64 of QEMU's ppc64 stub, little-endian
    return int.from_bytes(bytes.fromhex(raw("p40")), "little")

def insn(addr):
    return int.from_bytes(bytes(gdb.selected_inferior().read_memory(addr, 4)), "little")

def file_insn(path, addr):   # from the vmlinux: the guest cannot read the kernel from user mode
    import struct
    with open(path, "rb") as f:
        h = f.read(64)
        phoff, phentsize, phnum = struct.unpack_from("<Q", h, 32)[0], *struct.unpack_from("<HH", h, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            typ, _, off, va, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
            if typ == 1 and va <= addr < va + filesz:
                f.seek(off + addr - va)
                return int.from_bytes(f.read(4), "little")
    raise ValueError("0x%x not in %s" % (addr, path))

gdb.execute("set pagination off")
gdb.execute("target remote 127.0.0.1:" + os.environ["PORT"])
# a pointer call enters main at its global entry, a direct one 8 bytes in
gdb.execute("break *0x" + os.environ["MAIN"])
gdb.execute("break *0x%x" % (int(os.environ["MAIN"], 16) + 8))
gdb.execute("continue", to_string=True)
gdb.execute("delete")
fns = {}
for name in ("__hash_page_64K", "hash_page_mm"):
    a = int(os.environ["ADDR_" + name], 16)
    # the local entry, after the TOC set-up (addis r2,r12; addi r2,r2)
    k = os.environ["VMLINUX"]
    if file_insn(k, a) >> 16 == 0x3c4c and file_insn(k, a + 4) >> 16 == 0x3842:
        a += 8
    gdb.execute("break *0x%x" % a)
    fns[a] = name
want = int(os.environ["CALLS"])
got = collections.defaultdict(list)
model = collections.defaultdict(list)   # gdb stepi's count, from the trace
fixed = 0
while min(len(got[n]) for n in fns.values()) < want:
    try:
        gdb.execute("continue", to_string=True)
        entry = int(gdb.parse_and_eval("$pc")) & (2**64 - 1)
        ret = int(gdb.parse_and_eval("$lr")) & (2**64 - 1)
    except gdb.error:
        break   # the workload ended first
    name = fns[entry]
    n, here, steps, trace = 0, entry, 0, []
    while here != ret:   # gdb's breakpoints are out while it is stopped
        word = insn(here)
        trace.append(word)
        raw("s")
        nxt = pc()
        n += 1
        steps += 1
        # a non-branch (primary opcode not 16-19) that moved 8 bytes ran two
        if nxt == here + 8 and not 16 <= word >> 26 <= 19:
            n += 1
            fixed += 1
        here = nxt
    gdb.execute("maintenance flush register-cache")
    # what gdb's stepi would have counted for this call: its steps, less
    # the instructions after each load-and-reserve up to its store-
    # conditional, which gdb covers with one step (ppc_deal_with_atomic_
    # sequence); X-form extended opcodes: l[bhwd]arx 52/116/20/84,
    # st[bhwd]cx. 694/726/150/214
    hidden, i = 0, 0
    while i < len(trace):
        w = trace[i]
        if w >> 26 == 31 and (w >> 1) & 0x3ff in (52, 116, 20, 84):
            j = i + 1
            while j < len(trace) and not (trace[j] >> 26 == 31 and (trace[j] >> 1) & 0x3ff in (694, 726, 150, 214)):
                j += 1
            hidden += min(j, len(trace) - 1) - i
            i = j
        i += 1
    if len(got[name]) < want:
        got[name].append(n)
        model[name].append(steps - hidden)
# for the record, one more call counted by gdb's own stepi (the number
# that misleads: see above)
stepi = None
try:
    while True:
        gdb.execute("continue", to_string=True)
        if fns[int(gdb.parse_and_eval("$pc")) & (2**64 - 1)] == "__hash_page_64K":
            break
    ret = int(gdb.parse_and_eval("$lr")) & (2**64 - 1)
    gdb.execute("delete")
    stepi = 0
    while int(gdb.parse_and_eval("$pc")) & (2**64 - 1) != ret:
        gdb.execute("stepi", to_string=True)
        stepi += 1
except gdb.error:
    pass
json.dump({"calls": got, "two_instruction_steps": fixed, "stepi": stepi, "stepi_model": model},
          open("gdb.json", "w"))
gdb.execute("kill")
PY
PORT=$port MAIN=$main VMLINUX=$ppc_vmlinux CALLS=$CALLS ADDR___hash_page_64K=$(sym __hash_page_64K) \
  ADDR_hash_page_mm=$(sym hash_page_mm) timeout 240 gdb-multiarch -q -batch -nx \
  -ex "set architecture powerpc:common64" -ex "set endian little" -x step.py > gdb.out 2>&1 ||
  fail "gdb-multiarch: $(grep -v '^0x' gdb.out | tail -5)"
[ -s gdb.json ] || fail "gdb stepped nothing: $(grep -v '^0x' gdb.out | tail -5)"

python3 - > summary.txt <<'PY' || fail "$(cat summary.txt)"
import collections, json
lace = {p["name"]: p for p in json.load(open("lace.json"))["backend_data"][0]["paths"]}
g = json.load(open("gdb.json"))
print("single steps whose instruction ran two: %d; one more __hash_page_64K call by gdb's "
      "stepi: %s steps (not instructions)" % (g["two_instruction_steps"], g["stepi"]))
bad = []
for name in ("__hash_page_64K", "hash_page_mm"):
    p, steps = lace[name], g["calls"].get(name, [])
    c = collections.Counter(steps)
    mode = max(sorted(c), key=lambda k: c[k]) if c else None
    dist = {l["instructions"]: l["calls"] for l in p["lengths"]}
    print("%s: lace path length %s (uninterrupted %s calls: min %s median %s mode %s max %s; "
          "%s interrupted of %s), mean %.1f; gdb single-step %s over %d calls: %s"
          % (name, p["path_length"], p["uninterrupted"]["calls"], p["uninterrupted"]["min"],
             p["uninterrupted"]["median"], p["uninterrupted"]["mode"], p["uninterrupted"]["max"],
             p["interrupted_calls"], p["calls"], p["per_call"], mode, len(steps), dict(c)))
    if mode is None or p["path_length"] != mode:
        bad.append("%s: lace %s, single step %s" % (name, p["path_length"], mode))
    # every length the debugger saw is one lace saw (the runs differ in
    # which calls take which path, not in the paths)
    for s in c:
        if s not in dist:
            bad.append("%s: single step counted %d, which lace never saw (%s)" % (name, s, dist))
# gdb's own stepi, the count the issue quoted (302), is explained call
# for call: the calls stepped instruction by instruction would have been
# that many stepi steps, and the one call gdb stepped itself was
m = collections.Counter(g["stepi_model"].get("__hash_page_64K", []))
print("__hash_page_64K as gdb's stepi counts it: %s (the stepped calls' traces: %s); lace %s = "
      "stepi + the instructions stepi covers in one step + the second instruction of a "
      "two-instruction step" % (g["stepi"], dict(m), lace["__hash_page_64K"]["path_length"]))
if g["stepi"] is None or g["stepi"] not in m:
    bad.append("gdb stepi counted %s, which no stepped call's trace explains (%s)" % (g["stepi"], dict(m)))
assert not bad, "; ".join(bad)
PY
cat summary.txt
exit 0
