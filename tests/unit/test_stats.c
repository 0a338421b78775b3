/* measure/stats/stats.c against known answers.
 *
 * References: Student's sleep data (Cushny & Peebles 1905, R's `sleep`
 * dataset) with the values R prints for t.test(extra ~ group, data = sleep)
 * (Welch: t = -1.8608, df = 17.776, p = 0.07939, CI -3.3654832 0.2054832;
 * paired: t = -4.0621, df = 9, p = 0.002833, CI -2.4598858 -0.7001142),
 * confirmed to 12 digits with mpmath by tests/fixtures/measure/stats_ref.py,
 * which also computes the ratio-CI and TOST references below.  Holm's
 * adjustment is worked by hand from Holm (1979), "A simple sequentially
 * rejective multiple test procedure", Scand. J. Statist. 6:65-70.  The rank
 * test's p-values are worked by hand (counts over n + 1 exchangeable
 * values, written as fractions below). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "measure/stats/stats.h"

static const double sleep1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
static const double sleep2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_summary(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct lace_summary s;

	stats_summary(x, 8, &s);
	CLOSE(s.mean, 5.0, 1e-12);
	/* sample sd: sqrt(32/7) */
	CLOSE(s.sd, sqrt(32.0 / 7.0), 1e-12);
	CLOSE(s.sem, sqrt(32.0 / 7.0) / sqrt(8.0), 1e-12);
	CLOSE(s.min, 2, 0);
	CLOSE(s.max, 9, 0);
	CLOSE(s.median, 4.5, 1e-12);
	stats_summary(x, 1, &s);
	CLOSE(s.sd, 0, 0);
	stats_summary(x, 0, &s);
	assert_true(isnan(s.mean));
}

static void test_welch(void **state)
{
	struct lace_ttest r;

	assert_int_equal(stats_ttest_welch(sleep1, 10, sleep2, 10, 0.95, &r), 0);
	CLOSE(r.t, -1.86081346749, 1e-9);
	CLOSE(r.df, 17.7764735162, 1e-8);
	CLOSE(r.p, 0.0793941401874, 1e-9);
	CLOSE(r.ci_low, -3.36548323071, 1e-8);
	CLOSE(r.ci_high, 0.205483230712, 1e-8);
	assert_int_not_equal(stats_ttest_welch(sleep1, 1, sleep2, 10, 0.95, &r), 0);
}

static void test_paired(void **state)
{
	struct lace_ttest r;

	assert_int_equal(stats_ttest_paired(sleep1, sleep2, 10, 0.95, &r), 0);
	CLOSE(r.t, -4.06212768338, 1e-9);
	CLOSE(r.df, 9, 0);
	CLOSE(r.p, 0.00283289019738, 1e-10);
	CLOSE(r.ci_low, -2.45988576328, 1e-8);
	CLOSE(r.ci_high, -0.700114236723, 1e-8);
}

static void test_ratio_and_tost(void **state)
{
	const double a[] = { 100, 102, 98, 101, 99, 103, 97, 100 };
	const double b[] = { 103, 104, 101, 105, 101, 106, 99, 104 };
	struct lace_ratio r;

	assert_int_equal(stats_ratio_ci(a, b, 8, 0.95, 0.05, &r), 0);
	CLOSE(r.ratio, 1.02869269159, 1e-10);
	CLOSE(r.ci_low, 1.02185411762, 1e-9);
	CLOSE(r.ci_high, 1.03557703149, 1e-9);
	CLOSE(r.p, 2.09924507765e-5, 1e-11);
	CLOSE(r.tost_p, 8.36504840339e-5, 1e-11);
	/* inside +-5 %: equivalent; with a 1 % margin it is slower */
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.05), LACE_VERDICT_EQUIVALENT);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_SLOWER);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.025), LACE_VERDICT_INCONCLUSIVE);
	/* inconclusive at 2.5 %: more rounds than the 8 we have would settle it */
	assert_true(stats_rounds_needed(&r, 0.95, 0.025) > 8);
	/* swapped: faster */
	assert_int_equal(stats_ratio_ci(b, a, 8, 0.95, 0.01, &r), 0);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_FASTER);
	/* a zero or negative value is a domain error, not a crash */
	const double z[] = { 0, 1 };
	assert_int_not_equal(stats_ratio_ci(z, z, 2, 0.95, 0.01, &r), 0);
	/* identical rounds: ratio exactly 1, equivalent */
	assert_int_equal(stats_ratio_ci(a, a, 8, 0.95, 0.01, &r), 0);
	CLOSE(r.ratio, 1, 0);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_EQUIVALENT);
}

