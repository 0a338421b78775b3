/* Statistics on GSL; see stats.h for the definitions used. */
#include "measure/stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "util/error.h"
#include "util/xalloc.h"

void stats_summary(const double *x, size_t n, struct lace_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n) {
		s->mean = s->sd = s->sem = s->min = s->median = s->max = NAN;
		return;
	}
	s->mean = gsl_stats_mean(x, 1, n);
	s->sd = n > 1 ? gsl_stats_sd_m(x, 1, n, s->mean) : 0.0;
	s->sem = s->sd / sqrt((double)n);
	gsl_stats_minmax(&s->min, &s->max, x, 1, n);
	double *sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	s->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	free(sorted);
}

/* Student's t tails; an infinite df (a folded spread taken as known,
 * with no runs' spread beside it) is the normal distribution */
static double t_upper(double t, double df)
{
	return isinf(df) ? gsl_cdf_ugaussian_Q(t) : gsl_cdf_tdist_Q(t, df);
}

/* two-sided p of t with df degrees of freedom */
static double two_sided_p(double t, double df)
{
	if (isnan(t))
		return NAN;
	if (isinf(t))
		return 0.0;
	double p = 2.0 * t_upper(fabs(t), df);
	return p > 1.0 ? 1.0 : p;
}

static double t_crit(double confidence, double df)
{
	double q = 1.0 - (1.0 - confidence) / 2.0;

	return isinf(df) ? gsl_cdf_ugaussian_Pinv(q) : gsl_cdf_tdist_Pinv(q, df);
}

/* t, p and CI from a difference, its standard error and df; a zero SE
 * (identical values) gives t = +-inf (p = 0) or 0/0 -> t = 0 (p = 1). */
static void fill_t(struct lace_ttest *r, double diff, double se, double df, double confidence)
{
	r->diff = diff;
	r->df = df;
	if (se > 0) {
		r->t = diff / se;
		r->p = two_sided_p(r->t, df);
	} else {
		r->t = diff == 0 ? 0.0 : copysign(INFINITY, diff);
		r->p = diff == 0 ? 1.0 : 0.0;
	}
	double h = t_crit(confidence, df) * se;
	r->ci_low = diff - h;
	r->ci_high = diff + h;
}

int stats_ttest_welch(const double *x, size_t nx, const double *y, size_t ny, double confidence,
		      struct lace_ttest *r)
{
	memset(r, 0, sizeof(*r));
	if (nx < 2 || ny < 2)
		return lace_error_set(EINVAL, "Welch's t test needs at least 2 values per sample");
	double mx = gsl_stats_mean(x, 1, nx), my = gsl_stats_mean(y, 1, ny);
	double vx = gsl_stats_variance_m(x, 1, nx, mx) / (double)nx;
	double vy = gsl_stats_variance_m(y, 1, ny, my) / (double)ny;
	double se = sqrt(vx + vy);
	/* Welch-Satterthwaite degrees of freedom */
	double df = (vx + vy) * (vx + vy) /
		    (vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1));
	if (!(se > 0))
		df = (double)(nx + ny - 2);
	fill_t(r, mx - my, se, df, confidence);
	return 0;
}

int stats_ttest_one(const double *d, size_t n, double confidence, struct lace_ttest *r)
{
	memset(r, 0, sizeof(*r));
	if (n < 2)
		return lace_error_set(EINVAL, "a t test needs at least 2 values");
	double m = gsl_stats_mean(d, 1, n);
	double se = gsl_stats_sd_m(d, 1, n, m) / sqrt((double)n);
	fill_t(r, m, se, (double)(n - 1), confidence);
	return 0;
}

int stats_ttest_paired(const double *x, const double *y, size_t n, double confidence,
		       struct lace_ttest *r)
{
	double *d = xmalloc(n * sizeof(*d));

	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - y[i];
	int err = stats_ttest_one(d, n, confidence, r);
	free(d);
	return err;
}

