# The layering rules (scripts/check-layering.sh): layout/ never runs
# programs, measure/ never reads ELF, cli/ does neither.  The tree as built
# must pass.  Then a scratch copy of the tree and of the build's archives
# gets deliberate violations, each hidden from grep behind a macro, and the
# check must name every one: a layout file that forks (token pasting) and
# includes <sys/wait.h>, one that reaches fork through util's run pool, a
# measure file that calls libbfd, a cli file that includes <gelf.h> through
# a computed #include and one that calls popen.  A source with no object is
# an error, not a pass.
. "$SRC/tests/integration/lib.sh"

check=$SRC/scripts/check-layering.sh
CC=${CC:-gcc}

# --- the tree ------------------------------------------------------------
expect_exit 0 "$check" --src "$SRC" --build "$BUILD"
[ -z "$OUT" ] || fail "violations on the tree: $OUT"

# --- a scratch copy with violations --------------------------------------
s=$T/src b=$T/build
mkdir -p "$s" "$b/cli"
(cd "$SRC" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -C "$s" -xf - ||
  fail "cannot copy the tree"
cp "$BUILD"/lib*.a "$b/" || fail "no module archives in $BUILD"
cp "$BUILD"/cli/*.o "$b/cli/" || fail "no cli objects in $BUILD"
cp -r "$BUILD/gen" "$b/" 2>/dev/null

# the same tree and archives, before any violation: still clean
expect_exit 0 "$check" --src "$s" --build "$b"

cat >"$s/layout/lt_spawn.c" <<'EOF'
#include <sys/wait.h>
#include <unistd.h>
#define CAT(a, b) a##b
int lt_spawn(void) { return CAT(fo, rk)(); }
EOF
cat >"$s/layout/lt_pool.c" <<'EOF'
#include "util/run.h"
void *lt_pool_use(void) { return (void *)run_pool_add; }
EOF
cat >"$s/measure/lt_readelf.c" <<'EOF'
#define OPEN(x) x##_init
void OPEN(bfd)(void);
void lt_readelf(void) { OPEN(bfd)(); }
EOF
cat >"$s/cli/lt_hdr.c" <<'EOF'
#define STR(x) #x
#define XSTR(x) STR(x)
#define HDR(a, b) XSTR(a##b.h)
#include HDR(ge, lf)
int lt_hdr;
EOF
cat >"$s/cli/lt_pipe.c" <<'EOF'
#include <stdio.h>
#define P(a, b) a##b
FILE *lt_pipe(void) { return P(po, pen)("true", "r"); }
EOF
# one planted violation in each room of measure/
cat >"$s/measure/stats/lt_stats_run.c" <<'EOF'
#include "measure/runner.h"
#define R(a, b) a##b
void *lt_stats_run(void) { return (void *)R(runner_, start); }
EOF
cat >"$s/measure/model/lt_model_io.c" <<'EOF'
#define IO(a, b) a##b
int IO(fp, uts)(const char *, void *);
int lt_model_io(void) { return IO(fp, uts)("x", 0); }
EOF
cat >"$s/measure/model/lt_model_hdr.c" <<'EOF'
#define STR(x) #x
#define XSTR(x) STR(x)
#define HDR(a, b) XSTR(a##b.h)
#include HDR(std, io)
int lt_model_hdr;
EOF
cat >"$s/measure/vg/lt_vg_elf.c" <<'EOF'
#define E(a, b) a##b
int E(gelf_, getehdr)(void);
int lt_vg_elf(void) { return E(gelf_, getehdr)(); }
EOF
cat >"$s/measure/replay/lt_replay_elf.c" <<'EOF'
#define E(a, b) a##b
int E(dwarf_, begin)(void);
int lt_replay_elf(void) { return E(dwarf_, begin)(); }
EOF
cat >"$s/measure/qemu/lt_qemu_elf.c" <<'EOF'
#define E(a, b) a##b
int E(elf_, begin)(void);
int lt_qemu_elf(void) { return E(elf_, begin)(); }
EOF
for f in layout/lt_spawn layout/lt_pool measure/lt_readelf cli/lt_hdr cli/lt_pipe \
         measure/stats/lt_stats_run measure/model/lt_model_io measure/model/lt_model_hdr \
         measure/vg/lt_vg_elf measure/qemu/lt_qemu_elf measure/replay/lt_replay_elf; do
  mkdir -p "$b/$(dirname "$f")"
  $CC -c -std=gnu11 -D_GNU_SOURCE -I"$s" -o "$b/$f.o" "$s/$f.c" || fail "cannot compile $f.c"
  # nothing a grep for the names would find
  grep -Eq 'fork|bfd_init|gelf\.h|popen|runner_start|fputs|gelf_getehdr|elf_begin|dwarf_begin' "$s/$f.c" &&
    fail "$f.c spells the name out"
done
ar r "$b/libmeasure_stats.a" "$b/measure/stats/lt_stats_run.o" 2>/dev/null || fail "ar failed"
ar r "$b/libmeasure_model.a" "$b/measure/model/lt_model_io.o" "$b/measure/model/lt_model_hdr.o" 2>/dev/null ||
  fail "ar failed"
ar r "$b/libmeasure_vg.a" "$b/measure/vg/lt_vg_elf.o" 2>/dev/null || fail "ar failed"
ar r "$b/libmeasure_qemu.a" "$b/measure/qemu/lt_qemu_elf.o" 2>/dev/null || fail "ar failed"
ar r "$b/libmeasure_replay.a" "$b/measure/replay/lt_replay_elf.o" 2>/dev/null || fail "ar failed"

ar r "$b/liblayout.a" "$b/layout/lt_spawn.o" "$b/layout/lt_pool.o" 2>/dev/null || fail "ar failed"
ar r "$b/libmeasure.a" "$b/measure/lt_readelf.o" 2>/dev/null || fail "ar failed"

expect_exit 1 "$check" --src "$s" --build "$b"
printf '%s\n' "$OUT" >"$T/violations"
expect_match '^layering: layout/lt_spawn\.c calls fork \(layout/ never runs programs\)$' "$OUT"
expect_match '^layering: layout/lt_spawn\.c includes <sys/wait\.h> \(layout/ never runs programs\)$' "$OUT"
expect_match '^layering: layout/lt_pool\.c calls fork via run_pool_add \(util/run\.c\), [a-z_]+ \(util/run_command\.c\) \(layout/ never runs programs\)$' "$OUT"
expect_match '^layering: measure/lt_readelf\.c calls bfd_init \(measure/ never reads ELF\)$' "$OUT"
expect_match '^layering: cli/lt_hdr\.c includes <gelf\.h> \(cli/ never reads ELF\)$' "$OUT"
expect_match '^layering: cli/lt_pipe\.c calls popen \(cli/ never runs programs\)$' "$OUT"
expect_match '^layering: measure/stats/lt_stats_run\.c calls runner_start of measure/runner\.c, which runs programs \(measure/stats/ runs no program\)$' "$OUT"
expect_match '^layering: measure/model/lt_model_io\.c calls fputs \(measure/model/ does no libc I/O\)$' "$OUT"
expect_match '^layering: measure/model/lt_model_hdr\.c includes <stdio\.h> \(measure/model/ does no libc I/O\)$' "$OUT"
expect_match '^layering: measure/vg/lt_vg_elf\.c calls gelf_getehdr \(measure/vg/ never reads ELF\)$' "$OUT"
expect_match '^layering: measure/qemu/lt_qemu_elf\.c calls elf_begin \(measure/qemu/ never reads ELF\)$' "$OUT"
expect_match '^layering: measure/replay/lt_replay_elf\.c calls dwarf_begin \(measure/replay/ never reads ELF\)$' "$OUT"
# and nothing else: the real files are still clean
n=$(grep -c . "$T/violations")
[ "$n" -ge 12 ] || fail "expected at least 12 violations, got $n: $OUT"
grep -v 'lt_' "$T/violations" | grep -q . && fail "violations outside the synthetic files: $OUT"
cat "$T/violations"

# a source without its object: the check cannot say, so it fails
rm "$b/cli/lt_pipe.o"
expect_exit 2 "$check" --src "$s" --build "$b"
expect_match 'cli/lt_pipe\.o is not built' "$ERR"
rm "$s/cli/lt_pipe.c"
ar d "$b/liblayout.a" lt_spawn.o
expect_exit 2 "$check" --src "$s" --build "$b"
expect_match 'layout/lt_spawn\.c has no object' "$ERR"
exit 0