/* A known layout spread folded in (stats_ratio_fold(), references from
 * stats_ref.py): the same +2.9 % that the rounds alone call slower is
 * one layout draw a side, and a 2 % spread of layouts leaves it
 * inconclusive; the runs' own CI and p are kept beside it. */
static void test_ratio_fold(void **state)
{
	const double a[] = { 100, 102, 98, 101, 99, 103, 97, 100 };
	const double b[] = { 103, 104, 101, 105, 101, 106, 99, 104 };
	struct lace_ratio r;

	assert_int_equal(stats_ratio_ci(a, b, 8, 0.95, 0.05, &r), 0);
	stats_ratio_fold(&r, 0.02, 0.95, 0.05);
	CLOSE(r.ratio, 1.02869269159, 1e-10);
	CLOSE(r.df, 72179.3316255, 1e-3);
	CLOSE(r.ci_low, 0.97294928588, 1e-9);
	CLOSE(r.ci_high, 1.08762981698, 1e-9);
	CLOSE(r.p, 0.319631660009, 1e-9);
	CLOSE(r.tost_p, 0.235377159747, 1e-9);
	CLOSE(r.runs_ci_low, 1.02185411762, 1e-9);
	CLOSE(r.runs_p, 2.09924507765e-5, 1e-11);
	CLOSE(r.fold_sd, 0.02, 0);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_INCONCLUSIVE);
	/* the spread is a floor no number of rounds lowers below its own
	 * width: 1.96 * sqrt(2) * 2 % = 5.5 % > the 1.9 % to the margin */
	assert_int_equal(stats_rounds_needed(&r, 0.95, 0.01), SIZE_MAX);
	/* nothing to fold: unchanged */
	struct lace_ratio u = r;
	stats_ratio_fold(&u, 0, 0.95, 0.05);
	assert_memory_equal(&u, &r, sizeof(r));

	/* an exact ratio (a simulated count) gets a normal interval */
	stats_ratio_exact(100, 105, 4, 0.01, &r);
	CLOSE(r.ci_low, 1.05, 1e-12);
	CLOSE(r.ci_high, 1.05, 1e-12);
	stats_ratio_fold(&r, 0.02, 0.95, 0.01);
	assert_true(isinf(r.df));
	CLOSE(r.ci_low, 0.993376046936, 1e-9);
	CLOSE(r.ci_high, 1.10985160494, 1e-9);
	CLOSE(r.p, 0.084528770619, 1e-9);
	assert_int_equal(stats_rounds_needed(&r, 0.95, 0.01), SIZE_MAX);
}

/* hyperfine's wording: B/A >= 1 is "slower" by B/A, below 1 "faster" by
 * A/B, with half the CI's width (the CI of A/B is the inverted one) */
static void test_factor(void **state)
{
	struct lace_ratio r = { .n = 8, .ratio = 1.25, .ci_low = 1.2, .ci_high = 1.3 };
	double f, pm;

	assert_int_equal(stats_factor(&r, &f, &pm), 1);
	CLOSE(f, 1.25, 1e-12);
	CLOSE(pm, 0.05, 1e-12);
	r = (struct lace_ratio){ .n = 8, .ratio = 0.8, .ci_low = 0.75, .ci_high = 0.84 };
	assert_int_equal(stats_factor(&r, &f, &pm), -1);
	CLOSE(f, 1.25, 1e-12);
	CLOSE(pm, (1 / 0.75 - 1 / 0.84) / 2, 1e-12);
	r = (struct lace_ratio){ .n = 8, .ratio = 1, .ci_low = 1, .ci_high = 1 };
	assert_int_equal(stats_factor(&r, &f, &pm), 0);
	CLOSE(f, 1, 0);
	CLOSE(pm, 0, 0);
	r.ratio = NAN;
	assert_int_equal(stats_factor(&r, &f, &pm), 0);
	assert_true(isnan(f) && isnan(pm));
}

