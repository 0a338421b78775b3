#!/bin/bash
# lace compare: two sides of saved batches -- lace stat results files,
# perf stat -x, output (runs appended, or -r N summaries with N given),
# perf stat -j output -- compared unpaired, with lace ab's verdicts.  Over
# many pairs of batches drawn from one distribution it never says slower
# or faster; clearly different batches get the verdict with the right
# sign; bad input is one line and exit 2.
. "$SRC/tests/integration/lib.sh"
command -v jq >/dev/null || skip "jq not installed"

# gen SEED MEAN_TC MEAN_PF RUNS: perf stat -x, of RUNS -r 1 runs appended
# (-o F --append), task-clock ~ N(MEAN_TC, 3%), page-faults ~ N(MEAN_PF, 1%)
gen() {
  awk -v seed="$1" -v tc="$2" -v pf="$3" -v n="$4" -v sum="${5:-0}" '
    function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
    BEGIN {
      srand(seed)
      for (i = 0; i < n; i++) { t[i] = tc * (1 + 0.03 * gauss()); p[i] = int(pf * (1 + 0.01 * gauss()) + 0.5) }
      if (!sum) {
        for (i = 0; i < n; i++) {
          printf "# started on Thu Dec  3 10:00:%02d 2026\n\n", i
          printf "%.2f,msec,task-clock,%d,100.00,0.600,CPUs utilized\n", t[i], t[i] * 1e6
          printf "%d,,page-faults,%d,100.00,20.000,K/sec\n", p[i], t[i] * 1e6
          printf "<not supported>,,cycles,0,100.00,,\n"
        }
        exit
      }
      # perf stat -r n: the mean and "variance" = sem / mean in percent
      for (k = 0; k < 2; k++) {
        m = 0; for (i = 0; i < n; i++) m += (k ? p[i] : t[i]) / n
        v = 0; for (i = 0; i < n; i++) v += ((k ? p[i] : t[i]) - m) ^ 2 / (n - 1)
        rel[k] = 100 * sqrt(v / n) / m; mean[k] = m
      }
      printf "# started on Thu Dec  3 10:00:00 2026\n\n"
      printf "%.2f,msec,task-clock,%.2f%%,%d,100.00,0.600,CPUs utilized\n", mean[0], rel[0], mean[0] * 1e6
      printf "%.2f,,page-faults,%.2f%%,%d,100.00,20.000,K/sec\n", mean[1], rel[1], mean[0] * 1e6
    }'
}

verdicts() { printf '%s' "$1" | jq -r '[.events[] | .name + "=" + .verdict] | join(" ")'; }

# (2) many pairs from one distribution: never slower or faster -- runs
# appended, and -r 10 summaries, 30 pairs each
bad=""
for s in $(seq 1 30); do
  gen $((s * 2)) 2.0 1000 10 >a.csv
  gen $((s * 2 + 1)) 2.0 1000 10 >b.csv
  expect_exit 0 "$LACE" compare --json a.csv b.csv
  v=$(verdicts "$OUT")
  expect_match '^task-clock=(equivalent|inconclusive) page-faults=(equivalent|inconclusive) cycles=undecided$' "$v"
  gen $((s * 2 + 100)) 2.0 1000 10 1 >a.csv
  gen $((s * 2 + 101)) 2.0 1000 10 1 >b.csv
  expect_exit 0 "$LACE" compare --json --runs 10 a.csv b.csv
  v=$(verdicts "$OUT")
  printf '%s' "$OUT" | jq -e '.events[0].a.from_summary and .events[0].a.runs == 10' >/dev/null ||
    fail "summary not read as such: $OUT"
  expect_match '^task-clock=(equivalent|inconclusive) page-faults=(equivalent|inconclusive)$' "$v"
done

# (3) clearly different: B 20% more task-clock (slower), 20% fewer page
# faults (faster), in both forms; and the same for a several-batch side
# With one batch a side the sessions' own difference is unmeasured: the
# runs alone make it inconclusive*, a --session-noise bound it clears
# makes it a verdict, a bound it does not clear keeps it inconclusive.
gen 7 2.0 1000 10 >a.csv
gen 8 2.4 800 10 >b.csv
expect_exit 0 "$LACE" compare --json a.csv b.csv
expect_eq "$(verdicts "$OUT")" "task-clock=inconclusive page-faults=inconclusive cycles=undecided"
printf '%s' "$OUT" | jq -e '.events[0].session_capped and .events[1].session_capped' >/dev/null ||
  fail "capped verdicts not marked: $OUT"
