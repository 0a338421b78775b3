# Helpers for the tests that walk the documentation's commands
# (t_readme.sh, t_man_examples.sh); source it after lib.sh.

# doc_words CMDLINE: the words of the first command of CMDLINE (up to an
# unquoted |, >, <, ; or &), one per line, quotes removed as the shell
# would. A $(...) is replaced by the word SUBST and never run.
doc_words() {
  local line=$1 cut="" q="" c i
  line=$(printf '%s' "$line" | sed 's/\$([^)]*)/SUBST/g; s/`[^`]*`/SUBST/g')
  for ((i = 0; i < ${#line}; i++)); do
    c=${line:i:1}
    if [ -n "$q" ]; then
      [ "$c" = "$q" ] && q=""
    else
      case $c in
        "'" | '"') q=$c ;;
        '|' | '>' | '<' | ';' | '&') break ;;
      esac
    fi
    cut+=$c
  done
  [ -z "$q" ] || { echo "unbalanced quotes in: $1" >&2; return 1; }
  # only quotes, words and the SUBST placeholder are left: eval is a tokenizer here
  eval "set -- $cut" || return 1
  printf '%s\n' "$@"
}

# doc_check_syntax WHERE CMDLINE: CMDLINE is "lace CMD ARGS..." (or
# "build/lace ..."): CMD must be a lace command, and every option before a
# "--" must be listed by "lace CMD --help". A word in capitals (lace CMD
# --help, lace layout ELF) is a placeholder and only the options are checked.
# Prints what is wrong and returns 1.
doc_check_syntax() {
  local where=$1 line=$2 words cmd help w opt bad=0
  words=$(doc_words "$line") || { echo "$where: cannot split: $line" >&2; return 1; }
  mapfile -t w <<<"$words"
  case ${w[0]} in
    lace | build/lace) ;;
    *) echo "$where: not a lace command: $line" >&2; return 1 ;;
  esac
  cmd=${w[1]:-}
  if [ -z "$cmd" ] || [[ "$cmd" == -* ]]; then
    # global options only
    for opt in "${w[@]:1}"; do
      case $opt in --version | -V | --help | -h) ;; *) echo "$where: unknown global option $opt: $line" >&2; bad=1 ;; esac
    done
    return $bad
  fi
  if [[ "$cmd" =~ ^[A-Z]+$ ]]; then
    help=$("$LACE" --help)
  elif ! help=$("$LACE" "$cmd" --help 2>&1); then
    echo "$where: 'lace $cmd' is not a command: $line" >&2
    return 1
  fi
  for opt in "${w[@]:2}"; do
    [ "$opt" = "--" ] && break
    case $opt in
      --help | -h) continue ;; # every command's, handled by lace itself
      --?*) opt=${opt%%=*} ;;
      -?*) opt=${opt:0:2} ;;
      *) continue ;;
    esac
    if ! printf '%s\n' "$help" | grep -Eq -- "(^|[^[:alnum:]-])${opt}([^[:alnum:]-]|$)"; then
      echo "$where: 'lace $cmd --help' does not list $opt: $line" >&2
      bad=1
    fi
  done
  return $bad
}
