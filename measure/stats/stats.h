/* Statistics for lace stat and lace ab, on GSL (gsl_stats_*, gsl_cdf_tdist_*).
 *
 * Two spreads are kept apart everywhere: sd is the run-to-run standard
 * deviation (what one more run may do), sem is the standard error of the
 * mean (how well the mean is known; perf's "( +- x% )" is sem/mean).
 *
 * lace ab compares paired rounds on the log scale: d_i = ln(B_i / A_i).
 * Drift (a warming machine, a neighbour) moves A and B of one round alike
 * and cancels in d_i; the ratio B/A is exp(mean d) with a t interval. */
#ifndef LACE_MEASURE_STATS_H
#define LACE_MEASURE_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct lace_summary {
	size_t n;
	double mean, sd, sem; /* sd: sample (n-1) standard deviation; sem = sd / sqrt(n) */
	double min, median, max;
};

/* Summary of x[0..n); n == 0 gives NaNs, n == 1 gives sd = sem = 0. */
void stats_summary(const double *x, size_t n, struct lace_summary *s);

struct lace_ttest {
	double t, df, p;        /* two-sided p */
	double diff;            /* mean difference (x - y, or mean of x - y pairs) */
	double ci_low, ci_high; /* confidence interval of diff */
};

/* Welch's unequal-variance t test of mean(x) - mean(y); -EINVAL when a
 * sample has fewer than 2 values. */
int stats_ttest_welch(const double *x, size_t nx, const double *y, size_t ny, double confidence,
		      struct lace_ttest *r);
/* Paired t test of x_i - y_i. */
int stats_ttest_paired(const double *x, const double *y, size_t n, double confidence,
		       struct lace_ttest *r);
/* One-sample t test of mean(d) == 0 (the paired test on differences). */
int stats_ttest_one(const double *d, size_t n, double confidence, struct lace_ttest *r);

/* Two one-sided tests of low < mean(d) < high: returns the TOST p-value
 * (the larger of the two one-sided p); NaN when n < 2. */
double stats_tost(const double *d, size_t n, double low, double high);

/* Holm's step-down adjustment of p[0..n) into adj[0..n) (may alias). */
void stats_holm(const double *p, size_t n, double *adj);

/* The alternative of a test: two-sided unless a direction was declared
 * before measuring (choosing the tail after looking halves the p). */
enum lace_alternative {
	LACE_ALT_TWO_SIDED = 0,
	LACE_ALT_GREATER,   /* declared: x is larger than the references */
	LACE_ALT_LESS,      /* declared: x is smaller than the references */
};

struct lace_rank {
	size_t n;            /* references compared with (NaNs skipped) */
	size_t above, below; /* references strictly above / below x */
	double p_upper;      /* (1 + #{ref >= x}) / (n + 1) */
	double p_lower;      /* (1 + #{ref <= x}) / (n + 1) */
	double p;            /* for the alternative asked */
};

/* Rank (Monte Carlo) test of one value x against n reference values of the
 * null distribution (relinks of one layout): under the null x and the n
 * references are exchangeable, so x's rank among the n + 1 is uniform.
 * One-sided p: p_upper = (1 + #{ref >= x}) / (n + 1) (GREATER), p_lower =
 * (1 + #{ref <= x}) / (n + 1) (LESS); two-sided p = min(1, 2 min(p_upper,
 * p_lower)).  Ties are conservative: a reference equal to x counts
 * against x in both tails (no mid-ranks), so the p never undercuts the
 * exact one.  With n references no two-sided p below 2/(n+1) exists
 * (n >= 39 for 0.05), nor a one-sided one below 1/(n+1) (n >= 19).
 * NaN references are skipped; no reference left, or x NaN: p is NaN.
 * r may be NULL; returns the p. */
double stats_rank_p(double x, const double *ref, size_t n, enum lace_alternative alt, struct lace_rank *r);

/* One-sample Kolmogorov-Smirnov test of u[0..n) (values in [0, 1]) against
 * the uniform distribution, two-sided: *D the statistic, the p from the
 * asymptotic Kolmogorov distribution of sqrt(n) D (SciPy's kstest(...,
 * method='asymp')).  Whether ranks of real layouts among virtual draws
 * look uniform.  NaN with n == 0. */
double stats_ks_uniform(const double *u, size_t n, double *D);

/* Confidence interval of the ratio of paired values b_i / a_i from the
 * log-ratios: ratio = exp(mean), [ci_low, ci_high] = exp(mean -+ t * sem),
 * p of ratio == 1.  Values <= 0 give -EDOM. */
