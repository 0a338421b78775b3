# Helpers for integration tests; source it: . "$SRC/tests/integration/lib.sh"
# Each helper prints what went wrong and exits 1, so a test reads as a list
# of expectations.

fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON: only for a missing external prerequisite, named in REASON (a
# Debian package, a fetched kernel or guest, `make check-kernel`'s builds);
# run.sh prints REASON, the last line, and .ci/run's gate
# (scripts/check-skips.sh) fails on a reason not in tests/skip-allow.txt
skip() { echo "$*"; exit 77; }

# built FILE [HOW]: FILE is a build output of lace's own (make builds it
# once the external prerequisites checked before are there): its absence
# is a failure, never a skip
built() {
  [ -e "$1" ] || fail "$1 is missing: a build output of lace's own (${2:-make builds it}); run make"
}

# skip_part REASON: a part of the test cannot run (same rule as skip); the
# rest goes on and parts_done, the test's last line, turns the pass into a
# SKIP that names every part left out, so a partial run never says PASS
skipped_parts=""
skip_part() {
  echo "part skipped: $*"
  skipped_parts="${skipped_parts:+$skipped_parts; }$*"
}
parts_done() {
  [ -z "$skipped_parts" ] || skip "the rest passed; skipped: $skipped_parts"
  exit 0
}

# is_sanitized FILE: FILE links a sanitizer runtime (make SANITIZE=1),
# which cannot run under valgrind
is_sanitized() { readelf -d "$1" | grep -q 'NEEDED.*lib[at]san'; }

# need_vg: valgrind (Debian package valgrind, whose static archives make
# builds the tool against) or a skip; then the tool, which make builds
need_vg() {
  command -v valgrind >/dev/null && [ -f /usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a ] ||
    skip "valgrind not installed (Debian package valgrind)"
  built "$BUILD/vg/lace-vg-amd64-linux" "make builds the Valgrind tool when valgrind is installed"
}

# need_qemu_x86: qemu-system-x86_64 (Debian package qemu-system-x86) or a
# skip; then the TCG plugin and the guest runner, which make builds
need_qemu_x86() {
  [ -x /usr/bin/qemu-system-x86_64 ] ||
    skip "qemu-system-x86_64 not installed (Debian package qemu-system-x86)"
  built "$BUILD/qemu/liblace-tcg.so" "make builds the TCG plugin when qemu-system-x86 is installed"
  built "$BUILD/qemu/lace-guest-run" "make builds it when qemu-system-x86 is installed"
}

# need_ppc_cross: the ppc64le cross compiler and its static libc (Debian
# packages gcc-powerpc64le-linux-gnu, libc6-dev-ppc64el-cross) or a skip
need_ppc_cross() {
  command -v powerpc64le-linux-gnu-gcc >/dev/null ||
    skip "powerpc64le-linux-gnu-gcc not installed (Debian package gcc-powerpc64le-linux-gnu)"
  case $(powerpc64le-linux-gnu-gcc -print-file-name=libc.a) in
    /*) ;;
    *) skip "no static libc for powerpc64le-linux-gnu-gcc (Debian package libc6-dev-ppc64el-cross)" ;;
  esac
}

# expect_exit CODE CMD...: run CMD, capture stdout in $OUT and stderr in $ERR
expect_exit() {
  local want=$1; shift
  OUT=$("$@" 2>"$T/.stderr"); local rc=$?
  ERR=$(cat "$T/.stderr")
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $ERR"
}

# expect_match PATTERN TEXT: extended regex must match somewhere in TEXT
expect_match() {
  printf '%s\n' "$2" | grep -Eq -- "$1" || fail "expected /$1/ in: $(printf '%s' "$2" | head -c 2000)"
}

expect_nomatch() {
  printf '%s\n' "$2" | grep -Eq -- "$1" && fail "did not expect /$1/ in: $(printf '%s' "$2" | head -c 2000)"
  return 0
}

# expect_one_line TEXT: exactly one line (error messages)
expect_one_line() {
  [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ] || fail "expected one line, got: $1"
}

expect_eq() {
  [ "$1" = "$2" ] || fail "${3:-values differ}: got '$1', expected '$2'"
}

# mkcpio INIT-BINARY OUT: a newc initramfs holding /dev and /init, for the
# tests that boot a kernel (no cpio(1) needed)
mkcpio() {
  python3 - "$1" "$2" <<'PY' || fail "cannot build the initramfs $2"
import sys
def ent(name, mode, data=b"", ino=1):
    h = "070701" + "".join("%08x" % x for x in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
    b = h.encode() + name.encode() + b"\0"
    b += b"\0" * (-len(b) % 4) + data
    return b + b"\0" * (-len(b) % 4)
d = open(sys.argv[1], "rb").read()
out = ent("dev", 0o40755, ino=1) + ent("init", 0o100755, d, ino=2) + ent("TRAILER!!!", 0, ino=0)
open(sys.argv[2], "wb").write(out)
PY
}

# qemu_guest: the x86-64 guest lace stat --backend qemu boots by default
# (Debian's cloud kernel, its System.map, busybox-static), fetched into
# lace's cache by scripts/fetch-guest.sh when it is not there yet (once,
# shared by the tests: a ~300 MB download from Debian's mirror, ~20 s; then
# a few file checks); skips the test, saying why, when it cannot be had
# (qemu_guest --arch ppc64le: Debian's powerpc64le kernel and ppc64el
# busybox, ~50 MB, ~8 s)
qemu_guest() {
  "$SRC/scripts/fetch-guest.sh" "$@" >"$T/.fetch-guest.out" 2>"$T/.fetch-guest.err" ||
    skip "no guest kernel for the qemu backend (scripts/fetch-guest.sh $*: $(tail -n 1 "$T/.fetch-guest.err"))"
}

# ppc_guest: what a test on the ppc64le guest needs -- qemu-system-ppc64,
# the cross-built guest runner, Debian's powerpc64le kernel (qemu_guest
# --arch ppc64le) -- or a skip saying which is missing.  Sets ppc_abi and
# ppc_vmlinux, ppc_map (the kernel and its System.map in lace's cache).
ppc_guest() {
  local cache
  command -v qemu-system-ppc64 >/dev/null ||
    skip "qemu-system-ppc64 not installed (Debian package qemu-system-ppc)"
  need_qemu_x86
  need_ppc_cross
  built "$BUILD/qemu/ppc64le/lace-guest-run" "make builds it with powerpc64le-linux-gnu-gcc"
  qemu_guest --arch ppc64le
  cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/ppc64le"
  ppc_abi=$(cat "$cache/kernel.abi")
  ppc_vmlinux=$cache/vmlinux-$ppc_abi
  ppc_map=$cache/System.map-$ppc_abi
}
