/* The qemu backend's plugin output and its report: reading the plugin's
 * file (window, function and path lines) into counters and JSON, and
 * printing the kernel functions and path lengths after lace stat's
 * counts.  Split from backend_qemu.c, which boots the guest. */
#ifndef LACE_MEASURE_BACKEND_QEMU_REPORT_H
#define LACE_MEASURE_BACKEND_QEMU_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "measure/qemu/tcg_core.h"

/* The plugin's file: the last window's split into *w (*nwin windows
 * seen), the "fn" lines as JSON objects into *fns, the "path" lines
 * ({name, calls, inclusive, per_call}) into *paths.  0, or -errno when
 * the file is missing or has no end line (QEMU did not exit normally). */
int qemu_report_read(const char *path, struct tcg_split *w, unsigned *nwin, json_t **fns,
		     json_t **paths);
/* The window of the other profiles, "profile K window ..." (K = 1 ..
 * nmore), into more[K - 1]: 0, or -EIO when one of them is missing. */
int qemu_report_read_more(const char *path, struct tcg_split *more, size_t nmore);
/* The top functions of fns by instructions, a new array. */
json_t *qemu_report_top(json_t *fns, size_t top);
/* One side's counters as JSON, in perf's event names. */
json_t *qemu_report_split_json(const struct sim_totals *t);
/* After lace stat's counts: the path lengths, and with per_function the
 * hottest kernel functions, of the last run (and whether runs agreed). */
void qemu_report_print(FILE *out, json_t *const *extra, size_t nruns, bool per_function);

#endif
