/* The statistics of a placement verdict; see placement.h. */
#include "measure/stats/placement.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "measure/stats/stats.h"
#include "util/error.h"
#include "util/prng.h"
#include "util/xalloc.h"

#define SIGNFLIP_EXACT_MAX 20
#define SIGNFLIP_TRIALS 100000
#define POWER 0.8

static double pct(double log_ratio)
{
	return 100.0 * expm1(log_ratio);
}

/* ---- the sign-flip test ------------------------------------------------ */

double placement_signflip_p(const double *x, size_t n, uint64_t seed, size_t trials, bool *exact)
{
	double obs = 0, tol;
	size_t hits = 0;

	for (size_t i = 0; i < n; i++)
		obs += x[i];
	obs = fabs(obs);
	/* a pattern's sum equal to the observed one, up to rounding, counts */
	tol = 1e-9 * (obs > 1e-300 ? obs : 1e-300);
	if (n <= SIGNFLIP_EXACT_MAX) {
		/* every pattern, in Gray-code order: one sign changes per step */
		uint64_t patterns = (uint64_t)1 << n;
		double s = 0;

		for (size_t i = 0; i < n; i++)   /* all signs +: the observed pattern */
			s += x[i];
		for (uint64_t g = 0; g < patterns; g++) {
			if (g) {
				int bit = __builtin_ctzll(g);
				uint64_t gray = g ^ (g >> 1);
				/* the sign of x[bit] is - when the bit is set */
				s += (gray >> bit & 1) ? -2 * x[bit] : 2 * x[bit];
			}
			hits += fabs(s) >= obs - tol;
		}
		*exact = true;
		return (double)hits / (double)patterns;
	}
	struct prng r;
	prng_init(&r, seed, 0x5349474e464c4950ull);   /* "SIGNFLIP" */
	for (size_t t = 0; t < trials; t++) {
		double s = 0;
		uint64_t bits = 0;
		for (size_t i = 0; i < n; i++) {
			if (!(i & 63))
				bits = prng_next(&r);
			s += (bits >> (i & 63) & 1) ? -x[i] : x[i];
		}
		hits += fabs(s) >= obs - tol;
	}
	*exact = false;
	return (double)(1 + hits) / (double)(1 + trials);
}

/* ---- Shapiro-Wilk (Royston 1995, Applied Statistics algorithm AS R94) ---- */

static double poly(const double *c, int n, double x)
{
	double r = c[n - 1];

	for (int i = n - 2; i >= 0; i--)
		r = r * x + c[i];
	return r;
}

