# Processes and threads under the simulator: exec'ed programs are counted
# (each process image writes its own result, the image before an exec
# included), threads are counted, -i counts only the first image, and the
# results file keeps one entry per process image.
. "$SRC/tests/integration/lib.sh"
need_vg
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
cc -O1 -o footprint "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"
cc -O1 -pthread -o threads "$SRC/tests/fixtures/sim/threads.c" || fail "cannot build threads"

insns() { # results.jsonl: instructions of the first run, and its process list
  python3 - "$1" <<'PY'
import json, sys
run = [json.loads(l) for l in open(sys.argv[1]) if '"procs"' in l][0]
print(int(run["procs"] and sum(p["values"][0] for p in run["procs"])), len(run["procs"]))
PY
}

# footprint alone
expect_exit 0 "$LACE" stat --backend sim --results one.jsonl -e instructions -- ./footprint 30
read -r one n1 <<<"$(insns one.jsonl)"
expect_eq "$n1" 1 "processes of footprint"

# the same program behind a shell that forks and execs it twice
expect_exit 0 "$LACE" stat --backend sim --results sh.jsonl -e instructions -- \
  /bin/sh -c './footprint 30; ./footprint 30'
read -r both nsh <<<"$(insns sh.jsonl)"
[ "$nsh" -ge 3 ] || fail "shell + 2 exec'ed programs: $nsh process images"
[ "$both" -gt $((2 * one)) ] || fail "exec'ed programs not counted: $both instructions, one run of footprint is $one"
python3 - sh.jsonl <<'PY' || fail "no image ended in exec"
import json, sys
run = [json.loads(l) for l in open(sys.argv[1]) if '"procs"' in l][0]
ends = [p["end"] for p in run["backend_data"]["processes"]]
print("process images:", [(p["pid"], p["image"], p["exe"].split("/")[-1], p["end"]) for p in run["backend_data"]["processes"]])
sys.exit("exec" not in ends)
PY

# -i: the first image only (valgrind does not follow children)
expect_exit 0 "$LACE" stat --backend sim -i --results shi.jsonl -e instructions -- \
  /bin/sh -c './footprint 30; ./footprint 30'
read -r first ni <<<"$(insns shi.jsonl)"
[ "$first" -lt "$one" ] || fail "-i: $first instructions, expected fewer than one footprint run ($one)"

# threads: both threads' loops are counted (2 x 200000 iterations)
expect_exit 0 "$LACE" stat --backend sim --results thr.jsonl -e instructions -- ./threads
read -r t nt <<<"$(insns thr.jsonl)"
expect_eq "$nt" 1 "threads: one process"
[ "$t" -gt 1200000 ] || fail "threads: only $t instructions for 400000 loop iterations"
echo "footprint $one, sh+2x footprint $both ($nsh images), -i $first, threads $t"