double stats_tost(const double *d, size_t n, double low, double high)
{
	if (n < 2)
		return NAN;
	double m = gsl_stats_mean(d, 1, n);
	double se = gsl_stats_sd_m(d, 1, n, m) / sqrt((double)n);
	double df = (double)(n - 1);
	if (!(se > 0))
		return (m > low && m < high) ? 0.0 : 1.0;
	/* H0a: mean <= low (reject when t large); H0b: mean >= high */
	double p_low = gsl_cdf_tdist_Q((m - low) / se, df);
	double p_high = gsl_cdf_tdist_P((m - high) / se, df);
	return p_low > p_high ? p_low : p_high;
}

struct idx_p {
	double p;
	size_t i;
};

static int cmp_idx_p(const void *a, const void *b)
{
	const struct idx_p *x = a, *y = b;

	/* NaN last */
	if (isnan(x->p) || isnan(y->p))
		return isnan(x->p) - isnan(y->p);
	return (x->p > y->p) - (x->p < y->p);
}

void stats_holm(const double *p, size_t n, double *adj)
{
	struct idx_p *v = xmalloc(n * sizeof(*v));
	size_t valid = 0;

	for (size_t i = 0; i < n; i++) {
		v[i] = (struct idx_p){ p[i], i };
		valid += !isnan(p[i]);
	}
	qsort(v, n, sizeof(*v), cmp_idx_p);
	double running = 0.0;
	for (size_t k = 0; k < n; k++) {
		if (isnan(v[k].p)) {
			adj[v[k].i] = NAN;
			continue;
		}
		double a = (double)(valid - k) * v[k].p;
		if (a > 1.0)
			a = 1.0;
		if (a < running) /* keep the adjusted values monotone */
			a = running;
		running = a;
		adj[v[k].i] = a;
	}
	free(v);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* P(K > l) of the Kolmogorov distribution: the alternating series for
 * l >= 1, the theta-function form (fast for small l) below */
static double kolmogorov_sf(double l)
{
	double s = 0;

	if (l <= 0)
		return 1;
	if (l >= 1) {
		for (int k = 1; k <= 100; k++)
			s += (k % 2 ? 2 : -2) * exp(-2.0 * k * k * l * l);
		return s < 0 ? 0 : s > 1 ? 1 : s;
	}
	for (int k = 1; k <= 100; k++)
		s += exp(-(2.0 * k - 1) * (2.0 * k - 1) * M_PI * M_PI / (8 * l * l));
	s = 1 - sqrt(2 * M_PI) / l * s;
	return s < 0 ? 0 : s > 1 ? 1 : s;
}

double stats_ks_uniform(const double *u, size_t n, double *D)
{
	double *x, d = 0;

	*D = NAN;
	if (!n)
		return NAN;
	x = xcalloc(n, sizeof(*x));
	memcpy(x, u, n * sizeof(*x));
	qsort(x, n, sizeof(*x), dbl_cmp);
	for (size_t i = 0; i < n; i++) {
		double hi = (double)(i + 1) / (double)n - x[i], lo = x[i] - (double)i / (double)n;
		d = fmax(d, fmax(hi, lo));
	}
	free(x);
	*D = d;
	return kolmogorov_sf(sqrt((double)n) * d);
}

double stats_rank_p(double x, const double *ref, size_t n, enum lace_alternative alt, struct lace_rank *r)
{
	struct lace_rank k = { 0 };
	size_t ge = 0, le = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(ref[i]))
			continue;
		k.n++;
		k.above += ref[i] > x;
		k.below += ref[i] < x;
		ge += ref[i] >= x;
		le += ref[i] <= x;
	}
	if (!k.n || isnan(x)) {
		k.p_upper = k.p_lower = k.p = NAN;
	} else {
		k.p_upper = (1.0 + (double)ge) / ((double)k.n + 1);
		k.p_lower = (1.0 + (double)le) / ((double)k.n + 1);
		if (alt == LACE_ALT_GREATER)
			k.p = k.p_upper;
		else if (alt == LACE_ALT_LESS)
			k.p = k.p_lower;
		else
			k.p = fmin(1.0, 2.0 * fmin(k.p_upper, k.p_lower));
	}
	if (r)
		*r = k;
	return k.p;
}

