# The function-length report (issue 25): no product function over 150
# lines outside scripts/function-length-allow.txt.  Then, in a scratch
# copy of the tree, a planted 151-line function fails the report and is
# named, a 150-line one is not, braces in comments and strings do not
# fool the measure, and a stale allow-list entry fails too.
. "$SRC/tests/integration/lib.sh"

command -v ctags >/dev/null && ctags --version | grep -q "Universal Ctags" ||
  skip "universal-ctags not installed (apt-get install universal-ctags)"
S=$SRC/scripts/check-function-length.sh

"$S" "$SRC" >"$T/report" 2>&1 || fail "the tree has functions to split:"$'\n'"$(cat "$T/report")"
echo "$(tail -n 1 "$T/report")"

mkdir "$T/tree"
tar -C "$SRC" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$T/tree" -xf - ||
  fail "cannot copy the tree"

# planted(NAME, LINES): a function of exactly LINES lines, first to last
# brace, with braces in a comment, a string and a character constant
planted() {
  echo "int $1(int x)"
  echo "{"
  echo "	/* } a closing brace in a comment */"
  echo "	const char *s = \"}}\"; char c = '}';"
  for ((i = 0; i < $2 - 6; i++)); do echo "	x += $i;"; done
  echo "	return x + s[0] + c;"
  echo "}"
}
{ planted planted_long 151; planted planted_ok 150; } >"$T/tree/util/planted.c"
"$S" "$T/tree" >"$T/out" 2>&1 && fail "a 151-line function passed:"$'\n'"$(cat "$T/out")"
grep -qx "util/planted.c:1: planted_long: 151 lines, over 150: split it by what it does" "$T/out" ||
  fail "the long function is not named:"$'\n'"$(cat "$T/out")"
grep -q "planted_ok" "$T/out" && fail "a 150-line function was reported:"$'\n'"$(cat "$T/out")"

# tests are not product code; the allow-list lets a listed one stay
mv "$T/tree/util/planted.c" "$T/tree/tests/planted.c"
"$S" "$T/tree" >"$T/out" 2>&1 || fail "a long function in tests/ failed the report"
mv "$T/tree/tests/planted.c" "$T/tree/util/planted.c"
echo "util/planted.c planted_long  # test" >>"$T/tree/scripts/function-length-allow.txt"
"$S" "$T/tree" >"$T/out" 2>&1 || fail "an allowed function failed:"$'\n'"$(cat "$T/out")"

# an entry that is no longer long must go
rm "$T/tree/util/planted.c"
"$S" "$T/tree" >"$T/out" 2>&1 && fail "a stale allow-list entry passed"
grep -q "util/planted.c: planted_long is not over 150 lines" "$T/out" ||
  fail "the stale entry is not named:"$'\n'"$(cat "$T/out")"
exit 0
