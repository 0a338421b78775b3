# The README's commands work as written after `make`, at the top of a clone.
#
# Convention (README.md says so too): every line of a fenced ```sh block is
# one command, a " #" starts a comment. The test walks them in order in a
# scratch copy of the clone's top ($T: build/lace, build/bench and doc/,
# scripts/ linked to the real ones, so what the commands write stays in $T):
#   make TARGET...   not run (CI runs make check and make study); each
#                    target must be a rule of the Makefile or a module.mk
#   man -l FILE      rendered; no warning allowed
#   build/lace ...   run; exit 0 (lace diff and lace check: 0 or 1, their
#                    "no" answer), except two that are only checked for
#                    syntax (the command exists, its --help lists every
#                    option used):
#                    - the kernel's vmlinux ($(scripts/fetch-vmlinux.sh)), a
#                      283 MB download: run only when it is already fetched;
#                    - lace study, which takes minutes (make study runs it);
#                    - lace build kernel and lace ab --same-execution, which
#                      need lace's kernel builds (make check-kernel).
# Inline code spans that start with "lace " or "make " are checked for
# syntax the same way.
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/doc_examples.sh"
readme=$SRC/README.md
[ -f "$readme" ] || fail "no README.md"
need_vg

# ---- the commands ---------------------------------------------------------
awk '/^[[:space:]]*```sh[[:space:]]*$/ { on = 1; next }
     /^[[:space:]]*```/ { on = 0; next }
     on { sub(/^[[:space:]]+/, ""); sub(/[[:space:]]+#.*$/, ""); if ($0 != "") print }' \
  "$readme" >"$T/commands"
# inline spans, in the text outside fences (a span may wrap onto the next line)
awk '/^[[:space:]]*```/ { on = !on; next } !on { printf "%s ", $0 }' "$readme" |
  grep -o '`[^`]*`' | tr -d '`' | sed 's/  */ /g' | grep -E '^(lace|make)( |$)' >"$T/inline"

[ "$(grep -c '^build/lace ' "$T/commands")" -ge 10 ] ||
  fail "fewer than 10 build/lace commands found in README.md's sh blocks: $(cat "$T/commands")"

# the make targets a line names (none: the default goal, all)
make_targets_exist() {
  local line=$1 t
  set -- $line
  shift
  [ $# -gt 0 ] || set -- all
  for t in "$@"; do
    case $t in *=*) continue ;; esac
    cat "$SRC/Makefile" "$SRC"/*/module.mk "$SRC"/*/*/module.mk 2>/dev/null |
      grep -Eq "^([^:#=]* )?$t( [^:#=]*)?:([^=]|$)" || fail "README: make $t: no such target"
  done
}

# the scratch top of the clone
mkdir -p build
ln -s "$LACE" build/lace
ln -s "$BUILD/bench" build/bench
ln -s "$SRC/doc" doc
ln -s "$SRC/scripts" scripts
[ -x build/bench/hackbench ] || fail "$BUILD/bench/hackbench not built"

cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}"
# the pinned vmlinux is in the cache (fetch-vmlinux.sh --abi fetches nothing)
vmlinux_fetched() {
  local abi
  abi=$("$SRC/scripts/fetch-vmlinux.sh" --abi 2>/dev/null) && [ -f "$cache/usr/lib/debug/boot/vmlinux-$abi" ]
}

ran=0 checked=0
while IFS= read -r line; do
  case $line in
    make | "make "*)
      make_targets_exist "$line"; checked=$((checked + 1)) ;;
    "man -l "*)
      f=${line#man -l }
      [ -f "$f" ] || fail "README: $line: no $f"
      w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
      [ -z "$w" ] || fail "README: $line: $w"
      echo "rendered: $line"
      ran=$((ran + 1)) ;;
    "build/lace "* | build/lace)
      doc_check_syntax README "$line" || fail "README: $line: see above"
      syntax_only=""
      case $line in
        *fetch-vmlinux.sh*) vmlinux_fetched || syntax_only="needs the kernel's vmlinux (scripts/fetch-vmlinux.sh downloads 283 MB)" ;;
        "build/lace study"*) syntax_only="lace study takes minutes (make study runs it)" ;;
        "build/lace build kernel"* | *--same-execution*)
          syntax_only="needs lace's kernel builds (minutes; make check-kernel makes them and t_ab_same_execution runs this)" ;;
      esac
      if [ -n "$syntax_only" ]; then
        echo "syntax only: $line ($syntax_only)"
        checked=$((checked + 1))
        continue
      fi
      start=$(date +%s)
      timeout 300 bash -o pipefail -c "$line" >"$T/out" 2>"$T/err" </dev/null
      rc=$?
      ok=0
      case $line in
        "build/lace diff "* | "build/lace check "*) [ $rc -le 1 ] && ok=1 ;;
        *) [ $rc -eq 0 ] && ok=1 ;;
      esac
      [ $ok -eq 1 ] || fail "README: '$line' exited $rc; stderr: $(tail -n 5 "$T/err")"
      echo "ran ($rc, $(( $(date +%s) - start ))s): $line"
      ran=$((ran + 1)) ;;
    *)
      fail "README: the test does not know how to walk this sh line: $line" ;;
  esac
done <"$T/commands"

while IFS= read -r line; do
  case $line in
    make | "make "*) make_targets_exist "$line" ;;
    *) doc_check_syntax "README (inline)" "$line" || fail "README (inline): $line: see above" ;;
  esac
  checked=$((checked + 1))
done <"$T/inline"

echo "README: ran $ran commands, checked $checked for syntax"
