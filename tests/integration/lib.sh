# Helpers for integration tests; source it: . "$SRC/tests/integration/lib.sh"
# Each helper prints what went wrong and exits 1, so a test reads as a list
# of expectations.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }

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
  command -v qemu-system-ppc64 >/dev/null || skip "qemu-system-ppc64 not installed"
  [ -x "$BUILD/qemu/ppc64le/lace-guest-run" ] ||
    skip "no ppc64le guest runner (make builds it with powerpc64le-linux-gnu-gcc)"
  qemu_guest --arch ppc64le
  cache="${LACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lace}/guest/ppc64le"
  ppc_abi=$(cat "$cache/kernel.abi")
  ppc_vmlinux=$cache/vmlinux-$ppc_abi
  ppc_map=$cache/System.map-$ppc_abi
}