int stats_ratio_ci(const double *a, const double *b, size_t n, double confidence, double margin,
		   struct lace_ratio *r)
{
	struct lace_ttest t;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->ratio = r->ci_low = r->ci_high = r->p = r->tost_p = NAN;
	r->log_mean = r->log_sd = NAN;
	if (n < 2)
		return lace_error_set(EINVAL, "a ratio needs at least 2 rounds");
	double *d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0)) {
			free(d);
			return lace_error_set(EDOM, "a ratio needs positive values (round %zu: %g, %g)",
					      i + 1, a[i], b[i]);
		}
		d[i] = log(b[i] / a[i]);
	}
	stats_ttest_one(d, n, confidence, &t);
	r->log_mean = t.diff;
	r->log_sd = gsl_stats_sd_m(d, 1, n, t.diff);
	r->log_se = r->log_sd / sqrt((double)n);
	r->df = (double)(n - 1);
	r->ratio = exp(t.diff);
	r->ci_low = exp(t.ci_low);
	r->ci_high = exp(t.ci_high);
	r->p = t.p;
	r->tost_p = stats_tost(d, n, log1p(-margin), log1p(margin));
	free(d);
	return 0;
}

enum lace_verdict stats_verdict(const struct lace_ratio *r, double p_adj, double confidence,
				double margin)
{
	double alpha = 1.0 - confidence;

	if (r->n < 2 || isnan(r->ratio))
		return LACE_VERDICT_UNDECIDED;
	if (r->ci_low >= 1.0 - margin && r->ci_high <= 1.0 + margin)
		return LACE_VERDICT_EQUIVALENT;
	if (p_adj <= alpha && r->ci_low > 1.0 + margin)
		return LACE_VERDICT_SLOWER;
	if (p_adj <= alpha && r->ci_high < 1.0 - margin)
		return LACE_VERDICT_FASTER;
	return LACE_VERDICT_INCONCLUSIVE;
}

const char *stats_verdict_name(enum lace_verdict v)
{
	switch (v) {
	case LACE_VERDICT_SLOWER: return "slower";
	case LACE_VERDICT_FASTER: return "faster";
	case LACE_VERDICT_EQUIVALENT: return "equivalent";
	case LACE_VERDICT_INCONCLUSIVE: return "inconclusive";
	default: return "undecided";
	}
}

int stats_factor(const struct lace_ratio *r, double *factor, double *pm)
{
	if (!(r->ratio > 0) || !isfinite(r->ratio)) {
		*factor = *pm = NAN;
		return 0;
	}
	if (r->ratio >= 1) {
		*factor = r->ratio;
		*pm = (r->ci_high - r->ci_low) / 2;
		return r->ratio > 1;
	}
	*factor = 1 / r->ratio;
	*pm = (1 / r->ci_low - 1 / r->ci_high) / 2;
	return -1;
}

size_t stats_rounds_needed(const struct lace_ratio *r, double confidence, double margin)
{
	if (r->n < 2 || isnan(r->log_mean))
		return 0;
	double m = r->log_mean, s = r->log_sd;
	double up = log1p(margin), lo = log1p(-margin);
	/* a folded layout spread is a floor under the error: more rounds
	 * leave it, so the runs' part must fit in what it leaves of the gap */
	double floor_var = 2 * r->fold_sd * r->fold_sd;
	/* the distance from the estimate to the nearest margin: the CI half
	 * width must shrink below it, on whichever side the estimate lies */
	double gap = m > up ? m - up : m < lo ? lo - m : (m >= 0 ? up - m : m - lo);
	if (!(s > 0))
		return floor_var > 0 ? SIZE_MAX : r->n; /* rounds shrink nothing */
	if (gap < 1e-6 * (fabs(m) + 1e-12) || gap / s < 1e-3)
		return SIZE_MAX;
	double z = t_crit(confidence, INFINITY);
	if (z * z * floor_var >= gap * gap)
		return SIZE_MAX;
	double n = (double)r->n;
	for (int it = 0; it < 8; it++) {
		double t = t_crit(confidence, n > 2 ? n - 1 : 1);
		double room = gap * gap - t * t * floor_var;
		if (!(room > 0))
			return SIZE_MAX;
		n = ceil(t * t * s * s / room);
		if (n < 2)
			n = 2;
		if (n > 1e7)
			return SIZE_MAX;
	}
	return (size_t)n;
}