static void test_holm(void **state)
{
	/* sorted 0.005 0.01 0.03 0.04 -> x4 x3 x2 x1 = 0.02 0.03 0.06 0.04,
	 * made monotone: 0.02 0.03 0.06 0.06 */
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];

	stats_holm(p, 4, adj);
	CLOSE(adj[0], 0.03, 1e-15);
	CLOSE(adj[1], 0.06, 1e-15);
	CLOSE(adj[2], 0.06, 1e-15);
	CLOSE(adj[3], 0.02, 1e-15);
	/* capped at 1, NaN passed through and not counted */
	const double q[] = { 0.6, NAN, 0.5 };
	stats_holm(q, 3, adj);
	CLOSE(adj[2], 1.0, 0);
	CLOSE(adj[0], 1.0, 0);
	assert_true(isnan(adj[1]));
}

/* x above (below) all n references 1..n, every n from 1 to 20: one-sided
 * p = 1/(n+1), two-sided 2/(n+1) (capped at 1), by hand */
/* against SciPy 1.10.1: stats.kstest(x, 'uniform', method='asymp') */
static void test_ks_uniform(void **state)
{
	static const double x[] = { 0.05, 0.12, 0.33, 0.41, 0.5, 0.62, 0.77, 0.81, 0.9, 0.95 };
	static const double y[] = { 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.11, 0.2, 0.21, 0.3, 0.31,
				    0.35, 0.4, 0.41, 0.45, 0.5, 0.52, 0.55, 0.6, 0.99 };
	double D;

	(void)state;
	assert_true(fabs(stats_ks_uniform(x, 10, &D) - 0.9347322478665343) < 1e-9);
	assert_true(fabs(D - 0.17) < 1e-12);
	assert_true(fabs(stats_ks_uniform(y, 20, &D) - 0.014893159992088918) < 1e-9);
	assert_true(fabs(D - 0.35) < 1e-12);
	assert_true(isnan(stats_ks_uniform(x, 0, &D)));
}

static void test_rank_extremes(void **state)
{
	static const double two[20] = { 1, 2. / 3, 2. / 4, 2. / 5, 2. / 6, 2. / 7, 2. / 8, 2. / 9, 2. / 10,
					 2. / 11, 2. / 12, 2. / 13, 2. / 14, 2. / 15, 2. / 16, 2. / 17,
					 2. / 18, 2. / 19, 2. / 20, 2. / 21 };
	static const double one[20] = { 1. / 2, 1. / 3, 1. / 4, 1. / 5, 1. / 6, 1. / 7, 1. / 8,
					 1. / 9, 1. / 10, 1. / 11, 1. / 12, 1. / 13, 1. / 14, 1. / 15,
					 1. / 16, 1. / 17, 1. / 18, 1. / 19, 1. / 20, 1. / 21 };
	double ref[20];
	struct lace_rank r;

	for (size_t n = 1; n <= 20; n++) {
		ref[n - 1] = (double)n;
		/* above all */
		CLOSE(stats_rank_p((double)n + 0.5, ref, n, LACE_ALT_TWO_SIDED, &r), two[n - 1], 1e-15);
		assert_int_equal(r.n, n);
		assert_int_equal(r.below, n);
		assert_int_equal(r.above, 0);
		CLOSE(r.p_upper, one[n - 1], 1e-15);
		CLOSE(r.p_lower, 1.0, 1e-15);
		CLOSE(stats_rank_p((double)n + 0.5, ref, n, LACE_ALT_GREATER, NULL), one[n - 1], 1e-15);
		/* declared the other way: no evidence at all */
		CLOSE(stats_rank_p((double)n + 0.5, ref, n, LACE_ALT_LESS, NULL), 1.0, 1e-15);
		/* below all: the mirror */
		CLOSE(stats_rank_p(0.5, ref, n, LACE_ALT_TWO_SIDED, &r), two[n - 1], 1e-15);
		assert_int_equal(r.above, n);
		CLOSE(r.p_lower, one[n - 1], 1e-15);
		CLOSE(stats_rank_p(0.5, ref, n, LACE_ALT_LESS, NULL), one[n - 1], 1e-15);
		CLOSE(stats_rank_p(0.5, ref, n, LACE_ALT_GREATER, NULL), 1.0, 1e-15);
	}
	/* the thresholds: 19 relinks reach 0.05 only one-sided, 39 two-sided */
	CLOSE(stats_rank_p(20.5, ref, 19, LACE_ALT_GREATER, NULL), 0.05, 1e-15);
	CLOSE(stats_rank_p(20.5, ref, 19, LACE_ALT_TWO_SIDED, NULL), 0.10, 1e-15);
	double ref39[39];
	for (size_t i = 0; i < 39; i++)
		ref39[i] = (double)i;
	CLOSE(stats_rank_p(100, ref39, 39, LACE_ALT_TWO_SIDED, NULL), 0.05, 1e-15);
}

