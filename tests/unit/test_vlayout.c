/* layout/vlayout.c: laying a build out again the way ld does, relink pads
 * worked through by hand, the function family's permutations (a
 * statement's inputs only, seeded, paired across builds), refusals. */
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
#include "layout/vlayout.h"
#include "tests/fixtures/diff/synth.h"
#include "util/error.h"
#include "util/fs.h"

/* .text at 0x1000: head.o's .head.text; (pad point 1) ALIGN 8; a.o, b.o,
 * c.o (64-aligned: a fill before it), d.o; ALIGN 0x400; (pad point 2)
 * __entry_text_start; e.o's .entry.text, 64-aligned */
static const char map_text[] =
	"Linker script and memory map\n\n"
	".text           0x0000000000001000     0x1440\n"
	" *(.head.text)\n"
	" .head.text     0x0000000000001000       0x30 head.o\n"
	"                0x0000000000001030                . = ALIGN (0x8)\n"
	" *(.text)\n"
	" .text          0x0000000000001030       0x25 a.o\n"
	" .text          0x0000000000001055       0x10 b.o\n"
	" *fill*         0x0000000000001065       0x1b \n"
	" .text          0x0000000000001080       0x20 c.o\n"
	" .text          0x00000000000010a0        0x8 d.o\n"
	"                0x0000000000001400                . = ALIGN (0x400)\n"
	"                0x0000000000001400                __entry_text_start = .\n"
	" *(.entry.text)\n"
	" .entry.text    0x0000000000001400       0x40 e.o\n";

static const char align_text[] =
	"head.o\t.head.text\t0x30\t16\n"
	"a.o\t.text\t0x25\t1\n"
	"b.o\t.text\t0x10\t1\n"
	"c.o\t.text\t0x20\t64\n"
	"d.o\t.text\t0x8\t4\n"
	"e.o\t.entry.text\t0x40\t64\n";

static char dir[64];

static void map_load(struct linkmap *lm, const char *text, const char *align)
{
	char path[128], apath[160];

	snprintf(path, sizeof(path), "%s/vmlinux.map", dir);
	snprintf(apath, sizeof(apath), "%s.align", path);
	assert_int_equal(fs_write_file(path, text, strlen(text)), 0);
	assert_int_equal(fs_write_file(apath, align, strlen(align)), 0);
	assert_int_equal(linkmap_load(path, "/nonexistent", lm), 0);
	unlink(path);
	unlink(apath);
}

/* a synthetic image with one code section, .text */
static void image(struct synth *s, uint64_t addr, uint64_t size)
{
	synth_init(s);
	s->img.sections = xcalloc(1, sizeof(*s->img.sections));
	s->img.sections[0] = (struct lace_section){ .name = xstrdup(".text"), .addr = addr,
						    .size = size, .code = true, .alloc = true };
	s->img.nsections = 1;
}

static long unit_of(const struct vl_base *b, const char *key)
{
	for (size_t u = 0; u < b->nunits; u++)
		if (!strcmp(b->units[u].key, key))
			return (long)u;
	return -1;
}

