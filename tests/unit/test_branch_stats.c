/* Region-pair matrix and fetch-block histogram on a hand-built image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "layout/branch_stats.h"
#include "util/array.h"

/* regions: 0 .text, 1 entry, 2 cold */
static struct lace_region regions[3] = {
	{ .name = ".text" }, { .name = "entry" }, { .name = "cold" },
};

#define BR(a, k, t, r, tr) { .addr = (a), .kind = (k), .has_target = true, .target = (t), \
			     .region = (r), .target_region = (tr), .func = -1, .target_func = -1 }
#define NT(a, k, r) { .addr = (a), .kind = (k), .region = (r), .target_region = -1, \
		      .func = -1, .target_func = -1 }

static struct lace_branch branches[] = {
	BR(0x1000, LACE_BR_JUMP, 0x1020, 0, 0),  /* offset 0 */
	BR(0x1004, LACE_BR_COND, 0x103c, 0, 2),  /* offset 28, .text -> cold */
	BR(0x1008, LACE_BR_COND, 0x205d, 0, 2),  /* offset 29, .text -> cold */
	BR(0x100c, LACE_BR_CALL, 0x3000, 1, 0),  /* call: not a jump */
	BR(0x1010, LACE_BR_JUMP, 0x9999, 1, -1), /* to outside, offset 25 */
	NT(0x1014, LACE_BR_RET, 0),
	NT(0x1018, LACE_BR_INDIRECT_CALL, 1),
	BR(0x101c, LACE_BR_JUMP, 0x1010, -1, 1), /* from outside, offset 16 */
};

static struct lace_image image = {
	.geom = { 64, 4096, 32 },
	.regions = regions, .nregions = 3,
	.branches = branches, .nbranches = ARRAY_SIZE(branches),
};

static void test_matrix_direct(void **state)
{
	(void)state;
	struct branch_matrix m;
	branch_matrix_compute(&image, BRANCH_KINDS_DIRECT, &m);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.total, 6);
	assert_int_equal(m.cross, 5);
	assert_int_equal(branch_matrix_get(&m, 0, 0), 1);
	assert_int_equal(branch_matrix_get(&m, 0, 2), 2);
	assert_int_equal(branch_matrix_get(&m, 1, 0), 1);
	assert_int_equal(branch_matrix_get(&m, 1, -1), 1);
	assert_int_equal(branch_matrix_get(&m, -1, 1), 1);
	assert_int_equal(branch_matrix_get(&m, 2, 0), 0);

	struct branch_pair *p;
	size_t np = branch_matrix_pairs(&m, true, &p);
	assert_int_equal(np, 4);
	assert_int_equal(p[0].from, 0); /* the biggest first */
	assert_int_equal(p[0].to, 2);
	assert_int_equal(p[0].count, 2);
	/* then by from, to; outside (-1) sorts first */
	assert_int_equal(p[1].from, -1);
	assert_int_equal(p[1].to, 1);
	assert_int_equal(p[2].from, 1);
	assert_int_equal(p[2].to, -1);
	assert_int_equal(p[3].from, 1);
	assert_int_equal(p[3].to, 0);
	free(p);
	np = branch_matrix_pairs(&m, false, &p);
	assert_int_equal(np, 5);
	free(p);
	branch_matrix_release(&m);
}

static void test_matrix_calls_only(void **state)
{
	(void)state;
	struct branch_matrix m;
	branch_matrix_compute(&image, BRANCH_KIND_BIT(LACE_BR_CALL), &m);
	assert_int_equal(m.total, 1);
	assert_int_equal(m.cross, 1);
	assert_int_equal(branch_matrix_get(&m, 1, 0), 1);
	branch_matrix_release(&m);
}

static void test_fetch_histogram(void **state)
{
	(void)state;
	struct fetch_histogram h;
	assert_int_equal(fetch_histogram_compute(&image, BRANCH_KINDS_JUMPS, &h), 0);
	assert_int_equal(h.fetch, 32);
	assert_int_equal(h.total, 5);
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[28], 1);
	assert_int_equal(h.count[29], 1);
	assert_int_equal(h.count[25], 1);
	assert_int_equal(h.count[16], 1);
	/* 3 of 5 targets in the last 8 bytes of the block */
	assert_float_equal(fetch_histogram_tail_share(&h, 24), 0.6, 1e-12);
	fetch_histogram_release(&h);

	/* a 16 B fetch block folds offsets 16.. onto 0.. */
	struct lace_image img16 = image;
	img16.geom.fetch = 16;
	assert_int_equal(fetch_histogram_compute(&img16, BRANCH_KINDS_JUMPS, &h), 0);
	assert_int_equal(h.count[0], 2);
	assert_int_equal(h.count[12], 1);
	fetch_histogram_release(&h);

	img16.geom.fetch = 24;
	assert_true(fetch_histogram_compute(&img16, BRANCH_KINDS_JUMPS, &h) < 0);
	assert_null(h.count);
	assert_float_equal(fetch_histogram_tail_share(&h, 0), 0.0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_direct),
		cmocka_unit_test(test_matrix_calls_only),
		cmocka_unit_test(test_fetch_histogram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
