/* study statistics: the line fit behind "instructions per hash fault" and
 * the rank test behind the placement verdicts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pipeline/study_stats.h"

/* exact line: slope and intercept back, zero error */
static void test_fit_exact(void **state)
{
	double x[] = { 1, 2048, 8192, 16384 }, y[4];
	struct study_fit f;

	(void)state;
	for (int i = 0; i < 4; i++)
		y[i] = 2350 + 2.0 * x[i];
	assert_int_equal(study_fit_line(x, y, 4, &f), 0);
	assert_true(fabs(f.slope - 2.0) < 1e-9);
	assert_true(fabs(f.intercept - 2350) < 1e-6);
	assert_true(f.slope_se < 1e-9);
}

/* the figures: 2,351 / 6,450 / 35,173 at 1 / 2,048 / 16,384 faults;
 * expected values from the textbook formulas evaluated independently
 * (Python, double precision): slope 2.0034695, intercept 2348.0155,
 * SE(slope) = sqrt(SSR/(n-2)/Sxx) = 1.18523e-4 */
static void test_fit_error(void **state)
{
	double x[] = { 1, 2048, 16384 }, y[] = { 2351, 6450, 35173 };
	struct study_fit f;

	(void)state;
	assert_int_equal(study_fit_line(x, y, 3, &f), 0);
	assert_true(fabs(f.slope - 2.0034695) < 1e-6);
	assert_true(fabs(f.slope_se - 1.18523e-4) < 1e-8);
	assert_true(fabs(f.intercept - 2348.0155) < 1e-3);
	/* NaN points are skipped; two points give no error: refused */
	double y2[] = { 2351, NAN, 35173 };
	assert_int_equal(study_fit_line(x, y2, 3, &f), -1);
	assert_int_equal(f.n, 2);
}

static void test_rank(void **state)
{
	double ref[19];
	struct study_rank r;

	(void)state;
	for (int i = 0; i < 19; i++)
		ref[i] = 100 + i;
	assert_int_equal(study_rank_min_builds(0.05), 19);
	/* above all 19: p = 1/20, a verdict at 5% */
	study_rank_test(200, ref, 19, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_HIGHER);
	assert_true(fabs(r.p_higher - 0.05) < 1e-12);
	study_rank_test(50, ref, 19, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_LOWER);
	/* inside the spread */
	study_rank_test(110, ref, 19, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_WITHIN);
	assert_int_equal(r.below, 10);
	assert_int_equal(r.above, 8);
	/* equal to the largest build: not outside */
	study_rank_test(118, ref, 19, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_WITHIN);
	/* outside all of 4 builds: p = 0.2, too few to decide */
	study_rank_test(200, ref, 4, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_TOO_FEW);
	assert_true(fabs(r.p_higher - 0.2) < 1e-12);
	study_rank_test(200, ref, 0, 0.05, &r);
	assert_int_equal(r.verdict, STUDY_RANK_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_exact),
		cmocka_unit_test(test_fit_error),
		cmocka_unit_test(test_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
