/* measure/stats/placement.c against values computed independently with
 * SciPy 1.10.1 (Debian's python3-scipy): stats.shapiro,
 * stats.ttest_1samp and stats.t.interval, stats.permutation_test
 * (permutation_type='samples': one sample's signs flipped, every pattern),
 * TOST from stats.t, the smallest detectable effect from stats.t.ppf;
 * then the nested design's components, the choice of E and K, and the
 * verdict rules. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "measure/stats/placement.h"
#include "util/prng.h"

static const double x8[] = { 0.0123, 0.0051, -0.0034, 0.0210, 0.0079, 0.0156, -0.0011, 0.0302 };

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_shapiro_wilk(void **state)
{
	static const double x3[] = { 0.012, -0.004, 0.031 };
	static const double x5[] = { 0.0123, 0.0051, -0.0034, 0.0210, 0.0079 };
	static const double x12[] = { 0.31, 0.12, -0.05, 0.44, 0.08, 0.27, 0.19, -0.12, 0.35, 0.02,
				      0.51, 0.15 };
	static const double skew[] = { 0.001, 0.002, 0.002, 0.003, 0.004, 0.005, 0.007, 0.012, 0.030,
				       0.090 };
	double x25[25], w, p;

	for (int i = 0; i < 25; i++)   /* as the reference script built them */
		x25[i] = fmod(i * 0.37, 1.0) - 0.5 + (i % 7 == 0 ? 0.3 : 0);
	p = placement_shapiro_wilk(x3, 3, &w);
	NEAR(w, 0.9975571036, 1e-6);
	NEAR(p, 0.9055643082, 1e-4);
	p = placement_shapiro_wilk(x5, 5, &w);
	NEAR(w, 0.9944280982, 1e-6);
	NEAR(p, 0.9926740527, 1e-4);
	p = placement_shapiro_wilk(x8, 8, &w);
	NEAR(w, 0.9720592499, 1e-6);
	NEAR(p, 0.9136594534, 1e-4);
	p = placement_shapiro_wilk(x12, 12, &w);
	NEAR(w, 0.9832677841, 1e-6);
	NEAR(p, 0.9934923053, 1e-4);
	p = placement_shapiro_wilk(x25, 25, &w);
	NEAR(w, 0.9589403868, 1e-6);
	NEAR(p, 0.3937742412, 1e-4);
	p = placement_shapiro_wilk(skew, 10, &w);   /* far from normal */
	NEAR(w, 0.5811134577, 1e-6);
	NEAR(p, 3.295995339e-05, 1e-6);
	/* too few, or no spread: no test */
	assert_true(isnan(placement_shapiro_wilk(x3, 2, &w)));
	static const double same[] = { 1, 1, 1, 1 };
	assert_true(isnan(placement_shapiro_wilk(same, 4, &w)));
}

static void test_signflip(void **state)
{
	bool exact;

	/* SciPy's permutation_test over all 2^8 patterns: 0.03125 (8 of 256) */
	NEAR(placement_signflip_p(x8, 8, 1, 0, &exact), 0.03125, 1e-12);
	assert_true(exact);
	NEAR(placement_signflip_p(x8, 5, 1, 0, &exact), 0.125, 1e-12);
	/* 30 values: a Monte Carlo estimate, seeded, near the normal
	 * approximation; symmetric values give p near 1 */
	double y[30], z[30];
	struct prng r;
	prng_init(&r, 3, 0);
	for (int i = 0; i < 30; i++) {
		y[i] = 0.004 + 0.01 * ((double)prng_below(&r, 1000) / 1000.0 - 0.5);
		z[i] = (i & 1 ? 1 : -1) * (double)(i / 2 + 1);
	}
	double p1 = placement_signflip_p(y, 30, 7, 20000, &exact);
	assert_false(exact);
	assert_true(p1 < 0.01);
	NEAR(placement_signflip_p(y, 30, 7, 20000, &exact), p1, 0);   /* the seed repeats it */
	assert_true(placement_signflip_p(z, 30, 7, 20000, &exact) > 0.9);
}

