/* Function matching: statics by file and order, suffixes, pieces, markers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "layout/match.h"
#include "tests/fixtures/diff/synth.h"

static int find(const struct lace_image *im, const char *name, const char *file, unsigned ord)
{
	for (size_t i = 0; i < im->nfuncs; i++) {
		const struct lace_function *f = &im->funcs[i];
		if (!strcmp(f->name, name) && (!file || (f->file && !strcmp(f->file, file))) && f->static_ordinal == ord)
			return (int)i;
	}
	return -100;
}

static void test_statics_by_file_and_order(void **state)
{
	struct synth a, b;
	int o2n[16], n2o[16];

	synth_init(&a);
	synth_region(&a, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_func(&a, "init", 0x1000, 0x10, false, "x.c");
	synth_func(&a, "init", 0x1010, 0x10, false, "x.c"); /* second static init in x.c */
	synth_func(&a, "init", 0x1020, 0x10, false, "y.c");
	synth_finish(&a);
	/* new: y.c first, and the two x.c ones keep their order */
	synth_init(&b);
	synth_region(&b, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_func(&b, "init", 0x2000, 0x10, false, "y.c");
	synth_func(&b, "init", 0x2010, 0x10, false, "x.c");
	synth_func(&b, "init", 0x2020, 0x10, false, "x.c");
	synth_finish(&b);
	funcs_match(&a.img, &b.img, o2n, n2o);
	assert_int_equal(o2n[find(&a.img, "init", "x.c", 0)], find(&b.img, "init", "x.c", 0));
	assert_int_equal(o2n[find(&a.img, "init", "x.c", 1)], find(&b.img, "init", "x.c", 1));
	assert_int_equal(o2n[find(&a.img, "init", "y.c", 0)], find(&b.img, "init", "y.c", 0));
	for (int i = 0; i < 3; i++)
		assert_int_equal(o2n[n2o[i]], i);
	synth_free(&a);
	synth_free(&b);
}

static void test_suffixes_and_pieces(void **state)
{
	struct synth a, b;
	int o2n[16], n2o[16];

	synth_init(&a);
	synth_region(&a, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_func(&a, "f", 0x1000, 0x10, true, NULL);
	synth_func(&a, "f.cold", 0x8000, 0x10, false, "f.c");
	synth_func(&a, "g.constprop.0", 0x1100, 0x10, false, "g.c");
	synth_func(&a, "gone", 0x1200, 0x10, true, NULL);
	synth_func(&a, "__start_foo", 0x1300, 0, true, NULL); /* ld's section start label */
	synth_func(&a, "__bar_end", 0x1300, 0, true, NULL);
	synth_finish(&a);
	synth_init(&b);
	synth_region(&b, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_func(&b, "f.isra.0", 0x1000, 0x10, false, "f.c"); /* became static with a suffix */
	synth_func(&b, "f.cold.1", 0x8000, 0x10, false, "f.c");
	synth_func(&b, "g.constprop.1", 0x1100, 0x10, false, "g.c");
	synth_func(&b, "new_one", 0x1200, 0x10, true, NULL);
	synth_finish(&b);
	funcs_match(&a.img, &b.img, o2n, n2o);
	assert_int_equal(o2n[find(&a.img, "f", NULL, 0)], find(&b.img, "f.isra.0", NULL, 0));
	assert_int_equal(o2n[find(&a.img, "f.cold", NULL, 0)], find(&b.img, "f.cold.1", NULL, 0));
	assert_int_equal(o2n[find(&a.img, "g.constprop.0", NULL, 0)], find(&b.img, "g.constprop.1", NULL, 0));
	assert_int_equal(o2n[find(&a.img, "gone", NULL, 0)], LACE_MATCH_NONE);
	assert_int_equal(n2o[find(&b.img, "new_one", NULL, 0)], LACE_MATCH_NONE);
	assert_int_equal(o2n[find(&a.img, "__start_foo", NULL, 0)], LACE_MATCH_MARKER);
	assert_true(func_is_marker(&a.img, find(&a.img, "__start_foo", NULL, 0)));
	assert_true(func_is_marker(&a.img, find(&a.img, "__bar_end", NULL, 0)));
	assert_false(func_is_marker(&a.img, find(&a.img, "gone", NULL, 0)));
	synth_free(&a);
	synth_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statics_by_file_and_order),
		cmocka_unit_test(test_suffixes_and_pieces),
	};
	return cmocka_run_group_tests_name("match", tests, NULL, NULL);
}
