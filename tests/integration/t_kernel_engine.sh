#!/bin/bash
# lace build --kernel's engine on a stand-in kernel tree (no real kernel:
# that is make check-kernel's job): the source is taken from the cache, the
# build folder is configured (base target, fragments merged) and built
# once; a variant is made again in that folder with its patch applied to
# the shared source, which is reverted after (the revert is newer than the
# build, so the next make redoes what the patch touched, and only that);
# --shuffle pads at the configured points, every relink differently; the
# build runs with a fixed build time, number, user and host; outputs and
# manifest.json land in OUT/ARCH-VARIANT; a crash that left a patch
# applied is undone on the next run; errors are one line.
. "$SRC/tests/integration/lib.sh"
cd "$T" || exit 1
export LACE_CACHE=$T/cache LACE_SRCDIR=$T/lace
ksrc=$LACE_CACHE/src/fake-linux

# --- a stand-in kernel: make O=DIR {tinyconfig,olddefconfig,bzImage} ----
mkdir -p "$ksrc/arch/x86/kernel" "$ksrc/scripts/kconfig"
printf 'SECTIONS {\n\t.text : {\n\t\tHEAD_TEXT\n\t\tTEXT_TEXT\n\t\tENTRY_TEXT\n\t}\n}\n' \
  > "$ksrc/arch/x86/kernel/vmlinux.lds.S"
cat > "$ksrc/Makefile" <<'MK'
# counts what it rebuilds in $(O)/rebuilt, as kbuild would redo only what changed
lds := $(O)/vmlinux.lds
tinyconfig:
	echo CONFIG_TINY=y > $(O)/.config
olddefconfig:
	sort -u -o $(O)/.config $(O)/.config
$(lds): arch/x86/kernel/vmlinux.lds.S
	cp $< $@; echo lds >> $(O)/rebuilt
bzImage: $(lds)
	printf 'int main(void){return 0;}\n' > $(O)/m.c
	cc -Wl,--build-id=sha1 -o $(O)/vmlinux $(O)/m.c
	printf '%s|%s|%s|%s\n' "$$KBUILD_BUILD_TIMESTAMP" "$$KBUILD_BUILD_VERSION" "$$KBUILD_BUILD_USER" \
	  "$$KBUILD_BUILD_HOST" > $(O)/build-env
	cat $(lds) > $(O)/System.map
	mkdir -p $(O)/arch/x86/boot && cp $(lds) $(O)/arch/x86/boot/bzImage
	mkdir -p $(O)/include/config && echo 6.1.0-fake > $(O)/include/config/kernel.release
MK
cat > "$ksrc/scripts/kconfig/merge_config.sh" <<'SH'
#!/bin/sh
# merge_config.sh -m -O DIR BASE FRAGMENT
cat "$5" >> "$4"
SH
chmod +x "$ksrc/scripts/kconfig/merge_config.sh"
echo 9.9-1 > "$LACE_CACHE/src/fake-linux.done"

mkdir -p lace/linker_scripts lace/kernel/configs lace/kernel/patches lace/scripts
touch lace/linker_scripts/variants.conf
# lace's fetcher, with a manifest that pins the stand-in's version: the
# source in the cache is the pin, so it is built from (fetch-deb.sh
# --resolve; nothing is downloaded)
ln -s "$SRC/scripts/fetch-deb.sh" lace/scripts/fetch-deb.sh
cat > lace/scripts/downloads.manifest <<'M'
Role: linux-source
Package: fake-linux-source
Version: 9.9-1
Architecture: all
Archive: bookworm
Filename: pool/main/f/fake-linux/fake-linux-source_9.9-1_all.deb
Size: 1
SHA256: 0000000000000000000000000000000000000000000000000000000000000000
Successor: newest fake-linux-source
M
echo CONFIG_LACE=y > lace/kernel/configs/frag.config
cat > lace/kernel/kernel.conf <<'INI'
[source]
package = fake-linux-source
tarball = fake.tar.xz
dir = fake-linux
[arch x86_64]
make = ARCH=x86_64
base = tinyconfig
config = configs/frag.config
target = bzImage
image = arch/x86/boot/bzImage
shuffle_file = arch/x86/kernel/vmlinux.lds.S
shuffle_pad = HEAD_TEXT 16 255
shuffle_pad = ENTRY_TEXT 64 3
[x86_64 baseline]
description = as is
[x86_64 moved]
patches = patches/moved.patch
description = entry text first
INI
cat > lace/kernel/patches/moved.patch <<'P'
--- a/arch/x86/kernel/vmlinux.lds.S
+++ b/arch/x86/kernel/vmlinux.lds.S
@@ -2,6 +2,6 @@
 	.text : {
 		HEAD_TEXT
-		TEXT_TEXT
 		ENTRY_TEXT
+		TEXT_TEXT
 	}
 }
