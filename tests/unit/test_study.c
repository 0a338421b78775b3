/* study statistics: the line fit behind "instructions per hash fault",
 * and reading 4's judgement by the placement design, Holm over its
 * variants x primary events (study_analyse()). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include <string.h>

#include "pipeline/study_analysis.h"
#include "pipeline/study_stats.h"
#include "util/json.h"

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

/* A replay job's results: rows of the five events, builds a block */
static json_t *replay(size_t builds, size_t nrows, double (*l1)(size_t row), double itlb)
{
	json_t *rows = json_array();

	for (size_t r = 0; r < nrows; r++)
		json_array_append_new(rows, json_pack("[f,f,f,f,f]", 1000.0, 1100.0, l1(r), 900.0, itlb));
	return json_pack("{s:I,s:o}", "builds", (json_int_t)builds, "rows", rows);
}

static size_t g_exec;
/* pairs: baseline's draws spread, the variant 10% above (a little noise) */
static double l1_far(size_t r)
{
	double a = 500 + 10.0 * (double)(r / 2) + (double)g_exec;
	return r % 2 ? a * (1.10 + 0.001 * (double)((r / 2 + g_exec) % 3)) : a;
}

/* the same counts in both builds of every block */
static double l1_near(size_t r)
{
	return 500 + 10.0 * (double)(r / 2);
}

/* the family: baseline 500, its draws 510.. */
static double l1_family(size_t r)
{
	return 500 + 10.0 * (double)r;
}

/* A vs A: draws alternate around 500 */
static double l1_aa(size_t r)
{
	return 500 + (double)((r * 7 + g_exec) % 5);
}

/* Reading 4 judged (study_analyse()): three executions x four draw pairs,
 * "far" 10% above baseline on L1i misses (slower), "near" the same in
 * every cell (equivalent), "gone" refused by replay (no test, not in Holm's
 * family); the estimate (L1i loads) gets no verdict; A vs A holds; the
 * identical executions are said to be replicas; baseline's rank among its
 * family's draws is the two-sided rank p. */
static void test_q4_placement(void **state)
{
	json_t *res = json_object(), *ex = json_array();
	(void)state;

	json_t *q = json_pack("{s:[s,s,s,s,s],s:{s:i,s:i,s:s,s:i,s:[s,s],s:[s],s:f,s:f},s:[s,s,s],s:o,s:{}}",
			      "events", "instructions", "L1-icache-loads", "L1-icache-load-misses", "iTLB-loads",
			      "iTLB-load-misses", "design", "executions", 3, "draws", 4, "family", "function",
			      "family_draws", 9, "primaries", "L1-icache-load-misses", "iTLB-load-misses",
			      "estimates", "L1-icache-loads", "alpha", 0.05, "margin_percent", 1.0,
			      "variants", "far", "near", "gone", "executions", ex, "live");
	json_object_set_new(res, "q4_placement", q);
	for (g_exec = 0; g_exec < 3; g_exec++) {
		json_t *reps = json_pack("{s:o,s:o,s:{s:s},s:o}", "far", replay(2, 10, l1_far, 50),
					 "near", replay(2, 10, l1_near, 50), "gone", "not_measured", "refused",
					 "aa", replay(1, 9, l1_aa, 50));
		json_t *live = json_pack("{s:{s:f},s:{s:f},s:{s:f},s:{s:f},s:{s:f}}", "instructions", "mean",
					 1000.0, "L1-icache-loads", "mean", 1100.0, "L1-icache-load-misses", "mean",
					 l1_aa(0), "iTLB-loads", "mean", 900.0, "iTLB-load-misses", "mean", 50.0);
		json_array_append_new(ex, json_pack("{s:o,s:o}", "events", live, "replays", reps));
	}
	/* the family: baseline (500) among 9 draws, every one above it */
	json_object_set_new(q, "family", json_pack("{s:o}", "function-0", replay(1, 10, l1_family, 50)));
	study_analyse(res);

	json_t *v = json_object_get(q, "verdicts");
	assert_int_equal(json_array_size(v), 9);   /* 3 variants x 3 events */
	json_t *far = json_array_get(v, 0), *near = json_array_get(v, 3), *gone = json_array_get(v, 6);
	assert_string_equal(json_string_value(json_object_get(far, "event")), "L1-icache-load-misses");
	assert_string_equal(json_string_value(json_object_get(far, "verdict")), "slower");
	assert_int_equal(json_integer_value(json_object_get(far, "executions")), 3);
	assert_int_equal(json_integer_value(json_object_get(far, "cells")), 12);
	double eff = json_real_value(json_object_get(far, "effect_percent"));
	assert_true(eff > 10.0 && eff < 10.3);
	/* Holm over the 4 primary tests measured: the smallest p times 4 */
	assert_int_equal(json_integer_value(json_object_get(far, "holm_family")), 4);
	assert_float_equal(json_real_value(json_object_get(far, "p_holm")),
			   4 * json_real_value(json_object_get(far, "p")), 1e-12);
	assert_string_equal(json_string_value(json_object_get(near, "verdict")), "equivalent");
	assert_int_equal(json_integer_value(json_object_get(near, "cells_equal")), 12);
	/* the estimate: an effect, no verdict, no Holm p */
	json_t *est = json_array_get(v, 2);
	assert_false(json_is_true(json_object_get(est, "primary")));
	assert_null(json_object_get(est, "verdict"));
	assert_null(json_object_get(est, "p_holm"));
	/* refused: no cells, no p, no place in Holm's family */
	assert_int_equal(json_integer_value(json_object_get(gone, "cells")), 0);
	assert_true(json_is_null(json_object_get(gone, "p_holm")));
	assert_string_equal(json_string_value(json_object_get(gone, "verdict")), "no verdict possible");
	/* A vs A holds, and so the controls */
	assert_true(json_is_true(json_object_get(json_object_get(q, "aa"), "ok")));
	assert_true(json_is_true(json_object_get(json_object_get(q, "controls"), "ok")));
	/* the executions' L1i misses differ (500, 501, 502): not replicas;
	 * each one's replay through its own build is its live run */
	json_t *ec = json_object_get(q, "executions_check");
	assert_false(json_is_true(json_object_get(ec, "identical")));
	assert_int_equal(json_integer_value(json_object_get(ec, "measured")), 3);
	assert_int_equal(json_integer_value(json_object_get(ec, "replay_equal")), 3);
	/* baseline 500 below all 9 draws (510..590): two-sided rank p 2/10 */
	json_t *rk = json_object_get(json_array_get(json_object_get(json_object_get(q, "family_checks"),
								  "baseline_ranks"), 0), "rank");
	assert_int_equal(json_integer_value(json_object_get(rk, "above")), 9);
	assert_float_equal(json_real_value(json_object_get(rk, "p")), 0.2, 1e-12);
	assert_float_equal(json_real_value(json_object_get(rk, "quantile")), 0.05, 1e-12);
	json_decref(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_exact),
		cmocka_unit_test(test_fit_error),
		cmocka_unit_test(test_q4_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
