# lace check on the real kprobes pair (issue 24, acceptance 7): the
# kprobes patch gathered the entry code into .entry.text (ALIGN(8)); its
# "without" is entry-in-text, where asm_exc_nmi, entry_SYSCALL_64,
# paranoid_entry and the rest leave the entry text and become probeable.
# The gate fails with noprobe-region errors naming them; declaring the move
# with --expect passes it.  Skipped, saying why, without the kernel builds
# (make check-kernel).
. "$SRC/tests/integration/lib.sh"
K=${LACE_KERNELS:-$BUILD/kernels}
for k in x86_64-entry-align-8 x86_64-entry-in-text; do
  [ -f "$K/$k/vmlinux" ] || skip "no $k/vmlinux in $K: 'make check-kernel' builds the kernels (about 25 min the first time on 2 cores)"
done
base=$K/x86_64-entry-align-8/vmlinux head=$K/x86_64-entry-in-text/vmlinux

expect_exit 1 "$LACE" check --base "$base" --head "$head" --no-measure --json "$T/c.json"
expect_match '^### lace check: FAIL' "$OUT"
for f in asm_exc_nmi entry_SYSCALL_64 paranoid_entry; do
  expect_match "^- \\\\\\[error\\\\\\] noprobe-region: $f: moved out of entry" "$OUT"
done
python3 - "$T/c.json" <<'PY' || fail "noprobe-region findings in the report JSON"
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["diff"]["findings"] if x["rule"] == "noprobe-region"]
assert len(f) >= 12 and all(x["severity"] == "error" for x in f), [(x["subject"], x["severity"]) for x in f]
assert r["decision"] == "fail", r["decision"]
PY

# declared: every noprobe-region finding is expected and the gate passes
expect_exit 0 "$LACE" check --base "$base" --head "$head" --no-measure --expect 'entry=.'
expect_match '^### lace check: PASS' "$OUT"
expect_match '^\| info \(expected\) \| noprobe-region \| `asm_exc_nmi`' "$OUT"
expect_nomatch '^\| error \| noprobe-region' "$OUT"
exit 0