P
orig=$(cat "$ksrc/arch/x86/kernel/vmlinux.lds.S")

expect_exit 0 "$LACE" build --kernel x86_64 --list
expect_match '^x86_64 +moved +entry text first$' "$OUT"

expect_exit 0 "$LACE" build --kernel x86_64 -o out
kb=$LACE_CACHE/kbuild/x86_64
expect_eq "$OUT" "$T/out/x86_64-baseline
$T/out/x86_64-moved" "output folders"
expect_match '^lace build: x86_64: 2 kernels \(configure .*base .*variants .*\); logs in ' "$ERR"
expect_eq "$(cat "$kb/base/.config")" "CONFIG_LACE=y
CONFIG_TINY=y" "base config: base target plus fragment"
# the variant's linker script has the patch, the baseline's does not
expect_eq "$(sed -n 3,4p out/x86_64-moved/System.map | tr -d '\t')" "HEAD_TEXT
ENTRY_TEXT" "moved variant linked with its patch"
expect_eq "$(cat out/x86_64-baseline/System.map)" "$orig" "baseline linked as is"
# a reproducible build: the kernel's version string gets no time or build number of its own
expect_eq "$(cat "$kb/base/build-env" 2>/dev/null)" "Thu Jan  1 00:00:00 UTC 1970|1|lace|lace" \
  "the build's KBUILD_BUILD_* environment"
# the source is back as it was
expect_eq "$(cat "$ksrc/arch/x86/kernel/vmlinux.lds.S")" "$orig" "source reverted"
[ -e "$ksrc.applied" ] && fail "the applied-patches record was left behind"

# manifest
jq -e --arg h "$(sha256sum lace/kernel/patches/moved.patch | cut -d' ' -f1)" '
  .schema == "lace-kernel-manifest" and .schema_version == 1 and .arch == "x86_64" and
  .variant == "moved" and .source.version == "9.9-1" and .release == "6.1.0-fake" and
  .patches[0].name == "patches/moved.patch" and .patches[0].sha256 == $h and
  (.build_id | test("^[0-9a-f]{40}$")) and ([.outputs[].name] == ["vmlinux","System.map","bzImage","config"]) and
  .build_env.KBUILD_BUILD_VERSION == "1" and .build_env.KBUILD_BUILD_HOST == "lace"
' out/x86_64-moved/manifest.json >/dev/null || fail "manifest: $(cat out/x86_64-moved/manifest.json)"

# a second run with nothing changed: both variants are kept (their
# folders hold kernels made from the same inputs), and no make runs at
# all, not even the base's (its folder is made again by the first
# variant that is built)
rm -f "$kb/base/rebuilt"
expect_exit 0 "$LACE" build --kernel x86_64 -o out
[ ! -e "$kb/base/rebuilt" ] || fail "a make ran with every variant current: $(cat "$kb/base/rebuilt")"
expect_match '2 up to date, kept' "$ERR"
expect_match '\(base 0.0s, ' "$ERR"
expect_eq "$(cat out/x86_64-baseline/System.map)" "$orig" "baseline after moved"
# a kept variant's outputs are checked: one changed, it is built again
echo tampered >> out/x86_64-moved/System.map
rm -f "$kb/base/rebuilt"
expect_exit 0 "$LACE" build --kernel x86_64 -v moved -o out
# (the base first: its folder still holds the revert of moved's patch
# from the first run, newer than its link; then moved)
expect_eq "$(cat "$kb/base/rebuilt")" "lds
lds" "the base, then moved relinked after its output changed"
expect_eq "$(sed -n 3,4p out/x86_64-moved/System.map | tr -d '\t')" "HEAD_TEXT
ENTRY_TEXT" "moved rebuilt with its patch"
# and so is one whose patch changed
echo "" >> lace/kernel/patches/moved.patch
expect_exit 0 "$LACE" build --kernel x86_64 -v moved -o out
expect_match '^lace build: x86_64: 1 kernel \(base .*variants [^;]*\); logs in ' "$ERR"
# nothing changed since: a variant made twice in a row is not rebuilt
rm -f "$kb/base/rebuilt"
expect_exit 0 "$LACE" build --kernel x86_64 -v baseline -o out
expect_exit 0 "$LACE" build --kernel x86_64 -v baseline -o out
expect_match '1 up to date, kept' "$ERR"