expect_exit 0 "$LACE" compare a.csv b.csv
expect_match '^  task-clock +msec .* inconclusive\*$' "$OUT"
expect_match 'inconclusive\*: significant within the sessions. runs, .*--session-noise PCT' "$OUT"
expect_exit 0 "$LACE" compare --json --session-noise 5 a.csv b.csv
expect_eq "$(verdicts "$OUT")" "task-clock=slower page-faults=faster cycles=undecided"
expect_exit 0 "$LACE" compare --json --session-noise 30 a.csv b.csv
expect_eq "$(verdicts "$OUT")" "task-clock=inconclusive page-faults=inconclusive cycles=undecided"
expect_exit 0 "$LACE" compare --session-noise 5 b.csv a.csv
expect_match '^  task-clock +msec .* faster$' "$OUT"
expect_match '^  page-faults .* slower$' "$OUT"
expect_match '^  cycles +<not supported>$' "$OUT"
expect_match '^ note: one batch on a side: ' "$OUT"
gen 9 2.0 1000 10 1 >as.csv
gen 10 2.4 800 10 1 >bs.csv
expect_exit 0 "$LACE" compare --session-noise 5 as.csv@10 bs.csv@10
expect_match '^  task-clock +msec .* slower$' "$OUT"
expect_match 'statistics from summaries' "$OUT"
# several batches a side measure the sessions: no bound needed
gen 31 2.0 1000 10 >a1.csv; gen 32 2.0 1000 10 >a2.csv
gen 33 2.4 1000 10 >b1.csv; gen 34 2.4 1000 10 >b2.csv
expect_exit 0 "$LACE" compare --json -A a1.csv -B b1.csv -A a2.csv -B b2.csv
expect_eq "$(verdicts "$OUT")" "task-clock=slower page-faults=equivalent cycles=undecided"

# several batches per side, A1 B1 A2 B2: the second A batch drifted 10%;
# the drift is called out and no verdict rests on the runs alone
gen 11 2.0 1000 10 >a1.csv
gen 12 2.2 1000 10 >a2.csv
gen 13 2.1 1000 10 >b1.csv
gen 14 2.1 1000 10 >b2.csv
expect_exit 0 "$LACE" compare -A a1.csv -B b1.csv -A a2.csv -B b2.csv
expect_match '^ lace compare: 2 batches A, 2 batches B' "$OUT"
expect_match '^   A2: a2\.csv \(perf stat -x, 10 runs\)' "$OUT"
expect_match '^  task-clock +A: F = .*spread of its 4 segment means' "$OUT"
expect_match '^  task-clock +msec .* inconclusive$' "$OUT"
expect_nomatch 'one batch on a side' "$OUT"

# drift within one batch (its second half 20% higher): named, and the
# side's error comes from its halves, so no verdict rests on the runs
{ gen 21 2.0 1000 5; gen 22 2.4 1000 5; } >ad.csv
gen 23 2.4 1000 10 >bd.csv
expect_exit 0 "$LACE" compare ad.csv bd.csv
expect_match '^  task-clock +A: F = .*spread of its 2 segment means' "$OUT"
expect_match '^  task-clock +msec .* inconclusive$' "$OUT"

# (1) two lace stat batches of the same command: a deterministic simulated
# count is exactly equal (equivalent); the results files name the kernel
if "$LACE" stat --backend sim -e instructions -r 3 --results s1.jsonl --output null -- /bin/true \
     >/dev/null 2>sim.err; then
  "$LACE" stat --backend sim -e instructions -r 3 --results s2.jsonl --output null -- /bin/true \
    >/dev/null 2>&1 || fail "second sim batch failed"
  expect_exit 0 "$LACE" compare s1.jsonl s2.jsonl
  expect_match '^  instructions \[sim\] .* exact .* equivalent \(the same count every run\)$' "$OUT"
  expect_match 'note: A and B share a boot' "$OUT"
else
  # the Valgrind tool is lace's own build output: only a missing valgrind
  # package excuses this part
  command -v valgrind >/dev/null && fail "lace stat --backend sim failed: $(tail -1 sim.err)"
  skip_part "the simulated batches: valgrind not installed (Debian package valgrind)"
fi
for f in 1 2; do
  "$LACE" stat -e task-clock,page-faults -r 5 --results h$f.jsonl --output null -- /bin/true \
    >/dev/null 2>hw.err && continue
  # only a kernel that refuses perf events to everyone excuses it
  perf stat -e task-clock true >/dev/null 2>&1 &&
    fail "lace stat with software events failed: $(tail -1 hw.err)"
  skip "the kernel refuses perf events here (perf stat -e task-clock fails too): $(tail -1 hw.err)"
