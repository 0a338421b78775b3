/* study statistics: the line fit behind "instructions per hash fault",
 * the rank test behind the placement verdicts and their Holm adjustment
 * over reading 4's variants x events (study_analyse()). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include <string.h>

#include "pipeline/study_analysis.h"
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

/* a row of reading 4: every front-end event at v, L1i misses at miss */
static json_t *q4_row(const char *variant, double v, double miss)
{
	static const char *const ev[] = { "instructions", "L1-icache-loads", "L1-icache-load-misses",
					  "iTLB-loads", "iTLB-load-misses" };
	json_t *r = json_object(), *e = json_object();

	for (size_t i = 0; i < 5; i++)
		json_object_set_new(e, ev[i], json_pack("{s:f}", "mean", i == 2 ? miss : v));
	json_object_set_new(r, "config", json_string(variant));
	json_object_set_new(r, "variant", json_string(variant));
	json_object_set_new(r, "events", e);
	return r;
}

/* 39 randomized builds: "far" beyond all of them on L1i misses has
 * p = 1/40, but Holm over the 8 tests of two measured variants x four
 * events (instructions, equal on one execution, are not tested) makes
 * it 8/40: no verdict; a variant not measured is no test */
static void test_rank_holm(void **state)
{
	json_t *res = json_object(), *q = json_object(), *rows = json_array(), *per = json_object();
	(void)state;

	json_object_set_new(res, "q4_placement", q);
	json_object_set_new(q, "rows", rows);
	json_object_set_new(q, "shuffle_builds", per);
	json_array_append_new(rows, q4_row("baseline", 1000, 100));
	json_array_append_new(rows, q4_row("far", 1000, 500));
	json_array_append_new(rows, q4_row("near", 1000, 101));
	json_array_append_new(rows, json_pack("{s:s,s:s,s:s}", "config", "gone", "variant", "gone",
					      "not_measured", "refused"));
	for (int i = 0; i < 39; i++) {
		char name[32];
		snprintf(name, sizeof(name), "baseline-shuffle-%d", i + 1);
		json_object_set_new(per, name, q4_row(name, 1000 + i, 90 + i % 20));
	}
	study_analyse(res);
	assert_int_equal(json_integer_value(json_object_get(q, "holm_tests")), 8);
	json_t *far = json_object_get(json_object_get(json_array_get(rows, 1), "rank"),
				      "L1-icache-load-misses");
	assert_int_equal(json_integer_value(json_object_get(far, "smaller")), 39);
	assert_float_equal(json_real_value(json_object_get(far, "p")), 1.0 / 40, 1e-12);
	assert_float_equal(json_real_value(json_object_get(far, "p_holm")), 8.0 / 40, 1e-12);
	assert_string_equal(json_string_value(json_object_get(far, "verdict")),
			    "beyond every randomized build's difference, not significant after Holm "
			    "over 8 tests");
	json_t *ins = json_object_get(json_object_get(json_array_get(rows, 1), "rank"), "instructions");
	assert_false(json_is_true(json_object_get(ins, "tested")));
	assert_true(json_is_null(json_object_get(ins, "p_holm")));
	json_t *gone = json_object_get(json_array_get(rows, 3), "rank");
	assert_true(json_is_null(json_object_get(json_object_get(gone, "iTLB-loads"), "p_holm")));
	json_decref(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_exact),
		cmocka_unit_test(test_fit_error),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_rank_holm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
