# The command table: help, version, unknown commands and options.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" --version
expect_match '^lace version [0-9]+\.[0-9]+' "$OUT"

expect_exit 0 "$LACE" help
expect_match '^commands:' "$OUT"

expect_exit 2 "$LACE"
expect_match 'usage: lace' "$ERR"

# unknown command: one line, exit 2, closest name suggested
expect_exit 2 "$LACE" hlep
expect_one_line "$ERR"
expect_match "did you mean 'help'" "$ERR"

expect_exit 2 "$LACE" --bogus
expect_one_line "$ERR"

# every listed command answers --help with its usage, and help CMD agrees
for c in $("$LACE" help | awk '/^commands:/{f=1;next} f && !NF {exit} f {print $1}'); do
  expect_exit 0 "$LACE" "$c" --help
  expect_match "usage: lace $c" "$OUT"
  h1=$OUT
  expect_exit 0 "$LACE" help "$c"
  expect_eq "$OUT" "$h1" "lace help $c vs lace $c --help"
done
# stat and ab: each backend's options under its own heading
for c in stat ab; do
  expect_exit 0 "$LACE" "$c" --help
  printf '%s\n' "$OUT" | awk '/^simulator options/ { h = "vg" } /^qemu options/ { h = "qemu" }
    /^ +--cpu-profile / { vg = h } /^ +--kernel / { q = h }
    END { exit !(vg == "vg" && q == "qemu") }' ||
    fail "lace $c --help: --cpu-profile and --kernel not under their backends' headings"
done
exit 0