static void test_rank_inside_and_ties(void **state)
{
	const double nine[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct lace_rank r;

	/* 3.5 among 1..9: 6 at or above -> 7/10, 3 at or below -> 4/10;
	 * two-sided 2 * 4/10 */
	CLOSE(stats_rank_p(3.5, nine, 9, LACE_ALT_TWO_SIDED, &r), 0.8, 1e-15);
	CLOSE(r.p_upper, 0.7, 1e-15);
	CLOSE(r.p_lower, 0.4, 1e-15);
	CLOSE(stats_rank_p(3.5, nine, 9, LACE_ALT_LESS, NULL), 0.4, 1e-15);
	CLOSE(stats_rank_p(3.5, nine, 9, LACE_ALT_GREATER, NULL), 0.7, 1e-15);
	/* the middle: capped at 1 */
	CLOSE(stats_rank_p(5, nine, 9, LACE_ALT_TWO_SIDED, NULL), 1.0, 0);

	/* ties count against x in both tails (conservative, no mid-ranks):
	 * 9 tied with the top two of {1..8, 9, 9}: #>= 2 -> 3/11, #<= 10 ->
	 * 11/11; two-sided 6/11 (mid-ranks would say 2 * 2/11 = 4/11) */
	const double top[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 9 };
	CLOSE(stats_rank_p(9, top, 10, LACE_ALT_TWO_SIDED, &r), 6. / 11, 1e-15);
	CLOSE(r.p_upper, 3. / 11, 1e-15);
	CLOSE(r.p_lower, 1.0, 1e-15);
	assert_int_equal(r.above, 0);
	assert_int_equal(r.below, 8);
	CLOSE(stats_rank_p(9, top, 10, LACE_ALT_GREATER, NULL), 3. / 11, 1e-15);
	/* equal to the largest of n: never "above all", p_upper = 2/(n+1) */
	CLOSE(stats_rank_p(9, nine, 9, LACE_ALT_GREATER, NULL), 0.2, 1e-15);
	CLOSE(stats_rank_p(9, nine, 9, LACE_ALT_TWO_SIDED, NULL), 0.4, 1e-15);
	/* tied in the middle: {1, 2, 2, 3}, x = 2: 3 at or above, 3 at or
	 * below -> 4/5 each, two-sided 1 */
	const double mid[] = { 1, 2, 2, 3 };
	CLOSE(stats_rank_p(2, mid, 4, LACE_ALT_TWO_SIDED, &r), 1.0, 0);
	CLOSE(r.p_upper, 0.8, 1e-15);
	CLOSE(r.p_lower, 0.8, 1e-15);
	assert_int_equal(r.above + r.below, 2);
	/* all equal: no evidence either way */
	const double same[] = { 5, 5, 5 };
	CLOSE(stats_rank_p(5, same, 3, LACE_ALT_GREATER, NULL), 1.0, 0);
	CLOSE(stats_rank_p(5, same, 3, LACE_ALT_LESS, NULL), 1.0, 0);

	/* NaN references are skipped: {1, NaN, 2}, x = 3 is above 2 -> 1/3,
	 * two-sided 2/3; nothing to compare with, or x NaN: NaN */
	const double gap[] = { 1, NAN, 2 };
	CLOSE(stats_rank_p(3, gap, 3, LACE_ALT_TWO_SIDED, &r), 2. / 3, 1e-15);
	assert_int_equal(r.n, 2);
	assert_true(isnan(stats_rank_p(3, gap, 0, LACE_ALT_TWO_SIDED, NULL)));
	assert_true(isnan(stats_rank_p(NAN, gap, 3, LACE_ALT_TWO_SIDED, NULL)));
	const double only_nan[] = { NAN, NAN };
	assert_true(isnan(stats_rank_p(3, only_nan, 2, LACE_ALT_TWO_SIDED, &r)));
	assert_int_equal(r.n, 0);
}

/* The kernel study's use: variants x events rank p-values, Holm-adjusted
 * together.  Four tests, three above or below all of 19 relinks, one
 * inside: 0.1 0.1 0.1 0.5 -> sorted x4 x3 x2 x1 = 0.4 0.3 0.2 0.5 ->
 * monotone 0.4 0.4 0.4 0.5 */
static void test_rank_holm(void **state)
{
	double ref[19], p[4], adj[4];

	for (size_t i = 0; i < 19; i++)
		ref[i] = 100 + (double)i;
	p[0] = stats_rank_p(200, ref, 19, LACE_ALT_TWO_SIDED, NULL);
	p[1] = stats_rank_p(50, ref, 19, LACE_ALT_TWO_SIDED, NULL);
	p[2] = stats_rank_p(118.5, ref, 19, LACE_ALT_TWO_SIDED, NULL);
	p[3] = stats_rank_p(103.5, ref, 19, LACE_ALT_TWO_SIDED, NULL); /* 4 below: 2 * 5/20 */
	CLOSE(p[0], 0.1, 1e-15);
	CLOSE(p[1], 0.1, 1e-15);
	CLOSE(p[2], 0.1, 1e-15);
	CLOSE(p[3], 0.5, 1e-15);
	stats_holm(p, 4, adj);
	CLOSE(adj[0], 0.4, 1e-15);
	CLOSE(adj[1], 0.4, 1e-15);
	CLOSE(adj[2], 0.4, 1e-15);
	CLOSE(adj[3], 0.5, 1e-15);
}

static void test_rounds_needed(void **state)
{
	/* an estimate of +2 % with log sd 0.05 at 10 rounds, margin 1 %: the CI
	 * must shrink to the 1 % gap: n ~ (1.96 * 0.05 / 0.0099)^2 ~ 98 */
	struct lace_ratio r = { .n = 10, .log_mean = log(1.02), .log_sd = 0.05, .ratio = 1.02,
				.ci_low = 0.98, .ci_high = 1.06, .p = 0.2 };
	size_t n = stats_rounds_needed(&r, 0.95, 0.01);
	assert_true(n > 90 && n < 110);
	/* on the margin itself: no number of rounds settles it */
	r.log_mean = log1p(0.01);
	assert_int_equal(stats_rounds_needed(&r, 0.95, 0.01), SIZE_MAX);
}

/* Acceptance 2.  Synthetic batches of 30 rounds: the machine drifts by 20 %
 * over the batch (each run of a round sees the level of its own time slot,
 * so A and B of one round differ by the drift of one slot), and each run is
 * off by noise of 5 % (normal, 95 % of runs within +-5 %: sigma 2.5 %).
 * A and B run in random order within a round, as lace ab does. */
static void simulate(gsl_rng *rng, double effect, double *a, double *b, size_t rounds)
{
	for (size_t r = 0; r < rounds; r++) {
		int b_first = gsl_rng_uniform(rng) < 0.5;
		for (int pos = 0; pos < 2; pos++) {
			double slot = (double)(2 * r + (size_t)pos);
			double level = 1.0 + 0.20 * slot / (double)(2 * rounds - 1);
			double v = 1e6 * level * (1.0 + gsl_ran_gaussian(rng, 0.025));
			if ((pos == 0) == b_first)
				b[r] = v * (1.0 + effect);
			else
				a[r] = v;
		}
	}
}

static void test_simulated_verdicts(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[30], b[30];
	int aa_decided = 0, ab_slower = 0;

	gsl_rng_set(rng, 20240601);
	for (int i = 0; i < 1000; i++) {
		struct lace_ratio r;
		simulate(rng, 0.0, a, b, 30);
		assert_int_equal(stats_ratio_ci(a, b, 30, 0.95, 0.01, &r), 0);
		enum lace_verdict v = stats_verdict(&r, r.p, 0.95, 0.01);
		aa_decided += v == LACE_VERDICT_SLOWER || v == LACE_VERDICT_FASTER;
	}
	for (int i = 0; i < 1000; i++) {
		struct lace_ratio r;
		simulate(rng, 0.03, a, b, 30);
		assert_int_equal(stats_ratio_ci(a, b, 30, 0.95, 0.01, &r), 0);
		ab_slower += stats_verdict(&r, r.p, 0.95, 0.01) == LACE_VERDICT_SLOWER;
	}
	print_message("A/A slower or faster: %d/1000; 3%% found slower: %d/1000\n", aa_decided,
		      ab_slower);
	assert_true(aa_decided <= 50);
	assert_true(ab_slower >= 800);
	gsl_rng_free(rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_ks_uniform),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_ratio_and_tost),
		cmocka_unit_test(test_ratio_fold),
		cmocka_unit_test(test_factor),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_rank_extremes),
		cmocka_unit_test(test_rank_inside_and_ties),
		cmocka_unit_test(test_rank_holm),
		cmocka_unit_test(test_rounds_needed),
		cmocka_unit_test(test_simulated_verdicts),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