static void test_relink_pads(void **state)
{
	struct synth s;
	struct linkmap lm;
	struct vl_base b;
	struct vl_pad *pads;
	size_t np;
	uint64_t addr[8], sym[4], pv[2] = { 16, 32 };
	struct vl_family f = { VL_FAMILY_RELINK, 1, NULL };

	image(&s, 0x1000, 0x1440);
	map_load(&lm, map_text, align_text);
	assert_int_equal(vl_pads_parse("after:.head.text:16:255,before:__entry_text_start:16:255",
				       &pads, &np), 0);
	assert_int_equal(vl_base_build(&b, &s.img, &lm, pads, np), 0);   /* laid out again: the same */
	assert_int_equal(b.nunits, 6);
	assert_int_equal(b.inferred, 0);
	/* the base, as draw 0 */
	assert_int_equal(vl_draw(&b, &f, 0, NULL, addr, sym), 0);
	for (size_t u = 0; u < b.nunits; u++)
		assert_int_equal(addr[u], b.units[u].addr);
	/* 16 bytes after the head: a.o and b.o move by 16, c.o's 64-byte
	 * alignment takes it all back, the ALIGN (0x400) stops the rest;
	 * 32 before the entry text: e.o is 64-aligned, so 0x1440 */
	assert_int_equal(vl_draw(&b, &f, 1, pv, addr, sym), 0);
	assert_int_equal(addr[unit_of(&b, "head.o:.head.text")], 0x1000);
	assert_int_equal(addr[unit_of(&b, "a.o:.text")], 0x1040);
	assert_int_equal(addr[unit_of(&b, "b.o:.text")], 0x1065);
	assert_int_equal(addr[unit_of(&b, "c.o:.text")], 0x1080);
	assert_int_equal(addr[unit_of(&b, "d.o:.text")], 0x10a0);
	assert_int_equal(addr[unit_of(&b, "e.o:.entry.text")], 0x1440);
	assert_int_equal(b.nsyms, 1);
	assert_int_equal(sym[0], 0x1420);   /* __entry_text_start: before the 64-byte alignment */
	/* carrying an address: by its unit */
	assert_int_equal(vl_carry(&b, addr, 0x1058), 0x1068);
	assert_int_equal(vl_carry(&b, addr, 0x2000), 0x2000);   /* outside every unit */
	/* drawn pad vectors: multiples of 16 up to 255 * 16, baseline (0) allowed */
	uint64_t d[2];
	for (unsigned k = 1; k < 200; k++) {
		vl_draw_pads(&b, 7, k, d);
		assert_true(d[0] % 16 == 0 && d[0] <= 255 * 16 && d[1] % 16 == 0 && d[1] <= 255 * 16);
	}
	vl_base_free(&b);
	/* a pad point the map does not have */
	vl_pads_free(pads, np);
	assert_int_equal(vl_pads_parse("before:__nowhere:16:4", &pads, &np), 0);
	assert_int_equal(vl_base_build(&b, &s.img, &lm, pads, np), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "not in the link map"));
	vl_pads_free(pads, np);
	assert_int_equal(vl_pads_parse("middle:x:16:4", &pads, &np), -EINVAL);
	assert_int_equal(vl_pads_parse("after:.text:12:4", &pads, &np), -EINVAL);   /* not a power of two */
	linkmap_free(&lm);
	synth_free(&s);
}

/* --permute: .head.text's statement keeps its order unless named; a
 * list of sections leaves every other statement as built */
static void test_permute(void **state)
{
	static const char two_heads[] =
		"Linker script and memory map\n\n"
		".text           0x0000000000001000       0x80\n"
		" *(.head.text)\n"
		" .head.text     0x0000000000001000       0x20 h1.o\n"
		" .head.text     0x0000000000001020       0x20 h2.o\n"
		" *(.text)\n"
		" .text          0x0000000000001040       0x20 a.o\n"
		" .text          0x0000000000001060       0x20 b.o\n";
	static const char two_heads_align[] =
		"h1.o\t.head.text\t0x20\t16\nh2.o\t.head.text\t0x20\t16\n"
		"a.o\t.text\t0x20\t16\nb.o\t.text\t0x20\t16\n";
	struct synth s;
	struct linkmap lm;
	struct vl_base b;
	uint64_t a[4];
	struct vl_family dflt = { VL_FAMILY_FUNCTION, 3, NULL }, all = { VL_FAMILY_FUNCTION, 3, "*" },
			 text = { VL_FAMILY_FUNCTION, 3, ".text" }, none = { VL_FAMILY_FUNCTION, 3, ".entry.text" };
	int heads_moved = 0, text_moved = 0;

	(void)state;
	image(&s, 0x1000, 0x80);
	map_load(&lm, two_heads, two_heads_align);
	assert_int_equal(vl_base_build(&b, &s.img, &lm, NULL, 0), 0);
	long h1 = unit_of(&b, "h1.o:.head.text"), ua = unit_of(&b, "a.o:.text");
	for (unsigned k = 1; k <= 20; k++) {
		assert_int_equal(vl_draw(&b, &dflt, k, NULL, a, NULL), 0);
		assert_int_equal(a[h1], 0x1000);
		text_moved += a[ua] != 0x1040;
		assert_int_equal(vl_draw(&b, &text, k, NULL, a, NULL), 0);
		assert_int_equal(a[h1], 0x1000);
		assert_int_equal(vl_draw(&b, &none, k, NULL, a, NULL), 0);
		assert_int_equal(a[h1], 0x1000);
		assert_int_equal(a[ua], 0x1040);
		assert_int_equal(vl_draw(&b, &all, k, NULL, a, NULL), 0);
		heads_moved += a[h1] != 0x1000;
	}
	assert_true(text_moved >= 5 && heads_moved >= 5);
	vl_base_free(&b);
	linkmap_free(&lm);
	synth_free(&s);
}

