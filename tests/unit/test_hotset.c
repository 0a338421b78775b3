/* Hot files and line/page counting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "layout/hotset.h"
#include "util/error.h"

static void test_parse(void **state)
{
	struct lace_hotset hs;

	assert_int_equal(hotset_parse("# hot functions\nfoo 2.5\n\n  bar\t# inline comment\nbaz 0\n", &hs), 0);
	assert_int_equal(hs.n, 3);
	assert_true(hs.weights[hotset_find(&hs, "foo", NULL)] == 2.5);
	assert_true(hs.weights[hotset_find(&hs, "bar", NULL)] == 1);
	assert_true(hotset_find(&hs, "baz", NULL) >= 0);
	/* by base name: foo covers foo.isra.0 */
	assert_int_equal(hotset_find(&hs, "foo.isra.0", "foo"), hotset_find(&hs, "foo", NULL));
	assert_int_equal(hotset_find(&hs, "qux", "qux"), -1);
	hotset_free(&hs);
}

static void test_parse_errors(void **state)
{
	struct lace_hotset hs;

	assert_true(hotset_parse("foo\nbar -1\n", &hs) < 0);
	assert_non_null(strstr(lace_error_msg(), "line 2"));
	assert_true(hotset_parse("foo 1 2\n", &hs) < 0);
	assert_true(hotset_parse("foo nan\n", &hs) < 0);
	assert_true(hotset_load("/nonexistent/hot", &hs) < 0);
}

static void test_ranges(void **state)
{
	/* [0x1000,+0x80) 2 lines; [0x1040,+0x40) overlaps; [0x1ff0,+0x20) crosses a page */
	uint64_t start[] = { 0x1000, 0x1040, 0x1ff0, 0x5000 }, size[] = { 0x80, 0x40, 0x20, 0 };
	struct lace_span_count c;
	size_t np;

	ranges_count(start, size, 4, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.lines, 2 + 2);
	assert_int_equal(c.pages, 2);
	assert_int_equal(c.hugepages, 1);
	uint64_t *p = ranges_units(start, size, 4, 4096, &np);
	assert_int_equal(np, 1); /* pages 1 and 2, one interval */
	assert_int_equal(p[0], 1);
	assert_int_equal(p[1], 2);
	assert_true(units_contain(p, np, 2));
	assert_false(units_contain(p, np, 3));
	assert_false(units_contain(p, np, 0));
	free(p);
	/* an absurd size costs nothing and clamps instead of wrapping */
	uint64_t hs[] = { 0x1000, 0x10000000 }, hz[] = { 1ull << 55, UINT64_MAX };
	ranges_count(hs, hz, 2, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.pages, (size_t)(UINT64_MAX / 4096) - 1 + 1);
	ranges_count(start, size, 0, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.lines + c.pages + c.hugepages, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests_name("hotset", tests, NULL, NULL);
}
