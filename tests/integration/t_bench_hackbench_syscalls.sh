# Acceptance 1 of the workloads: for the same -g/-f/-l, bench/hackbench makes
# exactly as many write(2) and read(2) system calls as rt-tests hackbench,
# over socketpairs, pipes and loopback TCP, with processes and threads.  Counted with
# perf's syscalls:sys_enter_{write,read} tracepoints over the whole process
# tree (perf stat follows children), stdout to a file on both sides.
. "$SRC/tests/integration/lib.sh"

HB=$BUILD/bench/hackbench
RT=$(command -v hackbench) || skip "rt-tests hackbench not installed (scripts/setup-deps.sh test)"
[ -x "$HB" ] || fail "$HB not built"
# A sanitizer runtime reads /proc and runs under valgrind badly: not the
# workload's behaviour, so sanitized builds (make check SANITIZE=1) skip.
readelf -d "$HB" | grep -q 'NEEDED.*lib[at]san' && skip "sanitizer build (its runtime makes system calls of its own)"
command -v perf >/dev/null || skip "perf not installed"
perf stat -x, -e syscalls:sys_enter_write true 2>"$T/probe" >/dev/null ||
  skip "perf cannot count syscalls tracepoints here: $(tail -n 1 "$T/probe")"
grep -q 'not supported\|not counted' "$T/probe" && skip "syscalls tracepoints not counted: $(cat "$T/probe")"

# count BIN ARGS...: prints "writes reads"
count() {
  perf stat -x, -e syscalls:sys_enter_write,syscalls:sys_enter_read -o "$T/stat" \
    "$@" >"$T/stdout" 2>"$T/stderr" || fail "'$*' failed: $(cat "$T/stderr")"
  w=$(awk -F, '$3 == "syscalls:sys_enter_write" { print $1 }' "$T/stat")
  r=$(awk -F, '$3 == "syscalls:sys_enter_read" { print $1 }' "$T/stat")
  case "$w$r" in *[!0-9]*|"") fail "perf gave no counts for '$*': $(cat "$T/stat")" ;; esac
  echo "$w $r"
}

# compare G F L MODE [RUNS]: rt-tests' counts (the smallest over RUNS runs,
# see below) must equal the workload's, and the protocol's arithmetic:
# writes = messages + one ready byte per task + one wake byte + two writes
# to stdout; reads = messages + ready reads + the dynamic loader's reads of
# the two shared libraries each binary needs.
compare() {
  g=$1 f=$2 l=$3 mode=$4 runs=${5:-1}
  want=""
  for _ in $(seq "$runs"); do
    # shellcheck disable=SC2086
    c=$(count "$RT" -g $g -f $f -l $l $mode) || exit 1
    if [ -z "$want" ] || [ "${c#* }" -lt "${want#* }" ]; then want=$c; fi
  done
  # shellcheck disable=SC2086
  got=$(count "$HB" -g $g -f $f -l $l $mode) || exit 1
  echo "-g $g -f $f -l $l ${mode:-(socket, process)}: rt-tests $want, lace $got (writes reads)"
  # the workload did pass every message through its model path
  expect_match "messages=$((g * f * f * l)) entries=$((2 * g * f * f * l)) " "$(tail -n 1 "$T/stdout")"
  if [ "$got" != "$want" ]; then
    echo "NEEDED libraries (each costs the loader one read):" >&2
    readelf -d "$RT" "$HB" | grep -E 'NEEDED|File:' >&2
    fail "hackbench -g $g -f $f -l $l $mode: lace made $got (writes reads), rt-tests $want"
  fi
  expect_eq "$got" "$((g*f*f*l + 2*g*f + 1 + 2)) $((g*f*f*l + 2*g*f + 2))" "hackbench $mode counts"
}

compare 2 5 20 ""
compare 2 5 20 "-p"
compare 2 5 20 "-i"
# Threads: rt-tests' receivers free() their context, and glibc then gives a
# thread an arena; once more than 8 arenas exist, sizing the arena list
# reads /sys/devices/system/cpu/online: an occasional extra read(2) that is
# glibc's, not the protocol's.  With 6 workers (-g 1 -f 3) there can never
# be 8 arenas: exact, single run.  With 20, take rt-tests' smallest of three
# runs.  (The workload sets M_ARENA_MAX=1 and never makes that read.)
# On a loaded machine all three runs made it once (CI, 1023 reads for
# 1022): rt-tests' runs get glibc's own MALLOC_ARENA_MAX=1 too, so neither
# side sizes an arena list and the counts are the protocol's alone.
export MALLOC_ARENA_MAX=1
compare 1 3 50 "-T"
compare 1 3 50 "-p -T"
compare 2 5 20 "-T" 3
compare 2 5 20 "-p -T" 3
exit 0
