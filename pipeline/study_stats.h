/* lace study: the two statistics its readings rest on, pure functions.
 *
 * - A straight-line fit of a difference against a size, so a marginal cost
 *   (instructions per hash fault) is a slope with its standard error and
 *   the fixed start-up cost is the intercept, not folded into the ratio.
 * - A rank test of one deterministic value against the values of K
 *   randomized-layout builds (Mytkowicz et al., ASPLOS 2009; Stabilizer,
 *   ASPLOS 2013): with exact counts repeats carry no information, the only
 *   uncertainty is the layout's, so "outside all K builds" is the evidence
 *   and its one-sided p is 1/(K+1). */
#ifndef LACE_PIPELINE_STUDY_STATS_H
#define LACE_PIPELINE_STUDY_STATS_H

#include <stddef.h>

struct study_fit {
	size_t n;              /* points used (NaNs skipped) */
	double slope, slope_se;
	double intercept, intercept_se;
};

/* Least squares y = intercept + slope * x.  Returns 0, or -1 with fewer
 * than 3 usable points or all x equal (no error could be given). */
int study_fit_line(const double *x, const double *y, size_t n, struct study_fit *f);

enum study_rank_verdict {
	STUDY_RANK_NONE,         /* no builds to compare with */
	STUDY_RANK_WITHIN,       /* inside the builds' range: layout alone does this */
	STUDY_RANK_HIGHER,       /* above every build, p <= alpha */
	STUDY_RANK_LOWER,        /* below every build, p <= alpha */
	STUDY_RANK_TOO_FEW,      /* outside every build, but K too small for alpha */
};

struct study_rank {
	size_t k;              /* builds compared with (NaNs skipped) */
	size_t below, above;   /* builds strictly below / above the value */
	double p_higher;       /* (1 + #builds >= v) / (k + 1) */
	double p_lower;        /* (1 + #builds <= v) / (k + 1) */
	enum study_rank_verdict verdict;
};

/* Compare v with the K values ref (one-sided in the direction v lies). */
void study_rank_test(double v, const double *ref, size_t k, double alpha, struct study_rank *r);
/* Smallest K for which "outside all K" reaches alpha (19 for 0.05). */
size_t study_rank_min_builds(double alpha);
const char *study_rank_verdict_name(enum study_rank_verdict v);

#endif
