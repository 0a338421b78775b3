#!/bin/sh
# Build the fuzz seed corpus into DIR from seed.c: x86-64 relocatable,
# x86-64 executable with DWARF, stripped executable, 32-bit object when the
# compiler can, and a ppc64le object when the cross compiler is installed;
# DIR/pairs/ holds two-ELF inputs for the diff harness.
# usage: make-seeds.sh DIR
set -eu
out=$1
src=$(cd "$(dirname "$0")" && pwd)/seed.c
mkdir -p "$out"
cc=${SEED_CC:-gcc}
$cc -O2 -c -o "$out/seed-x86_64.o" "$src"
$cc -O2 -g -o "$out/seed-x86_64-g" "$src"
$cc -O2 -s -Wl,-z,max-page-size=4096 -Wl,-z,noseparate-code -o "$out/seed-x86_64-stripped" "$src"
$cc -O2 -Wl,-z,max-page-size=4096 -Wl,-z,noseparate-code -o "$out/seed-x86_64" "$src"
$cc -m32 -O2 -c -o "$out/seed-i386.o" "$src" 2>/dev/null || true
if command -v powerpc64le-linux-gnu-gcc >/dev/null 2>&1; then
	# sys/sdt.h is arch-neutral but installed only under the host's include dir
	powerpc64le-linux-gnu-gcc -O2 -idirafter /usr/include/x86_64-linux-gnu \
		-c -o "$out/seed-ppc64le.o" "$src"
fi

# two-input seeds for the diff harness: 2 bytes (little-endian length of the
# first ELF, see fuzz_input_split) then both files back to back
mkdir -p "$out/pairs"
pair() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(len(a).to_bytes(2, 'little') + a + b)
PY
}
pair "$out/seed-x86_64" "$out/seed-x86_64-stripped" "$out/pairs/exe-stripped"
pair "$out/seed-x86_64.o" "$out/seed-x86_64.o" "$out/pairs/obj-same"
[ -f "$out/seed-ppc64le.o" ] && pair "$out/seed-x86_64.o" "$out/seed-ppc64le.o" "$out/pairs/obj-ppc"
true
