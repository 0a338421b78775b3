# lace stat/ab --backend qemu refuse a --kernel that is no kernel image
# they can boot, in one line of lace's own and exit 2, before anything
# boots (issue 24, acceptance 8): /etc/passwd (QEMU used to try it and
# fail on "linux kernel too old to load a ram disk", exit 1), an x86-64
# ELF (stripped or not: QEMU boots x86-64 kernels from the bzImage), a
# ppc64le object file, an ELF of another architecture, a missing file.
# QEMU here is a stand-in that records being started: none of this may
# start it.  Needs no kernel build and no QEMU.
. "$SRC/tests/integration/lib.sh"
command -v gcc >/dev/null || skip "gcc not installed"
cd "$T" || exit 1
mkdir bin
for q in qemu-system-x86_64 qemu-system-ppc64; do
  printf '#!/bin/sh\necho "$0 $*" >> %s/booted\nexit 1\n' "$T" > "bin/$q"
  chmod +x "bin/$q"
done
export PATH=$T/bin:$PATH

echo 'int main(void) { return 0; }' > m.c
gcc -O2 -o x86elf m.c || fail "cc"
strip -o x86stripped x86elf || fail "strip"
# an ELF executable header of another machine (AArch64, 183), by hand
python3 - <<'PY' || fail "writing the aarch64 header"
import struct
h = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 2, 183, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
open("aarch64.elf", "wb").write(h + bytes(256))
PY
# a file of 1 KiB with the bytes of the boot header somewhere else
head -c 1024 /dev/zero > zeros

bad() { # bad WHAT-IT-SAYS FILE: stat and ab refuse FILE, saying WHAT
  local want=$1 f=$2
  expect_exit 2 "$LACE" stat --backend qemu --kernel "$f" -e instructions:u -- true
  expect_one_line "$ERR"
  expect_match "^lace: stat: $f: $want" "$ERR"
  expect_exit 2 "$LACE" ab --backend qemu --kernel-a "$f" --kernel-b "$f" -e instructions:u -r 2 -- true
  expect_one_line "$ERR"
  expect_match "^lace: ab: $f: $want" "$ERR"
  [ -e booted ] && fail "QEMU was started for $f: $(cat booted)"
  return 0
}
bad 'not a kernel image: neither an x86 bzImage \(no "HdrS" boot header at 0x202\) nor an ELF vmlinux' /etc/passwd
bad 'not a kernel image' "$T/zeros"
bad 'an x86-64 ELF, not a bootable image: QEMU boots an x86-64 kernel from its bzImage' "$T/x86elf"
bad 'an x86-64 ELF, not a bootable image' "$T/x86stripped"
bad 'an ELF kernel for machine 183: the qemu backend boots x86-64 and ppc64le kernels' "$T/aarch64.elf"
bad 'no such file \(--kernel(-a)?\)' "$T/nope"
if command -v powerpc64le-linux-gnu-gcc >/dev/null; then
  powerpc64le-linux-gnu-gcc -c -o ppc.o m.c || fail "cross cc -c"
  bad 'a ppc64le ELF object file, not a kernel \(a vmlinux is an executable\)' "$T/ppc.o"
fi
# one good side does not let a bad other side through
expect_exit 2 "$LACE" ab --backend qemu --kernel-a "$T/x86elf" --kernel-b /etc/passwd -e instructions:u -r 2 -- true
expect_one_line "$ERR"
[ -e booted ] && fail "QEMU was started: $(cat booted)"
exit 0
