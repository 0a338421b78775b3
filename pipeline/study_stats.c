/* lace study: line fit and rank test (see study_stats.h). */
#include "pipeline/study_stats.h"

#include <math.h>

int study_fit_line(const double *x, const double *y, size_t n, struct study_fit *f)
{
	double sx = 0, sy = 0;
	size_t m = 0;

	f->n = 0;
	f->slope = f->slope_se = f->intercept = f->intercept_se = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]) || isnan(y[i]))
			continue;
		sx += x[i];
		sy += y[i];
		m++;
	}
	f->n = m;
	if (m < 3)
		return -1;
	double mx = sx / (double)m, my = sy / (double)m, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]) || isnan(y[i]))
			continue;
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (sxx == 0)
		return -1;
	f->slope = sxy / sxx;
	f->intercept = my - f->slope * mx;
	double ssr = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]) || isnan(y[i]))
			continue;
		double r = y[i] - f->intercept - f->slope * x[i];
		ssr += r * r;
	}
	double s2 = ssr / (double)(m - 2);
	f->slope_se = sqrt(s2 / sxx);
	f->intercept_se = sqrt(s2 * (1.0 / (double)m + mx * mx / sxx));
	return 0;
}

size_t study_rank_min_builds(double alpha)
{
	/* 1/(K+1) <= alpha; the small epsilon keeps 1/20 == 0.05 exact */
	return (size_t)ceil(1.0 / alpha - 1 - 1e-9);
}

void study_rank_test(double v, const double *ref, size_t k, double alpha, struct study_rank *r)
{
	size_t ge = 0, le = 0;

	r->k = r->below = r->above = 0;
	for (size_t i = 0; i < k; i++) {
		if (isnan(ref[i]))
			continue;
		r->k++;
		r->below += ref[i] < v;
		r->above += ref[i] > v;
		ge += ref[i] >= v;
		le += ref[i] <= v;
	}
	r->p_higher = (1.0 + (double)ge) / ((double)r->k + 1);
	r->p_lower = (1.0 + (double)le) / ((double)r->k + 1);
	if (!r->k || isnan(v)) {
		r->verdict = STUDY_RANK_NONE;
		return;
	}
	int outside = r->below == r->k ? 1 : r->above == r->k ? -1 : 0;
	if (!outside)
		r->verdict = STUDY_RANK_WITHIN;
	else if ((outside > 0 ? r->p_higher : r->p_lower) > alpha + 1e-12)
		r->verdict = STUDY_RANK_TOO_FEW;
	else
		r->verdict = outside > 0 ? STUDY_RANK_HIGHER : STUDY_RANK_LOWER;
}

const char *study_rank_verdict_name(enum study_rank_verdict v)
{
	switch (v) {
	case STUDY_RANK_WITHIN: return "within the layout spread";
	case STUDY_RANK_HIGHER: return "higher than every randomized build";
	case STUDY_RANK_LOWER: return "lower than every randomized build";
	case STUDY_RANK_TOO_FEW: return "outside every randomized build, too few builds to decide";
	default: return "not compared";
	}
}
