#!/bin/bash
# Where the workload's output goes (issue 12), in lace stat and lace ab:
# --output=inherit (the default) writes to lace's own stdout/stderr, as perf
# stat does, except that with --json/-x/--md on stdout the default is
# stderr (lace's stdout carries the report and must stay parseable); null
# discards it; FILE collects every run's output (emptied
# once, then appended); pipe is read by lace, so --output-limit still kills
# a flood, and --show-output is that pipe passed on to stderr.  A bad
# WHERE, or a limit that cannot apply, is a usage error.
. "$SRC/tests/integration/lib.sh"
field() { jq -rs --arg k "$2" '[.[] | select(has("run"))][0][$k]' "$1"; }
# a workload writing one marker to stdout and one to stderr
wl=(sh -c 'echo zqout; echo zqerr >&2')

# default: inherited, as perf stat: each stream on lace's own stream, then
# lace's table on stdout
expect_exit 0 "$LACE" stat --no-results -e task-clock -- "${wl[@]}"
expect_match '^zqout$' "$OUT"
expect_match '^zqerr$' "$ERR"
expect_nomatch '^zqerr$' "$OUT"
expect_match 'Performance counter stats' "$OUT"
# inherited means not through lace: nothing counted as output
expect_exit 0 "$LACE" stat -e task-clock --results inh.jsonl --output=inherit -- "${wl[@]}"
expect_match '^zqout$' "$OUT"
expect_eq "$(field inh.jsonl output_bytes)" 0 "inherited output read by lace"
# with a machine-readable report on stdout, the workload writes to stderr,
# so the report stays parseable
for fmt in --json -x, --md; do
  expect_exit 0 "$LACE" stat --no-results -e task-clock $fmt -- "${wl[@]}"
  expect_match '^zqout$' "$ERR"
  expect_nomatch '^zq(out|err)$' "$OUT"
done
expect_exit 0 "$LACE" stat --no-results -e task-clock --json -- "${wl[@]}"
printf '%s' "$OUT" | jq -e . >/dev/null || fail "stat --json with a printing command is not JSON: $OUT"
# ... unless the report goes to a file (-o): then inherited again
expect_exit 0 "$LACE" stat --no-results -e task-clock --json -o rep.json -- "${wl[@]}"
expect_match '^zqout$' "$OUT"
# --output=stderr asks for it with a text report too
expect_exit 0 "$LACE" stat --no-results -e task-clock --output=stderr -- "${wl[@]}"
expect_match '^zqout$' "$ERR"
expect_nomatch '^zq(out|err)$' "$OUT"

# null: nowhere
expect_exit 0 "$LACE" stat --no-results -e task-clock --output=null -- "${wl[@]}"
expect_nomatch '^zq(out|err)$' "$OUT"$'\n'"$ERR"

# FILE: both streams of every run, nothing on lace's streams; emptied once
echo stale > out.txt
expect_exit 0 "$LACE" stat -r 3 --no-results -e task-clock --output=out.txt -- "${wl[@]}"
expect_nomatch '^zq(out|err)$' "$OUT"$'\n'"$ERR"
expect_eq "$(grep -c '^zqout$' out.txt)" 3 "stdout lines in the file"
expect_eq "$(grep -c '^zqerr$' out.txt)" 3 "stderr lines in the file"
expect_eq "$(grep -c stale out.txt)" 0 "the file was not emptied first"
# a file name that looks like a keyword is given with a path
expect_exit 0 "$LACE" stat --no-results -e task-clock --output=./null -- "${wl[@]}"
expect_eq "$(grep -c '^zq' null)" 2 "--output=./null is a file"

# pipe: read and counted by lace, not shown
expect_exit 0 "$LACE" stat -e task-clock --results pipe.jsonl --output=pipe -- "${wl[@]}"
expect_nomatch '^zq(out|err)$' "$OUT"$'\n'"$ERR"
expect_eq "$(field pipe.jsonl output_bytes)" 12 "bytes read through the pipe"
# and the flood limit still kills a flood
expect_exit 1 "$LACE" stat -r 1 -e task-clock --output=pipe --output-limit 64K --timeout 10 \
  --results flood.jsonl -- yes
expect_eq "$(field flood.jsonl fault)" flood
[ "$(field flood.jsonl output_bytes)" -gt 65536 ] || fail "flood bytes not recorded"
# --show-output: the pipe, passed on to stderr (stdout stays lace's)
expect_exit 0 "$LACE" stat --no-results -e task-clock --show-output -- "${wl[@]}"
expect_match '^zqout$' "$ERR"
expect_nomatch '^zq(out|err)$' "$OUT"

# lace ab: the same runner, the same choice
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 --no-results -e task-clock -A 'echo zqa' -B 'echo zqb'
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^zq[ab]$')" 4 "ab inherits by default"
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 --no-results -e task-clock --json -A 'echo zqa' -B 'echo zqb'
expect_eq "$(printf '%s\n' "$ERR" | grep -c '^zq[ab]$')" 4 "ab --json: the commands write to stderr"
printf '%s' "$OUT" | jq -e . >/dev/null || fail "ab --json with printing commands is not JSON: $OUT"
expect_exit 0 "$LACE" ab -r 2 --warmup 0 --seed 1 --no-results -e task-clock --output=ab.txt --json \
  -A 'echo zqa' -B 'echo zqb'
printf '%s' "$OUT" | jq -e . >/dev/null || fail "ab --json with --output=FILE is not JSON: $OUT"
expect_eq "$(grep -c '^zq[ab]$' ab.txt)" 4 "ab runs' output in the file"

# bad values: usage errors, one line each
for bad in --output= --output=/nonexistent-dir/x "--output=null --show-output" \
           "--output=inherit --output-limit 1M"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$LACE" stat --no-results $bad -- true
  expect_one_line "$ERR"
  expect_match '^lace: stat: ' "$ERR"
done
expect_exit 2 "$LACE" ab --output= -A true -B true
expect_one_line "$ERR"
expect_match '^lace: ab: ' "$ERR"
exit 0