# --shuffle: padding at both points, reproducible from the seed
expect_exit 0 "$LACE" build --kernel x86_64 --shuffle 2 --seed 7 -o out
expect_eq "$(printf '%s\n' "$OUT" | sed "s|$T/out/||")" "x86_64-baseline-shuffle-1
x86_64-baseline-shuffle-2" "shuffled outputs"
pad1=$(grep -o '\. = \. + [0-9]*;' out/x86_64-baseline-shuffle-1/System.map | head -n 1)
[ -n "$pad1" ] || fail "no padding line in shuffle 1"
expect_eq "$(sed -n 4p out/x86_64-baseline-shuffle-1/System.map | grep -c 'lace --shuffle: seed 7, 1')" 1 \
  "padding right after HEAD_TEXT"
expect_eq "$(sed -n 7p out/x86_64-baseline-shuffle-1/System.map | grep -c 'lace --shuffle: seed 7, 1')" 1 \
  "padding right after ENTRY_TEXT"
jq -e '.padding.seed == 7 and .padding.index == 2 and (.padding.points | length) == 2 and
  .padding.points[0].after == "HEAD_TEXT" and .padding.points[0].bytes % 16 == 0 and
  .padding.points[0].bytes > 0 and .padding.points[1].after == "ENTRY_TEXT" and
  .padding.points[1].bytes % 64 == 0 and .padding.points[1].bytes <= 192 and
  .padding.bytes == .padding.points[0].bytes + .padding.points[1].bytes' \
  out/x86_64-baseline-shuffle-2/manifest.json >/dev/null || fail "shuffle manifest"
expect_exit 0 "$LACE" build --kernel x86_64 --shuffle 2 --seed 7 --list
expect_match "${pad1#. = . + }" "$(echo "$OUT" | grep shuffle-1 | sed 's/.* of \([0-9]*\) bytes after HEAD_TEXT.*/\1;/')"

# no two relinks alike: with 2 x 2 possible paddings, 4 relinks are the 4
# distinct ones, and a fifth is refused before anything builds
sed -i 's/^shuffle_pad = HEAD_TEXT 16 255$/shuffle_pad = HEAD_TEXT 16 2/; s/^shuffle_pad = ENTRY_TEXT 64 3$/shuffle_pad = ENTRY_TEXT 64 1/' \
  lace/kernel/kernel.conf
expect_exit 0 "$LACE" build --kernel x86_64 --shuffle 4 --seed 3 --list
expect_eq "$(echo "$OUT" | grep -o 'of [0-9]* bytes after HEAD_TEXT, [0-9]* bytes after ENTRY_TEXT' | sort -u | wc -l)" 4 \
  "4 distinct relinks"
expect_exit 2 "$LACE" build --kernel x86_64 --shuffle 5 --seed 3 --list
expect_one_line "$ERR"
expect_match 'has only 4 distinct paddings' "$ERR"
sed -i 's/^shuffle_pad = HEAD_TEXT 16 2$/shuffle_pad = HEAD_TEXT 16 255/; s/^shuffle_pad = ENTRY_TEXT 64 1$/shuffle_pad = ENTRY_TEXT 64 3/' \
  lace/kernel/kernel.conf

# a crash that left the patch applied is undone by the next run
patch -s -p1 -d "$ksrc" -i "$T/lace/kernel/patches/moved.patch"
printf 'patch %s\n' "$T/lace/kernel/patches/moved.patch" > "$ksrc.applied"
expect_exit 0 "$LACE" build --kernel x86_64 --variant baseline -o out
expect_eq "$(cat out/x86_64-baseline/System.map)" "$orig" "baseline after a crashed run"
[ -e "$ksrc.applied" ] && fail "crash record not cleared"

# errors: one line each
expect_exit 2 "$LACE" build --kernel arm64
expect_one_line "$ERR"
expect_match "no arch 'arm64'" "$ERR"
expect_exit 2 "$LACE" build --kernel x86_64 --variant nope
expect_match "no kernel variant 'nope'" "$ERR"
expect_exit 2 "$LACE" build --kernel x86_64 --cflags -O0
expect_one_line "$ERR"
printf -- '--- a/arch/x86/kernel/vmlinux.lds.S\n+++ b/arch/x86/kernel/vmlinux.lds.S\n@@ -1,1 +1,1 @@\n-NOT THERE\n+X\n' \
  > lace/kernel/patches/moved.patch
expect_exit 1 "$LACE" build --kernel x86_64 --variant moved -o out
expect_one_line "$ERR"
expect_match '^lace: build: x86_64 moved: applying a patch to the kernel source failed \(see .*moved.log\)' "$ERR"
expect_eq "$(cat "$ksrc/arch/x86/kernel/vmlinux.lds.S")" "$orig" "source after a failed patch"
exit 0