static void test_analyze(void **state)
{
	/* one cell per execution: the test is the one-sample t of x8 */
	size_t ex[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct placement_result r;

	assert_int_equal(placement_analyze(x8, ex, 8, 0.05, 1, 1, &r), 0);
	assert_int_equal(r.E, 8);
	NEAR(r.t, 2.7472368315, 1e-8);
	NEAR(r.p, 0.02861780034, 1e-9);
	NEAR(r.mean_log, 0.01095, 1e-12);
	NEAR(r.effect, 100 * expm1(0.01095), 1e-9);
	NEAR(r.ci_low, 100 * expm1(0.0015250261), 1e-7);
	NEAR(r.ci_high, 100 * expm1(0.0203749739), 1e-7);
	NEAR(r.sd_exec, 0.0112736101, 1e-9);
	NEAR(r.p_signflip, 0.03125, 1e-12);
	assert_true(r.signflip_exact);
	NEAR(r.tost_p, 0.5954167114, 1e-8);   /* not inside +-1% */
	NEAR(r.normality_p, 0.9136594534, 1e-4);
	assert_true(isnan(r.var_within));     /* one cell each: no within spread */
	assert_int_equal(placement_analyze(x8, ex, 8, 0.05, 5, 1, &r), 0);
	NEAR(r.tost_p, 1.505088664e-05, 1e-10);   /* inside +-5% */
	/* the smallest detectable effect: sd 0.02, 24 executions */
	NEAR(placement_mde(0.02, 24, 0.05), 1.2017748829, 1e-8);
	/* fewer than 2 executions */
	assert_int_equal(placement_analyze(x8, ex, 1, 0.05, 1, 1, &r), -EINVAL);
}

/* The nested design: cells d = mu + b_e + w_ej with known components. */
static void test_components_and_choice(void **state)
{
	enum { E = 40, K = 10 };
	double d[E * K];
	size_t ex[E * K];
	struct prng r;
	struct placement_result res;

	prng_init(&r, 11, 0);
	/* Box-Muller normals: sd_b 0.01, sd_w 0.05 */
	for (int e = 0; e < E; e++) {
		double u1 = ((double)prng_below(&r, 1u << 30) + 1) / (double)(1u << 30);
		double u2 = (double)prng_below(&r, 1u << 30) / (double)(1u << 30);
		double b = 0.01 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		for (int k = 0; k < K; k++) {
			u1 = ((double)prng_below(&r, 1u << 30) + 1) / (double)(1u << 30);
			u2 = (double)prng_below(&r, 1u << 30) / (double)(1u << 30);
			d[e * K + k] = 0.002 + b + 0.05 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			ex[e * K + k] = (size_t)e;
		}
	}
	assert_int_equal(placement_analyze(d, ex, E * K, 0.05, 1, 1, &res), 0);
	assert_int_equal(res.cells, E * K);
	NEAR(res.k_harmonic, K, 1e-12);
	/* within: 0.0025 (+-15%); between: 0.0001, loosely (40 executions) */
	assert_true(res.var_within > 0.0025 * 0.85 && res.var_within < 0.0025 * 1.15);
	assert_true(res.var_between < 0.0004);

	/* the choice: from the true components, costs of a boot 10 and a
	 * replay pair 0.5, target 1%: K* = sqrt(c_e s_w^2 / (c_c s_b^2)) = 22 */
	size_t Ec, Kc;
	double mde = placement_choose(0.0001, 0.0025, 10, 0.5, 1.0, 0.05, 2, 1, 64, 0, &Ec, &Kc);
	assert_true(mde <= 1.0);
	assert_true(Kc >= 15 && Kc <= 30);
	/* its E is the fewest reaching the target at that K */
	assert_true(placement_mde(sqrt(0.0001 + 0.0025 / (double)Kc), Ec, 0.05) <= 1.0);
	assert_true(placement_mde(sqrt(0.0001 + 0.0025 / (double)Kc), Ec - 1, 0.05) > 1.0);
	/* a budget too small for 1%: the best effect it buys, over 1% */
	double best = placement_choose(0.0001, 0.0025, 10, 0.5, 1.0, 0.05, 2, 1, 64, 200, &Ec, &Kc);
	assert_true(best > 1.0);
	assert_true((double)Ec * (10 + 0.5 * (double)Kc) <= 200);
}

static void test_verdicts(void **state)
{
	struct placement_result r = { .E = 24, .mean_log = 0.02, .tost_p = 0.9, .mde = 0.8 };

	assert_int_equal(placement_verdict(&r, 0.05, 0.05, 1), PV_SLOWER);   /* p <= alpha */
	r.mean_log = -0.02;
	assert_int_equal(placement_verdict(&r, 0.01, 0.05, 1), PV_FASTER);
	assert_int_equal(placement_verdict(&r, 0.06, 0.05, 1), PV_INCONCLUSIVE);
	r.tost_p = 0.05;
	assert_int_equal(placement_verdict(&r, 0.5, 0.05, 1), PV_EQUIVALENT);
	r.tost_p = 0.9;
	r.mde = 3.2;   /* the design cannot see 1% */
	assert_int_equal(placement_verdict(&r, 0.5, 0.05, 1), PV_NO_VERDICT);
	assert_string_equal(placement_verdict_name(PV_NO_VERDICT), "no verdict possible");
	/* no spread at all (a negative control): equivalent */
	size_t ex[4] = { 0, 1, 2, 3 };
	double zero[4] = { 0, 0, 0, 0 };
	struct placement_result z;
	assert_int_equal(placement_analyze(zero, ex, 4, 0.05, 1, 1, &z), 0);
	assert_true(z.p == 1 && z.effect == 0 && z.ci_low == 0 && z.ci_high == 0);
	assert_int_equal(placement_verdict(&z, z.p, 0.05, 1), PV_EQUIVALENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapiro_wilk),
		cmocka_unit_test(test_signflip),
		cmocka_unit_test(test_analyze),
		cmocka_unit_test(test_components_and_choice),
		cmocka_unit_test(test_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