double placement_shapiro_wilk(const double *x, size_t n, double *w_out)
{
	static const double c1[] = { 0.0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056 };
	static const double c2[] = { 0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633 };
	static const double c3[] = { 0.544, -0.39978, 0.025054, -6.714e-4 };
	static const double c4[] = { 1.3822, -0.77857, 0.062767, -0.0020322 };
	static const double c5[] = { -1.5861, -0.31082, -0.083751, 0.0038915 };
	static const double c6[] = { -0.4803, -0.082676, 0.0030302 };
	static const double g[] = { -2.273, 0.459 };
	size_t half = n / 2;
	double an = (double)n, *a, *s, w, num = 0, ssx, mean, pw;

	*w_out = NAN;
	if (n < 3 || n > 5000)
		return NAN;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	if (s[n - 1] - s[0] < 1e-300 * (fabs(s[0]) + 1)) {   /* all equal */
		free(s);
		return NAN;
	}
	/* the coefficients of the lower half, positive: a[i] multiplies
	 * x(n-i) - x(i+1) */
	a = xcalloc(half, sizeof(*a));
	if (n == 3) {
		a[0] = sqrt(0.5);
	} else {
		double *m = xcalloc(half, sizeof(*m)), summ2 = 0, ssumm2, rsn, a1, fac;
		size_t i1;

		for (size_t i = 0; i < half; i++) {
			m[i] = gsl_cdf_ugaussian_Pinv(((double)i + 1 - 0.375) / (an + 0.25));
			summ2 += m[i] * m[i];
		}
		summ2 *= 2;
		ssumm2 = sqrt(summ2);
		rsn = 1 / sqrt(an);
		a1 = poly(c1, 6, rsn) - m[0] / ssumm2;
		if (n > 5) {
			double a2 = -m[1] / ssumm2 + poly(c2, 6, rsn);
			fac = sqrt((summ2 - 2 * m[0] * m[0] - 2 * m[1] * m[1]) /
				   (1 - 2 * a1 * a1 - 2 * a2 * a2));
			a[1] = a2;
			i1 = 2;
		} else {
			fac = sqrt((summ2 - 2 * m[0] * m[0]) / (1 - 2 * a1 * a1));
			i1 = 1;
		}
		a[0] = a1;
		for (size_t i = i1; i < half; i++)
			a[i] = -m[i] / fac;
		free(m);
	}
	mean = gsl_stats_mean(s, 1, n);
	ssx = 0;
	for (size_t i = 0; i < n; i++)
		ssx += (s[i] - mean) * (s[i] - mean);
	for (size_t i = 0; i < half; i++)
		num += a[i] * (s[n - 1 - i] - s[i]);
	w = num * num / ssx;
	if (w > 1)
		w = 1;
	free(a);
	free(s);
	*w_out = w;
	if (n == 3) {
		pw = 6 / M_PI * (asin(sqrt(w)) - asin(sqrt(0.75)));
		return pw < 0 ? 0 : pw > 1 ? 1 : pw;
	}
	double w1 = log(1 - w), mu, sigma;
	if (n <= 11) {
		double gamma = poly(g, 2, an);
		if (w1 >= gamma)
			return 1e-99;
		w1 = -log(gamma - w1);
		mu = poly(c3, 4, an);
		sigma = exp(poly(c4, 4, an));
	} else {
		double xx = log(an);
		mu = poly(c5, 4, xx);
		sigma = exp(poly(c6, 3, xx));
	}
	return gsl_cdf_ugaussian_Q((w1 - mu) / sigma);
}

/* ---- power and the design ----------------------------------------------- */

double placement_mde(double sd_exec, size_t E, double alpha)
{
	if (E < 2 || isnan(sd_exec))
		return NAN;
	double df = (double)(E - 1);
	double q = gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(POWER, df);
	return pct(q * sd_exec / sqrt((double)E));
}

/* the smallest detectable effect (percent) of E executions x K cells */
static double design_mde(double vb, double vw, size_t E, size_t K, double alpha)
{
	return placement_mde(sqrt(vb + vw / (double)K), E, alpha);
}

double placement_choose(double var_between, double var_within, double cost_exec, double cost_cell,
			double target, double alpha, size_t e_min, size_t k_min, size_t k_max,
			double budget, size_t *E, size_t *K)
{
	double best = INFINITY, best_cost = INFINITY;

	if (e_min < 2)
		e_min = 2;
	if (k_min < 1)
		k_min = 1;
	if (k_max < k_min)
		k_max = k_min;
	*E = e_min;
	*K = k_min;
	/* for each K the fewest executions that reach the target (or the
	 * most the budget pays for); the cheapest that reaches it wins, else
	 * the best the budget reaches */
	for (size_t k = k_min; k <= k_max; k++) {
		double per = cost_exec + (double)k * cost_cell;
		size_t e_cap = budget > 0 ? (size_t)(budget / per) : 100000;
		size_t e = e_min;

		if (e_cap < e_min)
			continue;
		while (e < e_cap && design_mde(var_between, var_within, e, k, alpha) > target)
			e++;
		double mde = design_mde(var_between, var_within, e, k, alpha), cost = (double)e * per;
		bool reached = mde <= target, best_reached = best <= target;

		if ((reached && (!best_reached || cost < best_cost)) ||
		    (!reached && !best_reached && mde < best)) {
			best = mde;
			best_cost = cost;
			*E = e;
			*K = k;
		}
	}
	if (isinf(best))   /* not even e_min fits the budget */
		best = design_mde(var_between, var_within, *E, *K, alpha);
	return best;
}

