# Acceptance 2 of the simulator: two runs of the same program give
# identical simulated counts -- faultbench and hackbench in process mode
# (the study's workloads, when built), a forking fixture and a
# footprint-heavy fixture.  Each run also lands in the results file with
# one entry per process.
. "$SRC/tests/integration/lib.sh"
need_vg
command -v python3 >/dev/null || skip "python3 needed to read the JSON"

cc -O1 -o footprint "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"
cc -O1 -o forker "$SRC/tests/fixtures/sim/forker.c" || fail "cannot build forker"
CLOCK=
EVENTS=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,fetch-blocks,stlb-misses

same_twice() { # NAME CMD...: run twice under the simulator; all events equal
  local name=$1; shift
  expect_exit 0 "$LACE" stat --backend sim $CLOCK -r 2 --json --results "$name.jsonl" -e "$EVENTS" -- "$@"
  printf '%s\n' "$OUT" > "$name.json"
  python3 - "$name.json" "$name" <<'PY' || fail "$name: simulated counts differ between runs"
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for e in d["events"]:
    v = e["values"]
    ok = e["status"] == "counted" and e.get("simulated") and len(v) == 2 and v[0] == v[1]
    print("%s: %-22s %s%s" % (sys.argv[2], e["name"], v, "" if ok else "  <-- differs"))
    bad |= not ok
sys.exit(bad)
PY
  # the results file keeps each run's processes
  python3 - "$name.jsonl" "$name" <<'PY' || fail "$name: results file lacks per-process counts"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if '"procs"' in l]
assert len(runs) == 2, "expected 2 runs with procs, got %d" % len(runs)
print("%s: processes per run: %s" % (sys.argv[2], [len(r["procs"]) for r in runs]))
PY
}

same_twice footprint ./footprint 50
same_twice forker ./forker 2
n=$(python3 -c 'import json; print([len(json.loads(l)["procs"]) for l in open("forker.jsonl") if "\"procs\"" in l][0])')
expect_eq "$n" 3 "forker: processes in one run (parent + 2 children)"

# a LOCK-prefixed add on memory two processes share: under Valgrind a
# compare-and-swap that VEX retries when the other process wrote the line
# in between.  A core runs the instruction once, so the child (whose code
# is the same either way) counts what it counts when the two run one after
# the other (s: no retries), and every run counts the same, whatever the
# timing.
cc -O1 -o casrace "$SRC/tests/fixtures/sim/casrace.c" || fail "cannot build casrace"
procs() { # MODE RUNS: per run, "parent child", each [instructions, fetch-blocks]
  expect_exit 0 "$LACE" stat --backend sim -r "$2" --no-results --json --results "cas-$1.jsonl" \
    -e instructions,fetch-blocks -- ./casrace 3000000 "$1"
  python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "procs" in r:
        v = [p["values"] for p in sorted(r["procs"], key=lambda p: p["pid"])]
        print("%s_%s" % (v[0], v[1]))' "cas-$1.jsonl" | tr -d ' '
}
serial=$(procs s 1)
echo "casrace: one after the other: $serial"
runs=$(procs p 3)
echo "casrace: at once: $runs"
expect_eq "$(printf '%s\n' "$runs" | sort -u | wc -l)" 1 "casrace: runs whose locked adds raced count alike"
expect_eq "$(printf '%s\n' "$runs" | head -1 | cut -d_ -f2)" "${serial#*_}" \
  "casrace: the child's counts, racing and not"

# the study's workloads: they time themselves; with --virtual-clock (the
# study's setting) their clock is one ns per instruction, so even that
# output agrees
CLOCK=--virtual-clock
# a sanitizer runtime cannot run under valgrind (SANITIZE=1 builds faultbench
# with it): that part is for the normal build
built "$BUILD/bench/faultbench"
built "$BUILD/bench/hackbench"
if is_sanitized "$BUILD/bench/faultbench"; then
  skip_part "the study's workloads: sanitizer build (its runtime cannot run under valgrind)"
else
  same_twice faultbench "$BUILD/bench/faultbench" -n 512
  same_twice hackbench "$BUILD/bench/hackbench" -P -g 1 -f 2 -l 5
fi
parts_done
