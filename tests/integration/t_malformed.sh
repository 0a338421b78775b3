# The malformed-input table: every row of tests/fixtures/malformed/cases.tsv
# is made at test time from a real ELF (gen.py) or here (directories,
# unreadable files), run through `lace layout` (and a few through
# `lace diff`), and must end as the table says: exit 2 with exactly one line
# `lace: FILE: reason`, or exit 0 for inputs lace can handle; never a signal,
# never a hang.  Under `make check SANITIZE=1` $LACE is the ASan/UBSan build,
# so any sanitizer report fails the row too (it adds lines and changes the
# exit status).
. "$SRC/tests/integration/lib.sh"

"$LACE" help | grep -q '^ *layout ' || fail "$LACE has no layout command"
fx=$SRC/tests/fixtures/malformed
in=$T/in
mkdir -p "$in"
# a private copy: a rebuild of $LACE while the table runs must not fail a row
cp "$LACE" "$T/lace" || fail "cannot copy $LACE"
lace=$T/lace

# --- the real ELFs the cases are made from --------------------------------
gcc -O2 -o "$T/base" "$fx/base.c" || fail "cannot build the base executable"
gcc -O2 -c -o "$T/base.o" "$fx/base.c" || fail "cannot build the base object"
obj32="" ppc=""
as --32 -o "$T/base32.o" "$fx/base32.s" 2>/dev/null && obj32=$T/base32.o
command -v powerpc64le-linux-gnu-gcc >/dev/null &&
  powerpc64le-linux-gnu-gcc -O2 -c -o "$T/base-ppc64le.o" "$fx/base.c" && ppc=$T/base-ppc64le.o
python3 "$fx/gen.py" "$T/base" "$T/base.o" "$in" "$obj32" "$ppc" >"$T/made" ||
  fail "gen.py failed"
"$lace" layout "$T/base" >/dev/null 2>"$T/base.err" ||
  fail "the unmodified base does not load: $(cat "$T/base.err")"

# --- the inputs gen.py cannot make: file-system objects --------------------
# The path each shell-made case is read from; empty when it cannot be made
# here (the reason goes to $notes).
notes=""
shell_input() {
  case $1 in
    directory) mkdir -p "$in/directory"; echo "$in/directory" ;;
    missing) echo "$in/missing" ;;
    dangling-symlink) ln -sf "$in/no-such-target" "$in/dangling-symlink"; echo "$in/dangling-symlink" ;;
    unreadable) cp "$T/base" "$in/unreadable"; chmod 000 "$in/unreadable"; echo "$in/unreadable" ;;
    fifo) rm -f "$in/fifo"; mkfifo "$in/fifo"; echo "$in/fifo" ;;
    socket)
      rm -f "$in/socket"
      python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$in/socket" &&
        echo "$in/socket" ;;
    proc-mem) echo /proc/self/mem ;;
  esac
}

# Root reads a mode-000 file anyway (CAP_DAC_OVERRIDE); dropping that
# capability and CAP_DAC_READ_SEARCH from the bounding set before exec makes
# the kernel refuse the open, as it would for any other user.  unpriv is the
# command prefix that does it (empty when not root: the mode alone works).
unpriv=()
if [ "$(id -u)" -eq 0 ]; then
  if capsh --drop=cap_dac_override,cap_dac_read_search -- -c true 2>/dev/null; then
    unpriv=(capsh --drop=cap_dac_override,cap_dac_read_search -- -c 'exec "$0" "$@"')
  else
    no_capsh=1
  fi
fi

esc() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

bad=0 runs=0
problem() { echo "FAIL: $*" >&2; bad=$((bad + 1)); }

# check_run CASE FILE WANT REASON CMD...: run CMD (lace) with a time limit
# and compare with the table row
check_run() {
  local name=$1 file=$2 want=$3 reason=$4; shift 4
  runs=$((runs + 1))
  timeout -s KILL 60 "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local err; err=$(cat "$T/err")
  if [ $rc -eq 137 ]; then
    problem "$name: '$*' hung (killed after 60s)"; return
  fi
  if [ $rc -gt 128 ]; then
    problem "$name: '$*' died of signal $((rc - 128)); stderr: $(head -c 1500 "$T/err")"; return
  fi
  if [ $rc -ne "$want" ]; then
    problem "$name: '$*' exited $rc, the table says $want; stderr: $(head -c 1500 "$T/err")"; return
  fi
  local re="^lace: $(esc "$file"): ($reason)\$"
  [ "$want" -eq 0 ] && re="^lace: warning: $(esc "$file"): ($reason)\$"
  if [ "$want" -eq 2 ]; then
    [ "$(wc -l <"$T/err")" -eq 1 ] || { problem "$name: expected one stderr line, got: $err"; return; }
    printf '%s\n' "$err" | grep -Eq -- "$re" || problem "$name: stderr '$err' does not match /$re/"
  else
    [ -s "$T/out" ] || problem "$name: exit 0 but nothing on stdout"
    # every stderr line (warnings) must match the row's reason
    if [ -n "$err" ] && printf '%s\n' "$err" | grep -Evq -- "$re"; then
      problem "$name: unexpected stderr: $err"
    fi
  fi
}

ncases=0
diff_cmd=0
"$lace" help | grep -q '^ *diff ' && diff_cmd=1
while IFS=$'\t' read -r name want reason what; do
  case $name in ''|'#'*) continue ;; esac
  ncases=$((ncases + 1))
  if [ "$name" = truncated ]; then
    files=$(grep '^truncated-' "$T/made" | sed "s|^|$in/|")
  elif grep -qx -- "$name" "$T/made"; then
    files=$in/$name
  else
    files=$(shell_input "$name")
  fi
  if [ -z "$files" ]; then
    notes="$notes $name(not made here)"; continue
  fi
  for f in $files; do
    if [ "$name" = unreadable ]; then
      [ -n "${no_capsh:-}" ] && { notes="$notes unreadable(capsh cannot drop capabilities here)"; continue; }
      check_run "$name" "$f" "$want" "$reason" "${unpriv[@]}" "$lace" layout --branches "$f"
      continue
    fi
    # --branches: a file that loads is decoded too
    check_run "$name" "$f" "$want" "$reason" "$lace" layout --branches "$f"
  done
  # lace diff reads both inputs through the same loader: one file of each
  # failing row, as the new side, must give the same verdict
  if [ $diff_cmd -eq 1 ] && [ "$want" -eq 2 ] && [ "$name" != unreadable ]; then
    f=$(printf '%s\n' $files | head -n 1)
    check_run "diff $name" "$f" 2 "$reason" "$lace" diff "$T/base" "$f"
  fi
done <"$fx/cases.tsv"

[ $ncases -ge 30 ] || fail "only $ncases cases read from cases.tsv"
[ -n "$notes" ] && echo "note: not run:$notes"
[ $bad -eq 0 ] || fail "$bad of $runs runs did not end as cases.tsv says"
echo "$ncases cases, $runs runs: all as cases.tsv says"
exit 0
