/* Reading a `lace stat --json` report of the kernel study (kstudy.c's
 * jobs' output): an event's mean, a --path-length function's record, and
 * the slope the readings fit across their points. */
#ifndef LACE_PIPELINE_KSTUDY_STAT_H
#define LACE_PIPELINE_KSTUDY_STAT_H

#include <jansson.h>

/* The mean of event name when it was counted, else NaN. */
double kstudy_stat_event(const json_t *stat, const char *name);
/* The first run's path record of fn (calls, per_call, ...), or NULL. */
json_t *kstudy_stat_path(const json_t *stat, const char *fn);
/* The least-squares slope of y over x across the points (NaN if < 2). */
double kstudy_slope(json_t *pts, const char *xk, const char *yk);

#endif