static void test_function_family(void **state)
{
	struct synth s;
	struct linkmap lm, lm2;
	struct vl_base b, b2;
	uint64_t a1[8], a2[8], c[8];
	struct vl_family f = { VL_FAMILY_FUNCTION, 42, NULL };
	int moved = 0;

	image(&s, 0x1000, 0x1440);
	map_load(&lm, map_text, align_text);
	assert_int_equal(vl_base_build(&b, &s.img, &lm, NULL, 0), 0);
	assert_int_equal(b.ngroups, 3);   /* the three statements */
	for (unsigned k = 1; k <= 20; k++) {
		assert_int_equal(vl_draw(&b, &f, k, NULL, a1, NULL), 0);
		assert_int_equal(vl_draw(&b, &f, k, NULL, a2, NULL), 0);
		assert_memory_equal(a1, a2, b.nunits * sizeof(*a1));   /* reproducible */
		/* only the .text statement's inputs trade places, each at its
		 * alignment, all of them inside 0x1030-0x1400 */
		assert_int_equal(a1[unit_of(&b, "head.o:.head.text")], 0x1000);
		assert_int_equal(a1[unit_of(&b, "e.o:.entry.text")], 0x1400);
		assert_int_equal(a1[unit_of(&b, "c.o:.text")] % 64, 0);
		assert_int_equal(a1[unit_of(&b, "d.o:.text")] % 4, 0);
		moved += a1[unit_of(&b, "a.o:.text")] != 0x1030;
		/* pieces never overlap */
		for (size_t u = 0; u < b.nunits; u++)
			for (size_t v = 0; v < b.nunits; v++)
				assert_true(u == v || a1[u] + b.units[u].size <= a1[v] ||
					    a1[v] + b.units[v].size <= a1[u]);
	}
	assert_true(moved >= 10);
	/* pairing: a build without b.o, laid out by the same draws, keeps
	 * a, c and d in the same order as this one */
	static const char without_b[] =
		"Linker script and memory map\n\n"
		".text           0x0000000000001000     0x1440\n"
		" *(.head.text)\n"
		" .head.text     0x0000000000001000       0x30 head.o\n"
		"                0x0000000000001030                . = ALIGN (0x8)\n"
		" *(.text)\n"
		" .text          0x0000000000001030       0x25 a.o\n"
		" *fill*         0x0000000000001055       0x2b \n"
		" .text          0x0000000000001080       0x20 c.o\n"
		" .text          0x00000000000010a0        0x8 d.o\n"
		"                0x0000000000001400                . = ALIGN (0x400)\n"
		"                0x0000000000001400                __entry_text_start = .\n"
		" *(.entry.text)\n"
		" .entry.text    0x0000000000001400       0x40 e.o\n";
	map_load(&lm2, without_b, align_text);
	assert_int_equal(vl_base_build(&b2, &s.img, &lm2, NULL, 0), 0);
	for (unsigned k = 1; k <= 20; k++) {
		assert_int_equal(vl_draw(&b, &f, k, NULL, a1, NULL), 0);
		assert_int_equal(vl_draw(&b2, &f, k, NULL, c, NULL), 0);
		const char *keys[] = { "a.o:.text", "c.o:.text", "d.o:.text" };
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				assert_int_equal(a1[unit_of(&b, keys[i])] < a1[unit_of(&b, keys[j])],
						 c[unit_of(&b2, keys[i])] < c[unit_of(&b2, keys[j])]);
	}
	/* the relink family without pad points is refused */
	struct vl_family r = { VL_FAMILY_RELINK, 1, NULL };
	assert_int_equal(vl_draw(&b, &r, 1, NULL, a1, NULL), -EINVAL);
	vl_base_free(&b);
	vl_base_free(&b2);
	linkmap_free(&lm);
	linkmap_free(&lm2);
	synth_free(&s);
}

