/* lace check of two kernel builds by the placement design (check_same.c):
 * with `[check] backend = qemu`, the measurement is `lace ab
 * --same-execution` (pipeline/placement.h: executions of both recorded,
 * replayed through virtual layouts of both, paired). */
#ifndef LACE_PIPELINE_CHECK_SAME_H
#define LACE_PIPELINE_CHECK_SAME_H

#include <jansson.h>

#include "pipeline/check.h"
#include "util/strbuf.h"

/* Measure base -> head on workload (a command the guest runs) and add to
 * rep's "same_execution" array; a gated primary event found slower goes to
 * reasons ("slower"), one the design cannot see ("no verdict possible")
 * to notes (to reasons with [check] no_verdict = fail), an inconclusive
 * one likewise by [check] inconclusive, a failed run to errors. */
void check_same_measure(const struct check_opts *o, const char *base, const char *head,
			const char *workload, json_t *rep, json_t *reasons, json_t *notes,
			json_t *errors);
/* The Markdown of rep's same-execution measurements. */
void check_same_md(const json_t *rep, struct strbuf *out);

#endif
