# Several CPU profiles in one boot (--cpu-profile A,B with --backend
# qemu): the plugin models B beside A on the same blocks, and each of B's
# events, user and kernel side, is what a boot with B alone counts (the
# same kernel and workload count the same under -icount); A's too, its
# per-function table and path lengths as before.  Boots Debian's kernel
# from lace's cache (lib.sh's qemu_guest): skipped, saying so, when that
# fails.
# timeout: 600
. "$SRC/tests/integration/lib.sh"
need_qemu_x86
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
qemu_guest

cc -static -O1 -o spin "$SRC/tests/fixtures/qemu/spin.c" || fail "cannot build spin (static libc?)"
EV=instructions:u,instructions:k,L1-icache-loads,L1-icache-load-misses:u,L1-icache-load-misses:k,iTLB-loads,iTLB-load-misses:u,iTLB-load-misses:k,stlb-loads,stlb-misses,fetch-blocks:u,fetch-blocks:k

for prof in skylake-client nehalem skylake-client,nehalem; do
  expect_exit 0 "$LACE" stat --backend qemu --cpu-profile "$prof" -e "$EV" --per-function \
    --path-length ksys_write --json --no-results -- ./spin
  printf '%s\n' "$OUT" > "$prof.json"
done

python3 - <<'PY' || fail "the pair's counts differ from the single profiles'"
import json
def load(p):
    d = json.load(open(p + ".json"))
    return {e["name"]: e["values"][0] for e in d["events"]}, d
a, da = load("skylake-client")
b, db = load("nehalem")
ab, dab = load("skylake-client,nehalem")
bad = 0
for ev in a:
    want = {ev: a[ev]} if ev.startswith("instructions") else \
           {ev + "@skylake-client": a[ev], ev + "@nehalem": b[ev]}
    for k, w in want.items():
        ok = ab.get(k) == w
        print(("ok   " if ok else "FAIL ") + f"{k}: {ab.get(k)} vs {w}")
        bad |= not ok
assert any(a[e] != b[e] for e in a if not e.startswith("instructions")), "profiles agree"
# the first profile's functions and paths are the single run's; the
# other's windows are in the backend data
x, y = da["backend_data"][0], dab["backend_data"][0]
for key in ("functions", "paths"):
    ok = x[key] == y[key]
    print(("ok   " if ok else "FAIL ") + key)
    bad |= not ok
assert [o["profile"] for o in y["other_profiles"]] == ["nehalem"], y.get("other_profiles")
raise SystemExit(bad)
PY
exit 0
