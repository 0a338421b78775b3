# lace stat / lace ab with --backend sim: simulated events labelled with
# the profile, profile and geometry options, per-function table (with the
# path length per call of the hash-fault functions on faultbench), the hot
# set for lace diff --hot, and one-line usage errors.
. "$SRC/tests/integration/lib.sh"
need_vg
cc -O1 -o footprint "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"

# every simulated event, labelled, with the profile's name
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,fetch-blocks,stlb-misses
expect_exit 0 "$LACE" stat --backend sim --no-results --cpu-profile power9 -e "$EV" -- ./footprint 20
expect_match 'sim \(power9\)' "$OUT"
for e in ${EV//,/ }; do
  expect_match "^ +[0-9]+ +$e \[sim\]" "$OUT"
done

# a smaller icache misses more: the geometry override reaches the tool
misses() { printf '%s\n' "$1" | awk '$2 == "L1-icache-load-misses" { print $1 }'; }
expect_exit 0 "$LACE" stat --backend sim --no-results -e L1-icache-load-misses -- ./footprint 20
big=$(misses "$OUT")
expect_exit 0 "$LACE" stat --backend sim --no-results --l1i 4096,2,64 -e L1-icache-load-misses -- ./footprint 20
small=$(misses "$OUT")
expect_match 'l1i 4096,2,64' "$OUT"
[ "$small" -gt $((big * 2)) ] || fail "4 KiB L1i: $small misses, 32 KiB: $big; expected many more"

# per-function table and hot set
expect_exit 0 "$LACE" stat --backend sim --no-results -r 2 -e instructions --per-function --top 3 \
  --hot-out hot.txt -- ./footprint 20
expect_match 'Hottest functions \(simulated, skylake-client; identical in every run\)' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | sed -n '/Hottest/,$p' | awk 'NF >= 7 && $1 ~ /^[0-9]+$/' | wc -l)" 3 \
  "rows in the --top 3 table"
expect_match '^ +[0-9]+ +[0-9]+ +[0-9.]+ .* main$' "$OUT"
grep -Eq '^main 0\.[0-9]+$' hot.txt || fail "hot.txt lacks 'main weight': $(head -3 hot.txt)"
expect_exit 0 "$LACE" diff --hot hot.txt ./footprint ./footprint
expect_match 'hot set' "$OUT"

# inclusive path length on a call tree of known shape (tests/fixtures/sim/calls.c):
# path(leaf) = own(leaf), path(mid) = own(mid) + 2 path(leaf),
# path(top) = own(top) + 3 path(mid); the recursion counts its outermost frame
cc -O1 -o calls "$SRC/tests/fixtures/sim/calls.c" || fail "cannot build calls"
expect_exit 0 "$LACE" stat --backend sim --no-results -e instructions --per-function --top 50 -- ./calls 50
col() { printf '%s\n' "$OUT" | awk -v f="$1" -v c="$2" '$NF == f { print $c }'; }
expect_eq "$(col leaf 2)" 300 "leaf calls"
expect_eq "$(col mid 2)" 150 "mid calls"
expect_eq "$(col leaf 4)" "$(col leaf 3)" "leaf: path = own"
expect_eq "$(col mid 4)" "$(awk -v o="$(col mid 3)" -v l="$(col leaf 4)" 'BEGIN { printf "%.1f", o + 2 * l }')" "mid: path = own + 2 leaf"
expect_eq "$(col top 4)" "$(awk -v o="$(col top 3)" -v m="$(col mid 4)" 'BEGIN { printf "%.1f", o + 3 * m }')" "top: path = own + 3 mid"
# (path/call is printed to 0.1: allow that rounding)
awk -v p="$(col rec 4)" -v c="$(col rec 2)" -v own="$(col rec 1)" \
  'BEGIN { d = p * c - own; exit !(d < 0.05 * c + 1 && d > -0.05 * c - 1) }' ||
  fail "rec: inclusive ($(col rec 4) x $(col rec 2)) should equal its own instructions ($(col rec 1))"

# usage errors: exit 2, one line
expect_exit 2 "$LACE" stat --backend sim --cpu-profile pentium -e instructions -- ./footprint 1
expect_one_line "$ERR"; expect_match "unknown CPU profile 'pentium'" "$ERR"
expect_exit 2 "$LACE" stat --backend sim --l1i 30000,8,64 -e instructions -- ./footprint 1
expect_one_line "$ERR"; expect_match 'power of two' "$ERR"
expect_exit 2 "$LACE" stat --backend sim --itlb 64 -e instructions -- ./footprint 1
expect_one_line "$ERR"
expect_exit 2 "$LACE" stat --backend sim --top 0 --per-function -e instructions -- ./footprint 1
expect_one_line "$ERR"
expect_exit 2 "$LACE" stat --backend sim --top 3x --per-function -e instructions -- ./footprint 1
expect_one_line "$ERR"; expect_match "--top needs a whole number from 1 to 100000, not '3x'" "$ERR"
# another backend's option names the backend it belongs to
expect_exit 2 "$LACE" stat --backend sim --kernel X -e instructions -- ./footprint 1
expect_one_line "$ERR"; expect_match "^lace: stat: --kernel belongs to --backend qemu" "$ERR"
expect_exit 2 "$LACE" stat --backend hw --l1i 32768,8,64 -e instructions -- ./footprint 1
expect_one_line "$ERR"; expect_match "^lace: stat: --l1i belongs to --backend sim" "$ERR"

