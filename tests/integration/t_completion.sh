#!/bin/bash
# The option table is the one source of --help, parsing and completion:
# every option `lace --list-opts CMD` gives is listed by `lace CMD --help`,
# accepted by the parser (never "unknown option") and, in its long
# spelling, documented in doc/lace-CMD.1; and the installed
# bash completion (scripts/lace-completion.bash, run through bash's own
# COMP_WORDS/COMPREPLY protocol) offers them, the values an argument can
# take, and file names for FILE arguments.
. "$SRC/tests/integration/lib.sh"

# the completion script calls `lace` by name
mkdir -p "$T/bin"
ln -s "$LACE" "$T/bin/lace"
export PATH="$T/bin:$PATH"

expect_exit 2 "$LACE" --list-opts
expect_one_line "$ERR"
expect_exit 2 "$LACE" --list-opts nosuchcommand

for c in stat ab report layout diff check study; do
  expect_exit 0 "$LACE" --list-opts "$c"
  list=$OUT
  [ -n "$list" ] || fail "lace --list-opts $c lists nothing"
  help=$("$LACE" "$c" --help)
  while IFS=$'\t' read -r opt argh values; do
    printf '%s\n' "$help" | grep -Eq -- "(^|[ ,])${opt}([ ,]|$)" ||
      fail "lace $c --help does not list $opt"
    # (long spellings only: a short one shares its long one's entry)
    [[ $opt == --* ]] || continue
    grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$SRC/doc/lace-$c.1" ||
      fail "doc/lace-$c.1 does not document $opt"
    # the parser knows it: the option after it is the one it calls
    # unknown, unless the value was refused first (nothing runs either way)
    if [ -n "$argh" ]; then
      set -- "$opt" /nonexistent/x --bogus-for-test
    else
      set -- "$opt" --bogus-for-test
    fi
    "$LACE" "$c" "$@" >/dev/null 2>"$T/err" </dev/null && fail "lace $c $*: exit 0"
    grep -q "unknown option '$opt'" "$T/err" && fail "lace $c: $opt listed but not parsed"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "lace $c $*: $(cat "$T/err")"
  done <<<"$list"
done
# the simulator's options come from measure/ and are listed too
expect_match '^--cpu-profile	NAME	' "$("$LACE" --list-opts stat)"
# a hidden spelling is parsed but neither listed nor completed
expect_nomatch '^--repeat	' "$("$LACE" --list-opts ab)"

# complete WORDS...: COMPREPLY of the completion for the command line
# WORDS, the last word being the one under the cursor
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _lace
           printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC/scripts/lace-completion.bash" "$@"
}

r=$(complete_words lace sta)
expect_eq "$r" "stat" "commands"
r=$(complete_words lace stat --rep)
expect_eq "$r" "--repeat" "stat options"
r=$(complete_words lace stat --cpu-pr)
expect_eq "$r" "--cpu-profile" "simulator options"
r=$(complete_words lace ab --backend "")
expect_eq "$(echo $r)" "auto hw sim qemu" "--backend values"
r=$(complete_words lace ab -r a)
expect_eq "$r" "auto" "-r values"
r=$(complete_words lace stat --output n)
expect_eq "$r" "null" "--output values"
# a number: nothing to offer; a FILE: file names
r=$(complete_words lace stat --repeat "")
expect_eq "$r" "" "--repeat N"
touch "$T/results-here.jsonl"
r=$(cd "$T" && complete_words lace stat --results results-h)
expect_eq "$r" "results-here.jsonl" "--results FILE"
r=$(complete_words lace diff --fail-on w)
expect_eq "$r" "warning" "--fail-on values"
r=$(complete_words lace build --ldsc)
expect_eq "$r" "--ldscript" "build options from its table"
# lace build's subcommand, its arches, and each arch's kernel variants
r=$(complete_words lace build k)
expect_eq "$r" "kernel" "build subcommands"
r=$(complete_words lace build kernel x8)
expect_eq "$r" "x86_64" "build kernel ARCH"
r=$(complete_words lace build --kernel x8)
expect_eq "$r" "x86_64" "build --kernel ARCH"
r=$(complete_words lace build kernel x86_64 -v entry-in)
expect_eq "$r" "entry-in-text" "build kernel ARCH -v NAME"
exit 0
