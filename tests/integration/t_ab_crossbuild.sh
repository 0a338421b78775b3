#!/bin/bash
# lace ab between two builds says what it cannot see (issue 34, item 6):
# A and B of two builds (ELFs or kernels whose build-ids differ) or of
# commands lace cannot tell apart are judged as two binaries, not a
# placement, with the pointer to lace ab --same-execution -- once per
# report, in the text, the Markdown and per comparison in the JSON; a
# known layout spread (--layout-noise) is folded into the intervals and
# the verdicts follow it; one build on both sides keeps today's wording
# and folds nothing in.  The scope is kept in the results file, so lace
# report words a batch alike.  Bad spreads: one line, exit 2.
. "$SRC/tests/integration/lib.sh"
command -v jq >/dev/null || skip "jq not installed"

# batch FILE BUILDS-JSON LAYOUT-JSON: a handcrafted ab batch, B 5 % more
# page faults than A in each of 6 rounds (+-0.1 %): slower by the rounds
# alone, one layout draw a side
batch() {
  {
    echo '{"lace_results":1,"kind":"ab","command":"A: ./old / B: ./new","a":"./old","b":"./new","margin":0.01,"confidence":0.95,'"$2$3"'"events":[{"name":"page-faults","unit":"","scale":1}]}'
    i=0
    for r in 0 1 2 3 4 5; do
      a=$((100000 + r * 100)) b=$(( (100000 + r * 100) * 105 / 100 + (r % 2 ? 100 : -100) ))
      for side in A B; do
        v=$a; [ $side = B ] && v=$b
        echo '{"run":'$i',"round":'$r',"side":"'$side'","warmup":false,"fault":"ok","elapsed":0.01,"user":0,"sys":0,"ctx_switches":1,"migrations":0,"counts":[{"value":'$v',"status":"counted","enabled":1,"running":1}]}'
        i=$((i + 1))
      done
    done
    echo '{"end":true,"interrupted":false,"runs":12}'
  } >"$1"
}
TWO='"builds":{"builds":"different","why":"the ELFs differ: build-id 1a2b3c4d5e6f... and build-id 6f5e4d3c2b1a..."},'
ONE='"builds":{"builds":"same","why":"one command on both sides"},'
SPREAD='"layout_noise":{"*":0.025},'

batch two.jsonl "$TWO" ""
expect_exit 0 "$LACE" report two.jsonl
expect_match '^  page-faults .* \+5\.0[0-9]%  \[\+4\.[0-9]{2}%, \+5\.[0-9]{2}%\] .* slower$' "$OUT"
expect_match '^ scope: two binaries, not a placement: A and B are different builds \(the ELFs differ: build-id 1a2b3c4d5e6f\.\.\. and build-id 6f5e4d3c2b1a\.\.\.\); these verdicts judge the two binaries, one layout draw each, not their placement\. To judge the placement: lace ab --same-execution \(recorded executions replayed through virtual layouts of both builds\)$' "$OUT"
expect_match '^ scope: no layout spread folded in .*--layout-noise PCT$' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | grep -c 'two binaries')" 1 "scope notes in the text"
expect_exit 0 "$LACE" report --md two.jsonl
expect_match '^- scope: two binaries, not a placement: .* lace ab --same-execution ' "$OUT"
expect_exit 0 "$LACE" report --json two.jsonl
printf '%s' "$OUT" | jq -e '.builds.builds == "different" and .events[0].scope == "two binaries"
  and .elapsed.scope == "two binaries" and .layout_noise == null and (.layout_noise_folded | not)
  and (.scope_notes[0] | startswith("two binaries, not a placement"))
  and .events[0].verdict == "slower" and .events[0].layout_noise == null' >/dev/null ||
  fail "two builds --json: $OUT"

# the layouts' spread folded in: +5 % of one draw a side is inconclusive,
# and no number of rounds would settle it
batch fold.jsonl "$TWO" "$SPREAD"
expect_exit 0 "$LACE" report fold.jsonl
expect_match '^  page-faults .* \+5\.0[0-9]%  \[-[0-9.]+%, \+1[0-9]\.[0-9]{2}%\] .* inconclusive \(the layout spread alone keeps the CI this wide: more rounds cannot settle it\)$' "$OUT"
expect_match '^  page-faults +\[\+4\.[0-9]{2}%, \+5\.[0-9]{2}%\], p [0-9.e-]+ \(before Holm\)$' "$OUT"
expect_match '^ scope: layout spread 2\.5% folded into the intervals \(--layout-noise: ' "$OUT"
expect_exit 0 "$LACE" report --json fold.jsonl
printf '%s' "$OUT" | jq -e '.layout_noise == {"*": 0.025} and .layout_noise_folded
  and .events[0].verdict == "inconclusive" and .events[0].layout_noise == 0.025
  and .events[0].rounds_needed == null and .events[0].ci_low < 1 and .events[0].runs_ci_low > 1.04' \
  >/dev/null || fail "folded --json: $OUT"