static void test_refusals(void **state)
{
	struct synth s;
	struct linkmap lm;
	struct vl_base b;
	struct vl_family f = { VL_FAMILY_FUNCTION, 1, NULL };
	uint64_t a[8];

	image(&s, 0x1000, 0x1440);
	/* c.o said 16-aligned: the fill before it is not explained, and
	 * laying the map out again does not give the build */
	map_load(&lm, map_text, "c.o\t.text\t0x20\t16\n");
	assert_int_equal(vl_base_build(&b, &s.img, &lm, NULL, 0), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "does not lay this build out again"));
	linkmap_free(&lm);
	/* a map of another build (its .text elsewhere) */
	s.img.sections[0].addr = 0x2000;
	map_load(&lm, map_text, align_text);
	assert_int_equal(vl_base_build(&b, &s.img, &lm, NULL, 0), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "not this build's map"));
	s.img.sections[0].addr = 0x1000;
	linkmap_free(&lm);
	/* no map, no functions */
	assert_int_equal(vl_base_build(&b, &s.img, NULL, NULL, 0), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "no function symbols"));
	/* no map: functions of a region in another order, each at its
	 * guessed alignment; a page-aligned region starts on its page */
	synth_region(&s, ".text", 0x1000, 0x2040, LACE_REGION_SECTION);
	synth_region(&s, "entry", 0x2000, 0x2040, LACE_REGION_MARKER);
	synth_func(&s, "f1", 0x1000, 0x30, true, NULL);
	synth_func(&s, "f2", 0x1030, 0x10, true, NULL);
	synth_func(&s, "f3", 0x1040, 0x21, true, NULL);
	synth_func(&s, "f4", 0x1070, 0x10, false, "x.c");
	synth_func(&s, "e1", 0x2000, 0x40, true, NULL);
	synth_finish(&s);
	s.img.sections[0].size = 0x1040;
	assert_int_equal(vl_base_build(&b, &s.img, NULL, NULL, 0), 0);
	assert_int_equal(b.nunits, 5);
	assert_string_equal(b.units[3].key, "f4@x.c#0");
	for (unsigned k = 1; k <= 10; k++) {
		assert_int_equal(vl_draw(&b, &f, k, NULL, a, NULL), 0);
		assert_int_equal(a[4], 0x2000);
		for (size_t u = 0; u < 4; u++)
			assert_true(a[u] >= 0x1000 && a[u] + b.units[u].size <= 0x2000 &&
				    a[u] % b.units[u].align == 0);
	}
	vl_base_free(&b);
	synth_free(&s);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/lace-vlayout-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relink_pads),
		cmocka_unit_test(test_function_family),
		cmocka_unit_test(test_permute),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