done
head -1 h1.jsonl | jq -e '.kernel.release == "'"$(uname -r)"'"
  and (.kernel.boot_id == "'"$(cat /proc/sys/kernel/random/boot_id)"'")
  and (.kernel.build_id | test("^([0-9a-f]{2})*$"))' >/dev/null ||
  fail "results header lacks the kernel: $(head -c 400 h1.jsonl)"
expect_exit 0 "$LACE" compare --json h1.jsonl h2.jsonl
# real batches of one command, one a side: whatever the drift between
# them, never slower or faster (the sessions' difference is unmeasured)
printf '%s' "$OUT" | jq -e '([.events[].name] == ["task-clock", "page-faults", "elapsed"])
  and ([.events[].verdict] | all(. == "equivalent" or . == "inconclusive" or . == "undecided"))
  and .a[0].format == "lace stat" and .a[0].kernel.release == "'"$(uname -r)"'"
  and (.notes | length) >= 1' >/dev/null || fail "compare --json of lace stat batches: $OUT"
# more real pairs, back to back (the drift between such batches once made
# the runs alone say "faster" on wall time in 1 of 5 pairs)
for f in 3 4 5 6 7 8; do
  "$LACE" stat -e task-clock,page-faults -r 5 --results h$f.jsonl --output null -- /bin/true \
    >/dev/null 2>hw.err || fail "lace stat batch $f failed: $(tail -1 hw.err)"
done
for f in 3 5 7; do
  expect_exit 0 "$LACE" compare --json h$f.jsonl h$((f + 1)).jsonl
  v=$(verdicts "$OUT")
  expect_match '^task-clock=(equivalent|inconclusive) page-faults=(equivalent|inconclusive) elapsed=(equivalent|inconclusive)$' "$v"
done

# (4) real perf stat output, -x, and -j, with -r 10
if command -v perf >/dev/null && perf stat -x, -e task-clock true 2>/dev/null; then
  for f in 1 2; do
    perf stat -x, -r 10 -e task-clock,page-faults -o p$f.csv true || fail "perf stat -x failed"
    perf stat -j -r 10 -e task-clock,page-faults -o p$f.json true || fail "perf stat -j failed"
  done
  expect_exit 0 "$LACE" compare --json --runs 10 p1.csv p2.csv
  printf '%s' "$OUT" | jq -e '([.events[].name] == ["task-clock", "page-faults"])
    and .a[0].format == "perf stat -x" and .a[0].runs == 10 and (.events[0].ratio > 0)
    and ([.events[].verdict] | all(. == "equivalent" or . == "inconclusive"))' >/dev/null ||
    fail "perf -x: $OUT"
  expect_exit 0 "$LACE" compare --json p1.json@10 p2.json@10
  printf '%s' "$OUT" | jq -e '([.events[].name] == ["task-clock", "page-faults"])
    and .a[0].format == "perf stat -j" and (.events[1].ratio > 0)' >/dev/null ||
    fail "perf -j: $OUT"
else
  skip_part "real perf stat output: perf (Debian package linux-perf) cannot count task-clock here"
fi

# (5) bad input: one line, exit 2
: >empty.csv
printf 'hello world\n' >garbage.csv
printf '{"counter-value" : "1", "event"\n' >broken.json
gen 3 2.0 1000 10 | grep -v page-faults >other.csv
for args in "empty.csv b.csv" "garbage.csv b.csv" "broken.json b.csv" "a.csv other.csv" \
            "as.csv bs.csv" "as.csv@x bs.csv@10" "nosuch.csv b.csv" "a.csv" "h1.jsonl known"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$LACE" compare $args
  expect_one_line "$ERR"
  expect_match '^lace: compare: ' "$ERR"
done
expect_exit 2 "$LACE" compare as.csv bs.csv
expect_match 'give it with --runs N or as\.csv@N' "$ERR"
expect_exit 2 "$LACE" compare a.csv other.csv
expect_match 'page-faults' "$ERR"
# a lace ab batch is not one side's batch
echo '{"lace_results":1,"kind":"ab","command":"A: a / B: b","a":"a","b":"b","margin":0.01,"confidence":0.95,"events":[{"name":"page-faults","unit":"","scale":1}]}' >ab.jsonl
expect_exit 2 "$LACE" compare ab.jsonl a.csv
expect_eq "$ERR" "lace: compare: ab.jsonl: a lace ab batch; lace compare takes lace stat batches"
parts_done