/* ---- the analysis ----------------------------------------------------- */

int placement_analyze(const double *d, const size_t *exec, size_t n, double alpha, double margin,
		      uint64_t seed, struct placement_result *r)
{
	size_t E = 0, maxe = 0;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		maxe = exec[i] + 1 > maxe ? exec[i] + 1 : maxe;
	double *sum = xcalloc(maxe, sizeof(*sum)), *sq = xcalloc(maxe, sizeof(*sq));
	size_t *k = xcalloc(maxe, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		sum[exec[i]] += d[i];
		k[exec[i]]++;
	}
	double *m = xcalloc(maxe, sizeof(*m)), vw = 0, inv_k = 0;
	size_t nvw = 0;
	for (size_t e = 0; e < maxe; e++) {
		if (!k[e])
			continue;
		m[E] = sum[e] / (double)k[e];
		inv_k += 1.0 / (double)k[e];
		E++;
	}
	for (size_t i = 0; i < n; i++) {   /* the within-execution variances */
		size_t e = exec[i];
		double me = sum[e] / (double)k[e];
		sq[e] += (d[i] - me) * (d[i] - me);
	}
	for (size_t e = 0; e < maxe; e++)
		if (k[e] > 1) {
			vw += sq[e] / (double)(k[e] - 1);
			nvw++;
		}
	r->E = E;
	r->cells = n;
	int err = 0;
	if (E < 2) {
		err = lace_error_set(EINVAL, "a placement verdict needs at least 2 executions, not %zu", E);
		goto out;
	}
	struct lace_ttest t;
	stats_ttest_one(m, E, 1 - alpha, &t);
	r->k_harmonic = (double)E / inv_k;
	r->mean_log = t.diff;
	r->sd_exec = gsl_stats_sd(m, 1, E);
	r->se = r->sd_exec / sqrt((double)E);
	r->effect = pct(t.diff);
	r->ci_low = pct(t.ci_low);
	r->ci_high = pct(t.ci_high);
	r->t = t.t;
	r->df = t.df;
	r->p = t.p;
	r->p_signflip = placement_signflip_p(m, E, seed, SIGNFLIP_TRIALS, &r->signflip_exact);
	r->normality_p = placement_shapiro_wilk(m, E, &r->normality_w);
	r->tost_p = stats_tost(m, E, log1p(-margin / 100), log1p(margin / 100));
	r->mde = placement_mde(r->sd_exec, E, alpha);
	r->var_within = nvw ? vw / (double)nvw : NAN;
	r->var_between = r->sd_exec * r->sd_exec - (nvw ? r->var_within / r->k_harmonic : 0);
	if (r->var_between < 0)
		r->var_between = 0;
out:
	free(sum);
	free(sq);
	free(k);
	free(m);
	return err;
}

enum placement_verdict placement_verdict(const struct placement_result *r, double p_holm,
					 double alpha, double margin)
{
	if (r->E < 2)
		return PV_NO_VERDICT;
	if (p_holm <= alpha && r->mean_log != 0)
		return r->mean_log > 0 ? PV_SLOWER : PV_FASTER;
	if (r->tost_p <= alpha)
		return PV_EQUIVALENT;
	if (!(r->mde <= margin))
		return PV_NO_VERDICT;
	return PV_INCONCLUSIVE;
}

const char *placement_verdict_name(enum placement_verdict v)
{
	switch (v) {
	case PV_SLOWER:
		return "slower";
	case PV_FASTER:
		return "faster";
	case PV_EQUIVALENT:
		return "equivalent";
	case PV_INCONCLUSIVE:
		return "inconclusive";
	case PV_NO_VERDICT:
		break;
	}
	return "no verdict possible";
}