# one build: no scope note; a spread given is not folded in, and says so
batch one.jsonl "$ONE" ""
expect_exit 0 "$LACE" report one.jsonl
expect_nomatch 'scope:|two binaries' "$OUT"
expect_match '^  page-faults .* slower$' "$OUT"
batch onefold.jsonl "$ONE" "$SPREAD"
expect_exit 0 "$LACE" report onefold.jsonl
expect_match '^  page-faults .* slower$' "$OUT"
expect_match '^ scope: layout spread 2\.5% \(--layout-noise\) not folded in: A and B are one build, so one layout \(one command on both sides\)$' "$OUT"
expect_exit 0 "$LACE" report --json one.jsonl
printf '%s' "$OUT" | jq -e '.builds.builds == "same" and .events[0].scope == "one build"
  and .scope_notes == []' >/dev/null || fail "one build --json: $OUT"
# a file from before the scope was recorded: lace cannot tell
batch old.jsonl "" ""
expect_exit 0 "$LACE" report old.jsonl
expect_match '^ scope: two binaries, not a placement: lace cannot tell whether A and B are one build \(the results file does not say: written before lace recorded it\) and takes them as two' "$OUT"

# bad spreads: one line, exit 2
for bad in 0 -1 100 abc "" =2 page-faults=x; do
  expect_exit 2 "$LACE" ab --no-results -r 2 -e page-faults --layout-noise "$bad" -A true -B true
  expect_one_line "$ERR"
  expect_match '^lace: ab: --layout-noise ' "$ERR"
done
expect_exit 2 "$LACE" ab --same-execution --backend qemu --kernel-a x --kernel-b y --layout-noise 2 -- true
expect_one_line "$ERR"
expect_match 'layout-noise' "$ERR"

# live, on the simulator: fixtures built here, two builds of one loop
command -v valgrind >/dev/null || { skip_part "live batches: valgrind not installed (Debian package valgrind)"; parts_done; exit 0; }
cat >loop.c <<'EOF'
int main(void)
{
	volatile long s = 0;
	for (long i = 0; i < N; i++)
		s += i;
	return 0;
}
EOF
gcc -O1 -DN=100000 -o old loop.c && gcc -O1 -DN=120000 -o new loop.c || fail "cannot build the fixtures"
cp old old.copy
SIM="ab --no-results --backend sim -r 2 --warmup 0 --seed 1 -e instructions"
# the same program both sides: an A/A, one build, today's wording
# shellcheck disable=SC2086
expect_exit 0 "$LACE" $SIM --json -- ./old
printf '%s' "$OUT" | jq -e '.builds.builds == "same" and .events[0].scope == "one build"
  and .events[0].deterministic and .scope_notes == []' >/dev/null || fail "A/A --json: $OUT"
# ... which it says up front, on stderr, once; two builds say nothing of it
expect_eq "$(printf '%s\n' "$ERR" | grep -c 'an A/A run')" 1 "the A/A note"
expect_match '^lace: note: A and B are one build \(one command on both sides\): an A/A run, which measures the noise alone; -A/-B, --base/--head or --kernel-a/-b compare two$' "$ERR"
# shellcheck disable=SC2086
expect_exit 0 "$LACE" $SIM --base ./old --head ./old.copy --workload '{elf}'
expect_nomatch 'scope:' "$OUT"
expect_match '^  instructions \[sim\] .* exact .* none \(deterministic count\)$' "$OUT"
# two builds: named by their build-ids
id_old=$(readelf -n old | awk '/Build ID/ { print substr($3, 1, 12) }')
id_new=$(readelf -n new | awk '/Build ID/ { print substr($3, 1, 12) }')
# shellcheck disable=SC2086
expect_exit 0 "$LACE" $SIM --base ./old --head ./new --workload '{elf}'
expect_nomatch 'A/A' "$ERR"
expect_match "^ scope: two binaries, not a placement: A and B are different builds \\(the ELFs differ: build-id $id_old\\.\\.\\. and build-id $id_new\\.\\.\\.\\); " "$OUT"
expect_match '^  instructions \[sim\] .* exact .* none \(deterministic count\)$' "$OUT"
# with the layouts' spread, the exact count gets an interval and a verdict
# shellcheck disable=SC2086
expect_exit 0 "$LACE" $SIM --json --layout-noise instructions=2.5 --base ./old --head ./new --workload '{elf}'
printf '%s' "$OUT" | jq -e '.builds.builds == "different" and .events[0].scope == "two binaries"
  and (.events[0].deterministic | not) and .events[0].layout_noise == 0.025
  and .events[0].ci_low < .events[0].ratio and .events[0].ci_high > .events[0].ratio
  and .events[0].verdict == "slower" and .events[0].runs_ci_low == .events[0].runs_ci_high
  and .elapsed.cost and .elapsed.layout_noise == null' >/dev/null ||
  fail "two builds with a spread, --json: $OUT"
# different commands: lace cannot tell
# shellcheck disable=SC2086
expect_exit 0 "$LACE" $SIM -A ./old -B ./new
expect_match '^ scope: two binaries, not a placement: lace cannot tell whether A and B are one build \(different -A and -B commands, whose builds lace cannot see: --base/--head would name them\) and takes them as two' "$OUT"
parts_done
exit 0
