/* Output of a batch: `lace stat` and `lace ab` tables, CSV, JSON and
 * Markdown, one place per format.  Live output and `lace report` both go
 * through here. */
#ifndef LACE_MEASURE_RENDER_H
#define LACE_MEASURE_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "measure/results.h"
#include "measure/stats.h"

enum lace_format { LACE_FMT_TEXT, LACE_FMT_CSV, LACE_FMT_JSON, LACE_FMT_MD };

struct lace_render_opts {
	enum lace_format fmt;
	char sep;          /* CSV separator (-x) */
	bool verbose;      /* -v: min / median / max */
};

/* lace stat */
void stat_render(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o);
json_t *stat_json(const struct lace_batch *b);

/* lace ab: the analysis of one event over the paired rounds so far */
struct lace_ab_event {
	const char *name;
	bool simulated;
	size_t rounds;            /* paired rounds with both values */
	struct lace_summary a, b; /* per side, over those rounds (display scale) */
	struct lace_ratio r;      /* B/A from the paired log ratios */
	double p_adj;             /* Holm over the events */
	enum lace_verdict verdict;
	size_t rounds_needed;     /* inconclusive: total rounds likely to settle it */
	const char *why;          /* undecided: "<not supported>" ... */
};

/* Analyse the batch's non-warmup, fault-free rounds; returns nevents
 * entries (caller frees the array). */
struct lace_ab_event *ab_analyze(const struct lace_batch *b);
/* Every event decided (slower/faster/equivalent) or undecidable. */
bool ab_all_decided(const struct lace_ab_event *ev, size_t n);
void ab_render(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev,
	       const struct lace_render_opts *o);
json_t *ab_json(const struct lace_batch *b, const struct lace_ab_event *ev);

#endif