/* r's CI, p and TOST p from its log_mean, the standard error se of it
 * and df; se == 0 (no spread at all) gives the exact ratio */
static void ratio_interval(struct lace_ratio *r, double se, double df, double confidence,
			   double margin)
{
	double lm = r->log_mean;

	r->log_se = se;
	r->df = df;
	if (!(se > 0)) {
		/* no spread on either side: the ratio is exact */
		r->ci_low = r->ci_high = r->ratio;
		r->p = lm == 0 ? 1.0 : 0.0;
		r->tost_p = r->ratio >= 1 - margin && r->ratio <= 1 + margin ? 0.0 : 1.0;
		return;
	}
	double tc = t_crit(confidence, df);
	r->ci_low = exp(lm - tc * se);
	r->ci_high = exp(lm + tc * se);
	r->p = two_sided_p(lm / se, df);
	/* TOST: both one-sided tests against the margin's logs */
	double p_low = t_upper((lm - log1p(-margin)) / se, df);
	double p_high = t_upper((log1p(margin) - lm) / se, df);
	r->tost_p = p_low > p_high ? p_low : p_high;
}

int stats_ratio_unpaired(const struct lace_side_mean *a, const struct lace_side_mean *b,
			 double confidence, double margin, struct lace_ratio *r)
{
	memset(r, 0, sizeof(*r));
	r->ratio = r->ci_low = r->ci_high = r->p = r->tost_p = NAN;
	r->log_mean = r->log_sd = NAN;
	if (!(a->mean > 0) || !(b->mean > 0))
		return -EDOM;
	if (a->df < 1 || b->df < 1)
		return -EINVAL;
	/* delta method: the SE of ln(mean) is sem / mean */
	double ra = a->sem / a->mean, rb = b->sem / b->mean;
	double va = ra * ra, vb = rb * rb, se = sqrt(va + vb);
	double df = va + vb > 0 ? (va + vb) * (va + vb) / (va * va / a->df + vb * vb / b->df) : a->df + b->df;
	double lm = log(b->mean / a->mean);

	r->n = a->n < b->n ? a->n : b->n;
	r->log_mean = lm;
	r->log_sd = se;
	r->ratio = exp(lm);
	ratio_interval(r, se, df, confidence, margin);
	return 0;
}

void stats_ratio_exact(double a_mean, double b_mean, size_t n, double margin, struct lace_ratio *r)
{
	memset(r, 0, sizeof(*r));
	r->n = n;
	r->ratio = b_mean / a_mean;
	r->log_mean = log(r->ratio);
	r->log_sd = 0;
	ratio_interval(r, 0, n > 1 ? (double)(n - 1) : 1, 0.95, margin);
}

void stats_ratio_fold(struct lace_ratio *r, double layout_sd, double confidence, double margin)
{
	if (!(layout_sd > 0) || isnan(r->log_mean))
		return;
	double v0 = r->log_se * r->log_se, v = v0 + 2 * layout_sd * layout_sd;
	/* Welch-Satterthwaite: the known part has infinite df */
	double df = v0 > 0 && r->df > 0 ? v * v / (v0 * v0 / r->df) : INFINITY;

	r->runs_ci_low = r->ci_low;
	r->runs_ci_high = r->ci_high;
	r->runs_p = r->p;
	r->fold_sd = layout_sd;
	ratio_interval(r, sqrt(v), df, confidence, margin);
}
