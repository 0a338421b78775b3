#!/bin/bash
# One job per file, as issue 16 set the house rules: no command file in
# cli/ over 300 lines (options, printing, exit status; the work is a
# module's), and no C source or header anywhere over 800.  A file that
# grows past either is a sign that a second job moved in.
. "$SRC/tests/integration/lib.sh"

cd "$SRC" || fail "no source tree at $SRC"
bad=""
for f in cli/*.c; do
  n=$(wc -l <"$f")
  [ "$n" -le 300 ] || bad+="$f: $n lines (cli/ limit 300)"$'\n'
done
while IFS= read -r f; do
  n=$(wc -l <"$f")
  [ "$n" -le 800 ] || bad+="$f: $n lines (limit 800)"$'\n'
done < <(find cli layout measure pipeline variants util bench hashmmu probes tests \
              -name '*.[ch]' -not -path '*/gen/*' 2>/dev/null)
[ -z "$bad" ] || fail "files too long:"$'\n'"$bad"
exit 0
