# Several CPU profiles in one simulated run (--cpu-profile A,B): each
# event but instructions becomes one per profile, NAME@PROFILE, and each
# counts what a run with that profile alone counts -- in every process
# (a forking fixture), in the measurement window, with per-function
# attribution (the first profile's).  A profile's event may be asked for
# by name; a profile not run, a profile twice and --backend hw are
# refused, each with one line.
. "$SRC/tests/integration/lib.sh"
need_vg
command -v python3 >/dev/null || skip "python3 needed to read the JSON"

cc -O1 -o footprint "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"
cc -O1 -o forker "$SRC/tests/fixtures/sim/forker.c" || fail "cannot build forker"
cc -O1 -I"$SRC" -o window "$SRC/tests/fixtures/sim/window.c" || fail "cannot build window"
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,stlb-loads,stlb-misses,fetch-blocks,fetch-late-entries

run() { # NAME PROFILES [options] -- CMD...: counts into NAME.json
  local name=$1 prof=$2; shift 2
  expect_exit 0 "$LACE" stat --backend sim --cpu-profile "$prof" -e "$EV" --json --no-results "$@"
  printf '%s\n' "$OUT" > "$name.json"
}
same() { # NAME ARGS...: the pair's counts are the single profiles'
  local name=$1; shift
  run "$name-a" skylake-client "$@"
  run "$name-b" nehalem "$@"
  run "$name-ab" skylake-client,nehalem "$@"
  python3 - "$name" <<'PY' || fail "$name: the pair's counts differ from the single profiles'"
import json, sys
n = sys.argv[1]
def counts(f):
    return {e["name"]: e["values"] for e in json.load(open(f))["events"]}
a, b, ab = counts(n + "-a.json"), counts(n + "-b.json"), counts(n + "-ab.json")
bad = 0
for ev, v in a.items():
    if ev == "instructions":
        want = {ev: v}
    else:
        want = {ev + "@skylake-client": v, ev + "@nehalem": b[ev]}
    for k, w in want.items():
        ok = ab.get(k) == w
        print(("ok   " if ok else "FAIL ") + f"{n} {k}: {ab.get(k)} vs {w}")
        bad |= not ok
assert len(ab) == 2 * len(a) - 1, sorted(ab)
# the two profiles differ somewhere in footprint's code (its L1i misses),
# or the test shows nothing
assert n != "footprint" or any(a[e] != b[e] for e in a if e != "instructions"), "profiles agree"
sys.exit(bad)
PY
}
same footprint -- ./footprint 200
same forker -- ./forker
same window --window -- ./window 10

# per-function attribution, and the other profiles in the results
expect_exit 0 "$LACE" stat --backend sim --cpu-profile skylake-client,nehalem \
  -e L1-icache-load-misses --per-function --results r.jsonl -- ./footprint 50
expect_match 'L1-icache-load-misses@nehalem' "$OUT"
expect_match ' f1[0-9][0-9]$' "$OUT"
python3 - r.jsonl <<'PY' || fail "results file"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if '"counts"' in l]
bd = runs[0]["backend_data"]
assert bd["profile"] == "skylake-client", bd["profile"]
assert [o["profile"] for o in bd["other_profiles"]] == ["nehalem"], bd["other_profiles"]
PY

# one profile's event by name
expect_exit 0 "$LACE" stat --backend sim --cpu-profile skylake-client,nehalem \
  -e instructions,L1-icache-load-misses@nehalem -x, --no-results -- ./footprint 50
expect_match ',L1-icache-load-misses@nehalem,' "$OUT"
expect_nomatch '@skylake-client' "$OUT"

expect_exit 2 "$LACE" stat --backend sim -e L1-icache-load-misses@nehalem -- ./footprint 1
expect_one_line "$ERR"
expect_match 'nehalem is not one of the CPU profiles run' "$ERR"
expect_exit 2 "$LACE" stat --backend sim --cpu-profile zen3,zen3 -e instructions -- ./footprint 1
expect_one_line "$ERR"
expect_match 'zen3 twice' "$ERR"
expect_exit 2 "$LACE" stat --backend hw -e L1-icache-load-misses@nehalem -- ./footprint 1
expect_one_line "$ERR"
expect_match 'a CPU profile.s event, but --backend hw counts none' "$ERR"
exit 0
