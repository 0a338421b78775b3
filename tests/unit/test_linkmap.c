/* layout/linkmap.c: GNU ld map lines (as ld 2.40 prints them for the
 * kernel's vmlinux.map), the alignment file's round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "layout/linkmap.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"

static const char map_text[] =
	"Archive member included to satisfy reference by file (symbol)\n"
	"\n"
	"Memory Configuration\n"
	"\n"
	"Linker script and memory map\n"
	"\n"
	"LOAD arch/x86/kernel/head_64.o\n"
	"                0xffffffff80000000                __START_KERNEL_map = 0xffffffff80000000\n"
	"\n"
	".text           0xffffffff81000000   0x600a90 load address 0x0000000001000000\n"
	"                0xffffffff81000000                _text = .\n"
	" *(.head.text)\n"
	" .head.text     0xffffffff81000000      0x244 arch/x86/kernel/head_64.o\n"
	"                0xffffffff81000000                startup_64\n"
	" .head.text     0xffffffff81000244      0x238 arch/x86/kernel/head64.o\n"
	"                0xffffffff81000480                . = ALIGN (0x8)\n"
	" *fill*         0xffffffff8100047c        0x4 cccc\n"
	"                0xffffffff81000480                . = (. + 0xaf0)\n"
	" *(.text .text.fixup)\n"
	" .text          0xffffffff81000f70       0x13 arch/x86/kernel/head64.o\n"
	"                0xffffffff81000f70                early_setup_idt\n"
	" .text.unlikely\n"
	"                0xffffffff81000f83       0x4f init/main.o\n"
	"                0xffffffff81400000                . = ALIGN (0x200000)\n"
	"                0xffffffff81400000                __entry_text_start = .\n"
	" *(.entry.text)\n"
	" .entry.text    0xffffffff81400000     0x1166 arch/x86/entry/entry_64.o\n"
	"                0xffffffff81401166                PROVIDE (__entry_text_end = .)\n"
	"                0xffffffff81401200                . = (some_symbol | 0x4)\n"
	"\n"
	".altinstr_replacement\n"
	"                0xffffffff81600b00      0x3a0\n"
	" *(.altinstr_replacement)\n"
	" .altinstr_replacement\n"
	"                0xffffffff81600b00       0x10 vmlinux.a(arch/x86/lib/memcpy_64.o)\n"
	"\n"
	"/DISCARD/\n"
	" *(.exit.text)\n"
	" .exit.text     0x0000000000000000       0x10 drivers/x.o\n"
	"OUTPUT(vmlinux elf64-x86-64)\n";

static void write_map(const char *path, const char *text)
{
	assert_int_equal(fs_write_file(path, text, strlen(text)), 0);
}

static void test_parse(void **state)
{
	char dir[] = "/tmp/lace-linkmap-XXXXXX", path[256];
	struct linkmap lm;
	const struct linkmap_item *it;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vmlinux.map", dir);
	write_map(path, map_text);
	assert_int_equal(linkmap_load(path, NULL, &lm), 0);
	/* .text and .altinstr_replacement (a long name, numbers on the next
	 * line); /DISCARD/ has no address and holds nothing */
	assert_int_equal(lm.nosecs, 2);
	assert_string_equal(lm.osecs[0].name, ".text");
	assert_true(lm.osecs[0].addr == 0xffffffff81000000ull && lm.osecs[0].size == 0x600a90);
	assert_string_equal(lm.osecs[1].name, ".altinstr_replacement");
	assert_true(lm.osecs[1].addr == 0xffffffff81600b00ull);
	assert_int_equal(linkmap_osec(&lm, ".altinstr_replacement"), 1);
	assert_int_equal(linkmap_osec(&lm, "/DISCARD/"), -1);

	/* .text's items in order */
	static const enum linkmap_kind want[] = {
		LM_SYMBOL, LM_STATEMENT, LM_INPUT, LM_INPUT, LM_ALIGN, LM_ADVANCE, LM_STATEMENT,
		LM_INPUT, LM_INPUT, LM_ALIGN, LM_SYMBOL, LM_STATEMENT, LM_INPUT, LM_SYMBOL, LM_SET,
	};
	assert_int_equal(lm.osecs[0].n, ARRAY_SIZE(want));
	for (size_t i = 0; i < lm.osecs[0].n; i++)
		assert_int_equal(lm.items[lm.osecs[0].first + i].kind, want[i]);
	it = &lm.items[lm.osecs[0].first];
	assert_string_equal(it[0].text, "_text");
	assert_string_equal(it[1].text, "*(.head.text)");
	assert_string_equal(it[3].object, "arch/x86/kernel/head64.o");
	assert_true(it[3].addr == 0xffffffff81000244ull && it[3].size == 0x238);
	assert_int_equal(it[3].group, (long)lm.osecs[0].first + 1);
	assert_int_equal(it[4].size, 8);          /* ALIGN (0x8) */
	assert_int_equal(it[5].size, 0xaf0);      /* a relink's pad */
	assert_string_equal(it[8].text, ".text.unlikely");   /* a long input name */
	assert_string_equal(it[8].object, "init/main.o");
	assert_true(it[8].addr == 0xffffffff81000f83ull && it[8].size == 0x4f);
	assert_int_equal(it[9].size, 0x200000);
	assert_string_equal(it[10].text, "__entry_text_start");
	assert_string_equal(it[13].text, "__entry_text_end");   /* PROVIDE (...) */
	assert_true(it[14].addr == 0xffffffff81401200ull);      /* an expression: its value */
	/* no objects there: no alignment known */
	assert_int_equal(it[12].align, 0);
	assert_int_equal(lm.unaligned, 6);

	/* the alignment file: written, then read back beside the map */
	for (size_t i = 0; i < lm.nitems; i++)
		if (lm.items[i].kind == LM_INPUT)
			lm.items[i].align = lm.items[i].size == 0x1166 ? 64 : 16;
	char apath[300];
	snprintf(apath, sizeof(apath), "%s.align", path);
	assert_int_equal(linkmap_write_align(&lm, apath), 0);
	linkmap_free(&lm);
	assert_int_equal(linkmap_load(path, NULL, &lm), 0);
	assert_int_equal(lm.unaligned, 0);
	for (size_t i = 0; i < lm.nitems; i++)
		if (lm.items[i].kind == LM_INPUT)
			assert_int_equal(lm.items[i].align, lm.items[i].size == 0x1166 ? 64 : 16);
	linkmap_free(&lm);
	unlink(apath);
	unlink(path);
	rmdir(dir);
}

static void test_not_a_map(void **state)
{
	char path[] = "/tmp/lace-linkmap-XXXXXX";
	struct linkmap lm;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_map(path, "ffffffff81000000 T _text\n");   /* a System.map */
	assert_int_equal(linkmap_load(path, NULL, &lm), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "not a GNU ld link map"));
	unlink(path);
	assert_int_equal(linkmap_load(path, NULL, &lm), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_not_a_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
