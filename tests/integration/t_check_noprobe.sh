# lace check catches the kprobes regression (issue 24, acceptance 7) on a
# kernel-style fixture built here: entry and NMI code leaving the entry text
# (the whole text dissolving into .text, its markers enclosing nothing) is a
# noprobe-region error naming each function, with no --config, and
# declaring the move with --expect passes it; the noinstr text that stays
# is not reported, and the opposite move (into the entry text) is a note.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null && command -v ld >/dev/null || skip "gcc/ld not available"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 assembly fixture"
S=$SRC/tests/fixtures/check/kentry.S
gcc -c -o "$T/a8.o" "$S" && ld -o "$T/align8" -e _start "$T/a8.o" &&
  gcc -c -DENTRY_IN_TEXT -o "$T/it.o" "$S" && ld -o "$T/intext" -e _start "$T/it.o" ||
  fail "building the kentry fixture"

expect_exit 1 "$LACE" check --base "$T/align8" --head "$T/intext" --no-measure
expect_match '^### lace check: FAIL' "$OUT"
for f in asm_exc_nmi entry_SYSCALL_64 paranoid_entry; do
  expect_match "^- \\\\\\[error\\\\\\] noprobe-region: $f: moved out of entry into \\.text: kprobes may now probe it \\(that text holds no function any more\\)" "$OUT"
done
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^| error | noprobe-region')" 3 "noprobe-region errors"
expect_nomatch '`(exc_nmi|do_syscall_64|schedule)`' "$(printf '%s\n' "$OUT" | grep '^| ')"

# lace diff says the same with its default rules, and fails
expect_exit 1 "$LACE" diff "$T/align8" "$T/intext"
expect_match '^findings: 3 error' "$OUT"

# declared: passes, each shown as expected
expect_exit 0 "$LACE" check --base "$T/align8" --head "$T/intext" --no-measure \
  --expect 'entry=^(asm_exc_nmi|entry_SYSCALL_64|paranoid_entry)$'
expect_match '^### lace check: PASS' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^| info (expected) | noprobe-region')" 3 "expected findings"
# a declaration that leaves one out still fails, naming that one
expect_exit 1 "$LACE" check --base "$T/align8" --head "$T/intext" --no-measure \
  --expect 'entry=^(asm_exc_nmi|entry_SYSCALL_64)$'
expect_match '^- \\\[error\\\] noprobe-region: paranoid_entry' "$OUT"
expect_nomatch '^- \\\[error\\\] noprobe-region: asm_exc_nmi' "$OUT"

# the patch's direction (into the entry text) passes: notes only
expect_exit 0 "$LACE" check --base "$T/intext" --head "$T/align8" --no-measure
expect_match '^### lace check: PASS' "$OUT"
expect_match '^| info | noprobe-enter | `asm_exc_nmi`' "$OUT"
exit 0
