/* lace study: the statistic reading 1 rests on, a pure function: a
 * straight-line fit of a difference against a size, so a marginal cost
 * (instructions per hash fault) is a slope with its standard error and the
 * fixed start-up cost is the intercept, not folded into the ratio.
 * (Reading 4's verdicts are the placement design's, measure/stats/
 * placement.h.) */
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

#endif
