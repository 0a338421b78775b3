/* One saved batch for `lace compare`, read from any of the files a
 * kernel developer has after a boot: a lace results file (lace stat -o),
 * `perf stat -x SEP` output, or `perf stat -j` output.  The format is
 * told from the content.
 *
 * A lace file and perf output of -r 1 runs appended to one file
 * (perf stat -x, -o F --append) give per-run values.  perf stat -r N
 * gives only each event's mean and "variance", which perf computes as
 * the standard error of the mean over the mean (util/stat.c
 * rel_stddev_stats), and not N: such an event is a summary, and N must
 * come from the caller (lace compare --runs N or FILE@N). */
#ifndef LACE_MEASURE_PERF_IMPORT_H
#define LACE_MEASURE_PERF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/kernel_id.h"

struct lace_import_event {
	char *name, *unit;
	bool simulated;         /* a lace simulator event */
	size_t not_supported;   /* runs that were <not supported> / <not counted> */
	double *values;         /* per-run values (display scale) ... */
	size_t n, alloc;
	bool summary;           /* ... or perf -r N: mean and sem/mean */
	double mean, rel_sem;
};

struct lace_import {
	char *path;
	const char *format;     /* "lace stat", "perf stat -x", "perf stat -j" */
	char *command;          /* lace: the command line; perf: NULL */
	bool has_kernel;        /* lace files record it; perf output does not */
	struct lace_kernel_id kernel;
	size_t runs;            /* summaries: N as given (0: unknown) */
	size_t nevents;
	struct lace_import_event *events;
};

/* Read path; sep is perf's -x separator (NULL: ","); runs is N for
 * perf -r N summaries (0: unknown, then such a file is an error).
 * 0 or -errno with a one-line message (util/error.h). */
int import_load(struct lace_import *im, const char *path, const char *sep, size_t runs);
/* The same from a buffer (unit tests); path names it in messages. */
int import_parse(struct lace_import *im, const char *path, const char *buf, size_t len,
		 const char *sep, size_t runs);
void import_release(struct lace_import *im);
/* The event by name, or NULL. */
const struct lace_import_event *import_find(const struct lace_import *im, const char *name);

#endif
