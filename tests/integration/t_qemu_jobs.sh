# lace stat/ab -j N with --backend qemu (issue 26, item 1): each boot is
# forked into a process of its own and runs beside the others, and the
# results are those of -j 1, run for run, in the same order:
#  - lace stat -r 2 --warmup 1 --qemu-perturb 1 (three different
#    executions): the results files of -j 1 and -j 2 hold the same runs;
#  - lace ab with a seed: the same rounds, sides and counts, and A and B
#    each boot their own workload (one initramfs per side, built before
#    the boots are forked);
#  - --stop-on-error: the run after a failed one is stopped, not recorded
#    (with -j 1 it would not have run);
#  - SIGINT ends both boots under way at once, recorded as interrupted;
#  - -j 2 on hardware counters says in one line that they run one at a
#    time.
# Boots Debian's x86-64 kernel from lace's cache (lib.sh's qemu_guest),
# fetched when missing: skipped, saying so, when that fails.
# timeout: 400
. "$SRC/tests/integration/lib.sh"
need_qemu_x86
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
qemu_guest
cd "$T" || exit 1
cc -static -O1 -o spin "$SRC/tests/fixtures/qemu/spin.c" || fail "cannot build spin (static libc?)"
printf 'int main(int c, char **v) { return c > 1 ? v[1][0] - 48 : 0; }\n' > status.c
cc -static -O1 -o status status.c || fail "cannot build status"
EV=instructions:u,instructions:k,L1-icache-load-misses:k

same_runs() { # FILE1 FILE2 WHAT: the runs of two results files are the same
  python3 - "$1" "$2" "$3" <<'PY' || fail "$3: -j 2 differs from -j 1"
import json, sys
def runs(path):
    out = []
    for line in open(path):
        o = json.loads(line)
        if "counts" in o:
            out.append((o["run"], o["round"], o.get("side"), o["warmup"], o["fault"],
                        [c["value"] for c in o["counts"]]))
    return out
a, b = runs(sys.argv[1]), runs(sys.argv[2])
assert a and a == b, "\n%s\n%s" % (a, b)
assert all(r[4] == "ok" for r in a), a
print("%s: %d runs the same, counts %s" % (sys.argv[3], len(a), [r[5][1] for r in a]))
PY
}

for j in 1 2; do
  "$LACE" stat --backend qemu -r 2 --warmup 1 --qemu-perturb 1 -j $j --results stat$j.jsonl \
    -e $EV -- ./spin > stat$j.out 2> stat$j.err || fail "stat -j $j: $(tail -3 stat$j.err)"
done
same_runs stat1.jsonl stat2.jsonl "lace stat"
# three perturbations are three executions: the kernel counts differ
python3 - stat1.jsonl <<'PY' || fail "--qemu-perturb boots counted the same kernel instructions"
import json, sys
k = {json.loads(l)["counts"][1]["value"] for l in open(sys.argv[1]) if '"counts"' in l}
assert len(k) == 3, k
PY

for j in 1 2; do
  "$LACE" ab --backend qemu -r 2 --warmup 0 --seed 7 -j $j --results ab$j.jsonl -e $EV \
    -A "./spin" -B "./spin 2" > ab$j.out 2> ab$j.err || fail "ab -j $j: $(tail -3 ab$j.err)"
done
same_runs ab1.jsonl ab2.jsonl "lace ab"
# each side ran its own command line (the guest's command line differs,
# so its execution does): A and B did not boot one initramfs, and each
# run names its initramfs by SHA-256, which every batch of the same
# inputs shares (the archive is byte-reproducible): lace stat's two and
# lace ab's A
python3 - ab2.jsonl ab1.jsonl stat1.jsonl stat2.jsonl <<'PY' || fail "lace ab -j 2: A and B counted the same boot"
import json, re, sys
def runs(path):
    return [json.loads(l) for l in open(path) if '"counts"' in l]
ab = runs(sys.argv[1])
k = [r["counts"][1]["value"] for r in ab]
assert len(k) == 4 and k[0] != k[1], k
sha = {r["side"]: r["backend_data"]["initramfs_sha256"] for r in ab}
assert all(re.fullmatch(r"[0-9a-f]{64}", v) for v in sha.values()) and sha["A"] != sha["B"], sha
assert sha == {r["side"]: r["backend_data"]["initramfs_sha256"] for r in runs(sys.argv[2])}, "ab -j 1"
st = {r["backend_data"]["initramfs_sha256"] for f in sys.argv[3:] for r in runs(f)}
# lace stat -- ./spin booted what ab's A (-A ./spin) booted
assert st == {sha["A"]}, (st, sha)
print("initramfs: A %s... (lace stat's too, in both batches), B %s..." % (sha["A"][:12], sha["B"][:12]))
PY

# the first run fails; the second, under way beside it, is not recorded
"$LACE" stat --backend qemu -r 2 -j 2 --stop-on-error --results stop.jsonl -e instructions:u \
  -- ./status 3 > stop.out 2> stop.err && fail "a failing workload passed"
n=$(grep -c '"counts"' stop.jsonl)
expect_eq "$n" 1 "runs recorded after --stop-on-error"
grep -q '"fault":"exit"' stop.jsonl || fail "the failed run is not an exit fault: $(cat stop.jsonl)"

# a signal ends the boots under way at once (each child's runner kills
# its QEMU), not when they would have ended: both runs come back
# interrupted with nothing counted (a TCG boot takes seconds; this one is
# a second in), and no QEMU of this test is left
mkdir sigtmp
TMPDIR=$T/sigtmp "$LACE" stat --backend qemu -r 4 -j 2 --results sig.jsonl -e instructions:u \
  -- ./spin > sig.out 2> sig.err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
expect_eq "$?" 130 "lace stat -j 2's exit status after SIGINT"
python3 - sig.jsonl <<'PY' || fail "SIGINT under -j 2: $(cat sig.jsonl)"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if '"counts"' in l]
assert len(runs) == 2, runs
assert all(r["fault"] == "interrupted" and r["counts"][0]["value"] is None for r in runs), runs
PY
# (QEMU's command line names the batch's folder, under TMPDIR)
pgrep -f "qemu-system.*$T/sigtmp" >/dev/null && fail "a QEMU of this test outlived lace"

# hardware counters: one at a time, said once
"$LACE" stat -j 2 -r 2 -e task-clock --no-results true > hw.out 2> hw.err || fail "stat -j 2 on hw failed: $(cat hw.err)"
grep -q "^lace: warning: -j 2: runs on hardware counters are one at a time" hw.err ||
  fail "no one-line warning for -j 2 on hardware counters: $(cat hw.err)"
exit 0
