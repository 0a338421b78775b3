# lace ab --backend qemu: each side boots its own kernel (--kernel-a /
# --kernel-b) with the command after --, or runs its own -A/-B command
# split into words (the guest has no host shell).  Counts under -icount
# are deterministic, so ab gives their exact B/A and no verdict, and
# elapsed (QEMU's time to emulate) is a cost, not a verdict.  On the
# Debian ppc64le guest: touching 2N pages against N gives more user and
# kernel instructions on B, sd 0 on both sides; `lace ab -- CMD` runs CMD
# on both; --kernel-b is refused by lace stat.
# The guest is fetched when missing (lib.sh's qemu_guest); skipped,
# saying so, without QEMU or the cross compiler, or when that fails.
# timeout: 300
. "$SRC/tests/integration/lib.sh"
ppc_guest
k=$ppc_vmlinux m=$ppc_map
cd "$T" || exit 1
powerpc64le-linux-gnu-gcc -static -O2 -o touch "$SRC/tests/fixtures/qemu/ppc_touch.c" ||
  fail "cross cc -static touch"

# each side boots "its" kernel (the same file: the plumbing is what is
# tested; t_kernel_build compares two) and runs its -A/-B command, split
# into words for the guest
"$LACE" ab --backend qemu --kernel-a "$k" --system-map-a "$m" --kernel-b "$k" --system-map-b "$m" \
  -e instructions:k,instructions:u -r 2 --no-results --json -A "./touch 64" -B "./touch 128" \
  > ab.json 2> ab.err || fail "ab -A/-B: $(tail -3 ab.err)"
python3 - <<'PY' > summary.txt || fail "-A/-B: $(cat summary.txt)"
import json
d = json.load(open("ab.json"))
evs = {e["name"]: e for e in d["events"]}
for n in ("instructions:k", "instructions:u"):
    e = evs[n]
    # deterministic: the same count every round, exact B/A, no verdict
    assert e["b_mean"] > e["a_mean"] > 0 and e["deterministic"], e
    assert e["a_stddev"] == 0 and e["b_stddev"] == 0, e
# elapsed is the host's time to emulate (boots included): a cost per
# round, no CI, no verdict, no "more rounds" (issue 24, item 4)
el = d["elapsed"]
assert el["cost"] is True and el["verdict"] == "undecided" and "rounds_needed" not in el, el
assert el["ci_low"] is None and el["p_holm"] is None and el["a_mean"] > 0 and el["b_mean"] > 0, el
assert d["elapsed_source"] == "simulator", d["elapsed_source"]
print("64 -> 128 pages: instructions:k %d -> %d, instructions:u %d -> %d" % (
    evs["instructions:k"]["a_mean"], evs["instructions:k"]["b_mean"],
    evs["instructions:u"]["a_mean"], evs["instructions:u"]["b_mean"]))
PY
echo "$(cat summary.txt)"

# the same command on both sides: lace ab -- CMD (an A/A run; parsing only
# here, --pre fails the run before any boot)
"$LACE" ab --backend qemu --kernel "$k" --system-map "$m" -e instructions:u -r 2 --no-results \
  --pre false -- ./touch 1 > aa.out 2> aa.err && fail "a failing --pre passed"
grep -q "A: ./touch 1" aa.out || fail "ab -- CMD did not run CMD on both sides: $(head -5 aa.out)"

# --qemu-perturb counts boots per side: round k's A and B share
# perturbation k, so an A/A run pairs equal counts in every round while
# the rounds themselves differ (other executions)
"$LACE" ab --backend qemu --kernel "$k" --system-map "$m" -e instructions:k -r 3 --warmup 0 \
  --qemu-perturb 1 --no-results --json -- ./touch 8 > pa.json 2> pa.err || fail "ab --qemu-perturb: $(tail -3 pa.err)"
python3 - pa.json <<'PY' || fail "perturbed A/A rounds are not paired"
import json, sys
d = json.load(open(sys.argv[1]))
e = [x for x in d["events"] if x["name"] == "instructions:k"][0]
assert e["ratio"] == 1 and e["a_mean"] == e["b_mean"] and e["a_stddev"] > 0, e
print("perturbed A/A: instructions:k mean %.0f, sd %.0f across rounds, B/A exactly %g"
      % (e["a_mean"], e["a_stddev"], e["ratio"]))
PY

"$LACE" stat --backend qemu --kernel-b "$k" -- ./touch 1 > /dev/null 2> stat.err &&
  fail "lace stat accepted --kernel-b"
grep -q "is for lace ab" stat.err || fail "no clear error: $(cat stat.err)"
exit 0
