/* layout geometry: alignment, lines/pages spanned, straddles, and the
 * per-function values geometry_compute() fills. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "layout/geometry.h"
#include "layout/image_priv.h"

static void test_alignment(void **state)
{
	assert_int_equal(geom_alignment(0x1000, 4096), 4096);
	assert_int_equal(geom_alignment(0x2000, 4096), 4096); /* capped at the page */
	assert_int_equal(geom_alignment(0x1040, 4096), 64);
	assert_int_equal(geom_alignment(0x1050, 4096), 16);
	assert_int_equal(geom_alignment(0x1001, 4096), 1);
	assert_int_equal(geom_alignment(0xffffffff81000000ull, 4096), 4096);
	assert_int_equal(geom_alignment(0, 4096), 4096);
}

static void test_span(void **state)
{
	/* 64 bytes at a line boundary: one line; 16 bytes later: two */
	assert_int_equal(geom_span(0x1000, 64, 64), 1);
	assert_int_equal(geom_span(0x1010, 64, 64), 2);
	assert_false(geom_straddles(0x1000, 64, 64));
	assert_true(geom_straddles(0x1010, 64, 64));
	/* 65 bytes need two lines wherever they are: not a straddle */
	assert_int_equal(geom_span(0x1000, 65, 64), 2);
	assert_false(geom_straddles(0x1000, 65, 64));
	/* the last byte of a line */
	assert_int_equal(geom_span(0x103f, 1, 64), 1);
	assert_int_equal(geom_span(0x103f, 2, 64), 2);
	assert_int_equal(geom_span(0x1000, 0, 64), 0);
	/* 200 bytes from page offset 4000 cross a page boundary */
	assert_int_equal(geom_span(0x403000 + 4000, 200, 4096), 2);
	assert_int_equal(geom_min_span(200, 4096), 1);
	assert_true(geom_straddles(0x403000 + 4000, 200, 4096));
	assert_int_equal(geom_span(0x403000 + 4000, 200, 64), 4);
	assert_int_equal(geom_min_span(200, 64), 4);
	assert_int_equal(geom_offset(0x1234, 32), 0x14);
}

static void test_valid(void **state)
{
	struct lace_geometry g = LACE_GEOMETRY_DEFAULT;
	assert_true(geom_valid(&g));
	g.line = 48;
	assert_false(geom_valid(&g));
	g.line = 8192;
	assert_false(geom_valid(&g)); /* line larger than page */
	g.line = 128;
	g.fetch = 0;
	assert_false(geom_valid(&g));
}

static void test_compute(void **state)
{
	struct lace_section sec[2] = {
		{ .name = ".text", .addr = 0x1000, .size = 0x2000, .code = true, .alloc = true },
		{ .name = ".other", .addr = 0x8000, .size = 0x100, .code = true, .alloc = true },
	};
	struct lace_function f[4] = {
		{ .name = "a", .addr = 0x1010, .size = 0x30, .section = 0 },
		{ .name = "b", .addr = 0x1050, .size = 0x40, .section = 0 },
		{ .name = "c", .addr = 0x1fc0, .size = 0x80, .section = 0 },
		{ .name = "d", .addr = 0x8020, .size = 0x10, .section = 1 },
	};
	struct lace_image img = { .geom = LACE_GEOMETRY_DEFAULT, .sections = sec, .nsections = 2,
				  .funcs = f, .nfuncs = 4 };
	geometry_compute(&img);
	assert_int_equal(f[0].pad_before, 0x10); /* from the section start */
	assert_int_equal(f[1].pad_before, 0x10); /* 0x1040 -> 0x1050 */
	assert_int_equal(f[1].alignment, 16);
	assert_int_equal(f[1].lines, 2);
	assert_true(f[1].straddles_line);
	assert_int_equal(f[2].pages, 2);
	assert_true(f[2].straddles_page);
	assert_int_equal(f[2].lines, 2);
	assert_false(f[2].straddles_line);
	assert_int_equal(f[3].pad_before, 0x20); /* its own section's start */
	img.geom.line = 256; /* 0x1050..0x108f inside one 256 B line */
	geometry_compute(&img);
	assert_int_equal(f[1].lines, 1);
	assert_false(f[1].straddles_line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_compute),
	};
	return cmocka_run_group_tests_name("layout geometry", tests, NULL, NULL);
}
