#!/bin/bash
# lace build: bad usage and bad input exit 2 with one line; --list names
# every variant of variants.conf; LACE_SRCDIR is honoured.
. "$SRC/tests/integration/lib.sh"

expect_exit 0 "$LACE" build --list
for v in baseline entry-out cold-slowpaths entry-out-cold no-tracepoint; do
  expect_match "^$v " "$OUT"
done
expect_exit 0 "$LACE" build --help
expect_match "usage: lace build" "$OUT"

expect_exit 2 "$LACE" build --variant nosuch --out "$T/x"
expect_one_line "$ERR"; expect_match "no variant 'nosuch'" "$ERR"
expect_exit 2 "$LACE" build --shuffle 0
expect_one_line "$ERR"
expect_exit 2 "$LACE" build --shuffle x
expect_one_line "$ERR"
expect_exit 2 "$LACE" build --seed 3
expect_one_line "$ERR"; expect_match "needs --shuffle" "$ERR"
expect_exit 2 "$LACE" build --all --variant baseline
expect_one_line "$ERR"
expect_exit 2 "$LACE" build --bogus
expect_one_line "$ERR"; expect_match "unknown option" "$ERR"
expect_exit 2 "$LACE" build -j
expect_one_line "$ERR"
expect_exit 2 "$LACE" build -p nosuch --out "$T/x"
expect_one_line "$ERR"
expect_exit 2 "$LACE" build --ldscript "$T/missing.ld" --out "$T/x"
expect_one_line "$ERR"
expect_exit 2 "$LACE" build extra-arg
expect_one_line "$ERR"

# the kernel builds: a subcommand with its own options, --kernel its alias
expect_exit 0 "$LACE" build kernel --list
expect_match "^x86_64 +baseline " "$OUT"; expect_match "^ppc64le " "$OUT"
expect_exit 0 "$LACE" build kernel x86_64 --list
list=$OUT
expect_nomatch "^ppc64le " "$list"
for alias in "--kernel x86_64" "--kernel=x86_64" "-K x86_64" "-Kx86_64"; do
  expect_exit 0 "$LACE" build $alias --list
  expect_eq "$OUT" "$list" "lace build $alias --list"
done
expect_exit 2 "$LACE" build kernel
expect_one_line "$ERR"; expect_match "kernel needs ARCH" "$ERR"
expect_exit 2 "$LACE" build kernel nosuch
expect_one_line "$ERR"; expect_match "no arch 'nosuch'" "$ERR"
expect_exit 2 "$LACE" build --kernel=nosuch --list
expect_one_line "$ERR"; expect_match "no arch 'nosuch'" "$ERR"
expect_exit 2 "$LACE" build kernel x86_64 --shuffle 1x
expect_one_line "$ERR"; expect_match "--shuffle takes a count from 1 to 1000, not '1x'" "$ERR"
expect_exit 2 "$LACE" build kernel x86_64 --cflags -O0
expect_one_line "$ERR"; expect_match "unknown option '--cflags'" "$ERR"
expect_exit 2 "$LACE" build --kernel
expect_one_line "$ERR"

# a source tree without variants.conf is an input error
mkdir -p "$T/empty"
LACE_SRCDIR=$T/empty expect_exit 2 "$LACE" build --list
expect_one_line "$ERR"; expect_match "variants.conf" "$ERR"

# a broken variants.conf names the line
mkdir -p "$T/src"
cp -r "$SRC/probes" "$SRC/hashmmu" "$SRC/util" "$SRC/linker_scripts" "$T/src/"
printf '[bad]\nthis is not ini\n' > "$T/src/linker_scripts/variants.conf"
LACE_SRCDIR=$T/src expect_exit 2 "$LACE" build --list
expect_one_line "$ERR"; expect_match "variants.conf:2" "$ERR"

# names become file names: nothing that could leave the output folder
printf '[../evil]\nscript = baseline.ld\n' > "$T/src/linker_scripts/variants.conf"
LACE_SRCDIR=$T/src expect_exit 2 "$LACE" build --list
expect_one_line "$ERR"; expect_match "not a plain file name" "$ERR"

# a variant that fails to compile exits 1 and names the log
printf '[broken]\nscript = baseline.ld\ncflags = -fno-such-gcc-flag\n' > "$T/src/linker_scripts/variants.conf"
LACE_SRCDIR=$T/src expect_exit 1 "$LACE" build -v broken -p hashmmu-driver --out "$T/o"
expect_one_line "$ERR"; expect_match "build.log" "$ERR"

# --ldscript builds one more variant named after the script
cp "$SRC/linker_scripts/entry-out.ld" "$T/mine.ld"
expect_exit 0 "$LACE" build --ldscript "$T/mine.ld" -p hashmmu-driver --out "$T/l"
[ -x "$T/l/mine/hashmmu-driver" ] || fail "--ldscript variant not built"
expect_match '"script": ".*/mine.ld"' "$(cat "$T/l/mine/manifest.json")"
exit 0
