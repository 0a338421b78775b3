# The man pages: each renders without a warning, lace(1) lists every
# command and every command has its page, which points back to lace(1);
# every command line of an EXAMPLES section (inside .nf/.fi) that starts
# with "lace" uses a real command and only options its --help lists.
# Only the options are checked here: the examples name placeholder files
# (vmlinux.old, ./bench, prog); t_readme.sh runs the README's commands.
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/doc_examples.sh"
command -v groff >/dev/null || skip "groff not installed"

pages=$(ls "$SRC"/doc/*.1)
[ -f "$SRC/doc/lace.1" ] || fail "no doc/lace.1"
for p in $pages; do
  w=$(groff -man -ww -z "$p" 2>&1)
  [ -z "$w" ] || fail "$(basename "$p"): groff warns: $w"
  if command -v man >/dev/null; then
    w=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
    [ -z "$w" ] || fail "$(basename "$p"): man warns: $w"
  fi
done

# every command has a page, listed in lace(1), and the page points to lace(1)
cmds=$("$LACE" help | awk '/^commands:/ { on = 1; next } on && /^   [a-z]/ { print $1 }')
[ -n "$cmds" ] || fail "lace help lists no commands"
for c in $cmds; do
  [ "$c" = help ] && continue
  [ -f "$SRC/doc/lace-$c.1" ] || fail "lace $c has no doc/lace-$c.1"
  grep -q "^\.BR lace\\\\-$c (1)" "$SRC/doc/lace.1" || fail "doc/lace.1 does not refer to lace-$c(1)"
  sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$SRC/doc/lace-$c.1" | grep -q '^\.BR lace (1)' ||
    fail "doc/lace-$c.1: SEE ALSO does not list lace(1)"
done

# the examples: .nf/.fi blocks of the EXAMPLES section, groff escapes
# undone, "\" continuation lines joined
total=0
for p in $pages; do
  name=$(basename "$p")
  awk '/^\.SH / { ex = ($0 ~ /^\.SH EXAMPLES?$/) ; next }
       ex && /^\.nf/ { nf = 1; next }
       ex && /^\.fi/ { nf = 0; next }
       ex && nf' "$p" |
    sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\e/\\/g' |
    sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' >"$T/$name.ex"
  n=$(grep -c '^lace ' "$T/$name.ex")
  [ "$n" -gt 0 ] || fail "$name: no lace command in its EXAMPLES"
  while IFS= read -r line; do
    case $line in
      "lace "*) doc_check_syntax "$name" "$line" || fail "$name: example '$line': see above" ;;
      *) echo "$name: not a lace command, not checked: $line" ;;
    esac
  done <"$T/$name.ex"
  total=$((total + n))
done
echo "checked $total examples in $(echo $pages | wc -w) pages"
