# lace stat --backend sim --record and lace replay (issue 24 item 1): a
# recording replayed through its own build gives the live counts exactly
# (whole run, forked children, windows); through a relink with every
# function moved it carries all the program's code over exactly; through a
# program from other source it refuses in one line; a cut file is a
# one-line error.
. "$SRC/tests/integration/lib.sh"
[ -x "$BUILD/vg/lace-vg-amd64-linux" ] || skip "simulator not built (valgrind static archives missing)"
command -v valgrind >/dev/null || skip "valgrind not installed"
cd "$T" || fail "no temp dir"
EV=instructions,L1-icache-loads,L1-icache-load-misses,iTLB-loads,iTLB-load-misses,stlb-loads,stlb-misses,fetch-blocks,fetch-late-entries

# live (stat -x,) and replayed (replay --csv) counts, as "event value" lines
live() { printf '%s\n' "$1" | awk -F, 'NF > 2 && $1 ~ /^[0-9]+$/ { print $3, $1 }'; }
replayed() { printf '%s\n' "$1" | awk -F, -v l="$2" '$1 == l { print $2, $3 }'; }

cc -O1 -c -o footprint.o "$SRC/tests/fixtures/sim/footprint.c" || fail "cannot build footprint"
cc -o footprint footprint.o || fail "cannot link footprint"
cc -O1 -o forker "$SRC/tests/fixtures/sim/forker.c" || fail "cannot build forker"
cc -O1 -I"$SRC" -o window "$SRC/tests/fixtures/sim/window.c" || fail "cannot build window"
cc -O1 -o calls "$SRC/tests/fixtures/sim/calls.c" || fail "cannot build calls"

# own build: exactly the live counts, every event
for prog in footprint forker window; do
  expect_exit 0 "$LACE" stat --backend sim --no-results -x, -e "$EV" --record $prog.rec -- ./$prog
  want=$(live "$OUT")
  [ "$(printf '%s\n' "$want" | wc -l)" -eq 9 ] || fail "$prog: live counts: $OUT"
  expect_exit 0 "$LACE" replay -e "$EV" --csv $prog.rec
  expect_eq "$(replayed "$OUT" recorded)" "$want" "$prog: replay differs from the live run"
done
# windows only
expect_exit 0 "$LACE" stat --backend sim --no-results -x, -e "$EV" --window --record w.rec -- ./window
want=$(live "$OUT")
expect_exit 0 "$LACE" replay -e "$EV" --csv w.rec
expect_eq "$(replayed "$OUT" recorded)" "$want" "window: replay differs from the live run"

# a relink with every function moved (an unused function linked first):
# all of the program's code carried exactly, the same instructions run
printf '__attribute__((used, aligned(64))) void lace_pad(void) { __asm__ volatile(".skip 1000"); }\n' > pad.c
cc -O1 -c pad.c && cc -o moved pad.o footprint.o || fail "cannot relink footprint"
a=$(nm footprint | awk '$3 == "main" { print $1 }'); b=$(nm moved | awk '$3 == "main" { print $1 }')
[ -n "$a" ] && [ "$a" != "$b" ] || fail "the relink did not move main ($a, $b)"
expect_exit 0 "$LACE" replay --layout ./moved --layout ./footprint --json footprint.rec
printf '%s' "$OUT" | jq -e '.layouts[1].carried.approximate == 0 and .layouts[1].carried.exact > 2000000
  and .layouts[1].counts.instructions == .layouts[0].counts.instructions
  and .layouts[2].counts == .layouts[0].counts' >/dev/null ||
  fail "relinked replay: $OUT"

# other source: refused, one line naming the functions; accepted when told
expect_exit 2 "$LACE" replay --layout ./calls footprint.rec
expect_one_line "$ERR"
expect_match '^lace: \./calls: [0-9.]+% of the executed instructions are carried over approximately \(above --max-approx 1%\), in: main' "$ERR"
expect_exit 0 "$LACE" replay --layout ./calls --max-approx 100 footprint.rec

# a stripped build, or one for another machine: lace's own one line, not
# "everything carried approximately"
strip -o stripped ./footprint || fail "cannot strip footprint"
expect_exit 2 "$LACE" replay --layout ./stripped footprint.rec
expect_one_line "$ERR"
expect_match '^lace: \./stripped: no function symbols \(stripped\?\)' "$ERR"
if [ -f "$BUILD/ppc64le/bench/faultbench" ]; then
  expect_exit 2 "$LACE" replay --layout "$BUILD/ppc64le/bench/faultbench" footprint.rec
  expect_one_line "$ERR"
  expect_match 'an ELF for machine 21, the recorded build.s is 62: not a build of the same code' "$ERR"
fi

# cut or foreign files
head -c 300 footprint.rec > cut.rec
expect_exit 2 "$LACE" replay cut.rec
expect_one_line "$ERR"
expect_match '^lace: cut.rec: truncated' "$ERR"
expect_exit 2 "$LACE" replay ./calls
expect_eq "$ERR" "lace: ./calls: not a lace recording"
expect_exit 2 "$LACE" replay -e cycles footprint.rec
expect_one_line "$ERR"
exit 0
