/* lace check of two kernel builds on one execution (check_same.c): with
 * `[check] backend = qemu`, the measurement is `lace ab --same-execution`
 * (pipeline/ab_same.h), base's boot replayed through head's layout, judged
 * against the relink family of `[ab] noise_layouts` when one is given. */
#ifndef LACE_PIPELINE_CHECK_SAME_H
#define LACE_PIPELINE_CHECK_SAME_H

#include <jansson.h>

#include "pipeline/check.h"
#include "util/strbuf.h"

/* Measure base -> head on workload (a command the guest runs) and add to
 * rep's "same_execution" array; a miss event whose difference is beyond
 * placement noise (Holm p < 0.05) and more than its margin worse goes to
 * reasons ("slower"), what cannot be judged to notes, a failed run to
 * errors. */
void check_same_measure(const struct check_opts *o, const char *base, const char *head,
			const char *workload, json_t *rep, json_t *reasons, json_t *notes,
			json_t *errors);
/* The Markdown of rep's same-execution measurements. */
void check_same_md(const json_t *rep, struct strbuf *out);

#endif
