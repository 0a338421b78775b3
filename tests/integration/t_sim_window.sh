# lace stat --backend sim --window: only what runs between the workload's
# lace_window_begin/end marks (measure/lace_window.h) is counted.  A loop
# of exactly 2 instructions per iteration in the window gives 2N plus the
# marks' own few instructions; windows add up; a child forked inside a
# window counts in its own; start-up of the study workloads is left out;
# a workload without marks is a failed run, never its whole count.
. "$SRC/tests/integration/lib.sh"
need_vg
[ -f /usr/include/valgrind/valgrind.h ] || skip "valgrind.h missing: workloads cannot mark a window"
cc -O1 -I"$SRC" -o window "$SRC/tests/fixtures/sim/window.c" || fail "cannot build the window fixture"

count() { # ARGS...: instructions in the window
  "$LACE" stat --backend sim --window --no-results -e instructions -x, -- "$@" 2>/dev/null | cut -d, -f1
}
w1=$(count ./window 1000); w2=$(count ./window 2000); w3=$(count ./window 1000 3)
echo "window: N=1000 $w1, N=2000 $w2, 3 windows of 1000 $w3"
expect_eq "$((w2 - w1))" 2000 "1000 more iterations of a 2-instruction loop"
marks=$((w1 - 2000))
[ "$marks" -ge 0 ] && [ "$marks" -le 40 ] || fail "the marks cost $marks instructions (0..40 expected)"
expect_eq "$w3" "$((3 * w1))" "three equal windows"
# the whole run is the window plus the start-up and exit the window leaves out
whole=$("$LACE" stat --backend sim --no-results -e instructions -x, -- ./window 1000 2>/dev/null | cut -d, -f1)
[ "$whole" -gt $((w1 + 50000)) ] || fail "whole run $whole is not well above its window $w1"
# a child forked inside the window: its 1000 iterations are counted too
wf=$(count ./window 1000 1 fork)
[ "$wf" -ge $((w1 + 2000)) ] || fail "forked child's window missing: $wf < $((w1 + 2000))"

# the record says what was counted
expect_exit 0 "$LACE" stat --backend sim --window --no-results -e instructions -- ./window 10
expect_match 'window only' "$OUT$ERR"

# no marks: a failed run that says why, exit 1, no count passed off
expect_exit 1 "$LACE" stat --backend sim --window --no-results -e instructions -- /bin/true
expect_match 'marked no measurement window' "$OUT$ERR"
expect_match '<not counted>' "$OUT$ERR"

# the study's faultbench: start-up (about 230,000 instructions) is outside
# (a sanitizer runtime cannot run under valgrind: SANITIZE=1 builds
# faultbench with it, so that part is for the normal build)
fb="$BUILD/bench/faultbench"
built "$fb"
if is_sanitized "$fb"; then
  skip_part "faultbench's window: sanitizer build (its runtime cannot run under valgrind)"
else
  a=$(count "$fb" -n 1); b=$(count "$fb" -n 64)
  echo "faultbench window: -n 1 $a, -n 64 $b"
  [ -n "$a" ] && [ "$a" -lt 20000 ] || fail "faultbench -n 1 window counts $a instructions: start-up inside?"
  [ "$b" -gt "$a" ] || fail "faultbench window does not grow with -n"
fi
echo "ok"
parts_done
