/* Reading what the kernel study's lace stat runs printed; see
 * kstudy_stat.h. */
#include "pipeline/kstudy/kstudy_stat.h"

#include <math.h>
#include <string.h>

#include "util/json.h"

double kstudy_stat_event(const json_t *stat, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(stat, "events"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", name) &&
		    !strcmp(json_string_value(json_object_get(e, "status")) ?: "", "counted"))
			return json_number_value(json_object_get(e, "mean"));
	return NAN;
}

/* the first run's path of fn: calls and inclusive instructions */
json_t *kstudy_stat_path(const json_t *stat, const char *fn)
{
	json_t *bd = json_array_get(json_object_get(stat, "backend_data"), 0), *p;
	size_t i;

	json_array_foreach(json_object_get(bd, "paths"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")) ?: "", fn))
			return p;
	return NULL;
}

/* least-squares slope of y over x across the points (NaN if < 2) */
double kstudy_slope(json_t *pts, const char *xk, const char *yk)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t i, n = 0;
	json_t *p;

	json_array_foreach(pts, i, p) {
		double x = lace_json_get_num(p, xk), y = lace_json_get_num(p, yk);
		if (isnan(x) || isnan(y))
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	if (n < 2 || n * sxx - sx * sx == 0)
		return NAN;
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}