# no tool, no valgrind: one line saying so
LACE_VG_LIB=$T/nowhere "$LACE" stat --backend sim --no-results -e instructions -- ./footprint 1 \
  >/dev/null 2>err && fail "ran without the tool"
expect_one_line "$(cat err)"; expect_match "simulator tool is not in LACE_VG_LIB=$T/nowhere" "$(cat err)"
# a lace copied away from its build tree: the remedy is make, not a package
cp "$LACE" "$T/lace-alone"
"$T/lace-alone" stat --backend sim --no-results -e instructions -- ./footprint 1 >/dev/null 2>err \
  && fail "ran without the tool next to it"
expect_one_line "$(cat err)"; expect_match "not next to this lace \($T/vg\): run 'make'" "$(cat err)"
LACE_VALGRIND=$T/nowhere/valgrind "$LACE" stat --backend sim --no-results -e instructions -- ./footprint 1 \
  >/dev/null 2>err && fail "ran without valgrind"
expect_one_line "$(cat err)"; expect_match "needs valgrind \($T/nowhere/valgrind\), which is not installed: apt-get install valgrind" "$(cat err)"
# auto: what the CPU cannot count stays <not supported> (or is counted by
# the PMU) rather than failing the batch
LACE_VG_LIB=$T/nowhere expect_exit 0 "$LACE" stat --no-results -e instructions,L1-icache-load-misses \
  -- ./footprint 1
expect_match '(<not supported>|[0-9]) +L1-icache-load-misses' "$OUT"
expect_nomatch '\[sim\]' "$OUT"

# lace ab with the simulator: a count that repeats exactly gets its exact
# B/A and no CI or verdict (statistics over identical repeats mean nothing)
expect_exit 0 "$LACE" ab --backend sim --no-results -r 2 --warmup 0 -e instructions,L1-icache-load-misses \
  -A "./footprint 20" -B "./footprint 40"
expect_match 'instructions \[sim\] .* \+[0-9.]+%  exact .*none \(deterministic count\)' "$OUT"
expect_nomatch '(instructions|L1-icache-load-misses) \[sim\].*(slower|faster|equivalent)' "$OUT"
# elapsed is valgrind's time to emulate: a cost per round, never a verdict
# nor a reason for more rounds (issue 24, item 4)
expect_match '^  elapsed \[sim\] +s +[0-9.]+ .* cost +none \(time to emulate, not a verdict\)$' "$OUT"
expect_nomatch '^  elapsed .*(slower|faster|equivalent|inconclusive|more round)' "$OUT"
expect_match 'elapsed: wall clock of the simulator.s runs under valgrind, not native time: the cost of emulating' "$OUT"
# and -r auto stops once the counts are decided (round 5, its least),
# whatever the time to emulate does
expect_exit 0 "$LACE" ab --backend sim --no-results -r auto --warmup 0 -e instructions -- /bin/true
expect_match '^ lace ab: 5 paired rounds' "$OUT"
expect_match 'needs randomized-layout builds' "$OUT"
expect_exit 0 "$LACE" ab --backend sim --no-results -r 2 --warmup 0 -e instructions --json \
  -A "./footprint 20" -B "./footprint 40"
printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)["events"][0]
assert e["deterministic"] is True and e["ci_low"] is None and e["verdict"] == "undecided", e
assert e["ratio"] > 1, e' || fail "lace ab --json: deterministic event not reported as such"
printf '%s' "$OUT" | python3 -c '
import json, sys
el = json.load(sys.stdin)["elapsed"]
assert el["cost"] is True and el["verdict"] == "undecided" and "rounds_needed" not in el, el
assert el["p_holm"] is None and el["ci_low"] is None and el["a_mean"] > 0 and el["factor"] is None, el' ||
  fail "lace ab --json: elapsed under the simulator is not a cost"

# acceptance 5: path length per call on faultbench (4K pages: __hash_page_4K)
# a sanitizer runtime cannot run under valgrind (SANITIZE=1 builds faultbench
# with it): that part is for the normal build
built "$BUILD/bench/faultbench"
if is_sanitized "$BUILD/bench/faultbench"; then
  skip_part "faultbench's path length: sanitizer build (its runtime cannot run under valgrind)"
else
  expect_exit 0 "$LACE" stat --backend sim --no-results -e instructions --per-function --top 40 \
    -- "$BUILD/bench/faultbench" -n 256 --page-size=4k
  for fn in hash_page_mm __hash_page_4K; do
    row=$(printf '%s\n' "$OUT" | awk -v f="$fn" '$NF == f')
    [ -n "$row" ] || fail "no per-function row for $fn"
    echo "faultbench path length: $fn: $(echo "$row" | awk '{ print $4 " instructions per call with callees (" $3 " own) over " $2 " calls" }')"
    calls=$(echo "$row" | awk '{ print $2 }')
    [ "$calls" -ge 256 ] || fail "$fn: $calls calls for 256 pages"
  done
fi
parts_done