struct lace_ratio {
	size_t n;
	double ratio, ci_low, ci_high, p;
	double log_mean, log_sd; /* of d_i = ln(b_i/a_i) */
	double tost_p;           /* TOST of the ratio within [1-margin, 1+margin] */
	double log_se, df;       /* the standard error of ln(ratio) and its df */
	/* stats_ratio_fold(): the known spread folded in (0: none), and what
	 * the runs alone gave before it */
	double fold_sd;
	double runs_ci_low, runs_ci_high, runs_p;
};
int stats_ratio_ci(const double *a, const double *b, size_t n, double confidence, double margin,
		   struct lace_ratio *r);

/* One side of an unpaired comparison: its mean, the standard error of
 * that mean and the error's degrees of freedom (n - 1 for n runs). */
struct lace_side_mean {
	size_t n;
	double mean, sem, df;
};

/* The ratio b/a of two independent means (lace compare: two sessions, no
 * pairing): Welch on the log scale by the delta method, SE of ln(b/a) =
 * sqrt((sem_a/mean_a)^2 + (sem_b/mean_b)^2), Welch-Satterthwaite df; p of
 * ratio == 1 and the TOST p of the ratio within [1-margin, 1+margin].
 * No spread on either side gives the exact ratio (zero-width CI).  r->n
 * is the smaller n.  -EDOM when a mean is <= 0, -EINVAL when a df < 1. */
int stats_ratio_unpaired(const struct lace_side_mean *a, const struct lace_side_mean *b,
			 double confidence, double margin, struct lace_ratio *r);

/* The exact ratio b_mean/a_mean of n rounds or runs that never varied (a
 * simulated count): zero-width CI, p 0 (1 when equal); a spread folded
 * in afterwards (stats_ratio_fold()) gives it an interval. */
void stats_ratio_exact(double a_mean, double b_mean, size_t n, double margin, struct lace_ratio *r);

/* Fold a known spread into a ratio from stats_ratio_ci() or
 * stats_ratio_unpaired(): layout_sd is the sd of ln(count) across layouts
 * of one build (lace ab/compare --layout-noise PCT, as a fraction).  A and
 * B are one layout draw each, so ln(B/A) carries two independent draws:
 *   se'^2 = se^2 + 2 layout_sd^2,
 * with Welch-Satterthwaite df' = se'^4 / (se^4 / df) (the spread is taken
 * as known: infinite df; no runs' spread at all gives a normal interval).
 * The CI, p and TOST p are recomputed from se' and df'; the runs' own CI
 * and p are kept in runs_ci_low, runs_ci_high, runs_p.  A ratio with no
 * spread (an exact simulated count) gets an interval this way.  Nothing
 * happens when layout_sd <= 0 or the ratio is NaN. */
void stats_ratio_fold(struct lace_ratio *r, double layout_sd, double confidence, double margin);

enum lace_verdict {
	LACE_VERDICT_INCONCLUSIVE = 0,
	LACE_VERDICT_SLOWER,     /* B is more than margin above A, significantly */
	LACE_VERDICT_FASTER,     /* B is more than margin below A, significantly */
	LACE_VERDICT_EQUIVALENT, /* the CI lies inside [1-margin, 1+margin] */
	LACE_VERDICT_UNDECIDED,  /* too few rounds or no values */
};

/* The verdict for one event.  p_adj is the Holm-adjusted p of r->p.
 * slower/faster: p_adj <= 1 - confidence and the whole CI lies beyond the
 * margin; equivalent: the whole CI lies inside it; else inconclusive.
 * "slower" means the count grew (more misses, more time). */
enum lace_verdict stats_verdict(const struct lace_ratio *r, double p_adj, double confidence,
				double margin);
const char *stats_verdict_name(enum lace_verdict v);

/* The ratio as hyperfine and pyperf say it: "B is 1.24 +- 0.01 times
 * slower than A" (B/A >= 1) or "1.02 +- 0.01 times faster" (A/B when B/A
 * < 1).  *factor is that factor (>= 1), *pm half the width of its CI
 * (the CI of A/B is [1/ci_high, 1/ci_low]).  Returns +1 (B larger:
 * slower, the count grew), -1 (B smaller: faster), 0 (B/A exactly 1);
 * NaN ratio: returns 0 with *factor and *pm NaN. */
int stats_factor(const struct lace_ratio *r, double *factor, double *pm);

/* For an inconclusive event: the total rounds a paired comparison with the
 * same spread would need to decide it (reach the margin on one side);
 * 0 when it is not inconclusive, SIZE_MAX when the estimate sits on the
 * margin and no number of rounds is likely to settle it -- or when a
 * folded layout spread alone keeps the interval wider than that distance
 * (rounds shrink the runs' part of the error, never the layouts'). */
size_t stats_rounds_needed(const struct lace_ratio *r, double confidence, double margin);

#endif
