/* lace study: the line fit (see study_stats.h). */
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
