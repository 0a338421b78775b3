/* lace compare: two sides of saved batches (measure/perf_import.h), each
 * from its own session (boot), compared per event without pairing.
 *
 * Each batch reduces to n, mean and sd per event (from its runs, or from
 * perf's mean and SEM with the given N).  A side pools its batches (the
 * spread within and between them); B/A is the ratio of the pooled means
 * with a Welch interval on the log scale (the delta method: the relative
 * SEMs add in quadrature, Welch-Satterthwaite degrees of freedom), and
 * the verdict is lace ab's (stats_verdict, Holm over the events).
 *
 * Drift: a one-way F test asks whether a side's segments -- the first
 * and second half of each batch's runs, a perf -r N summary whole --
 * differ more than their runs do (a neighbour's load, a warm cache, a
 * different boot's layout).  When they do, the side's uncertainty is the
 * spread of its segment means (n = segments), not of its runs, so drift
 * never passes for a difference between A and B.
 *
 * Sessions: with one batch on a side, nothing measures how much two
 * sessions differ by themselves, so a slower/faster verdict there stands
 * only when its interval clears the user's --session-noise bound; without
 * one it is inconclusive, and the note says what would decide it.
 *
 * Builds: kernels that differ by build-id, or batches that cannot say
 * (perf output records none), are two binaries (measure/build_scope.h):
 * the verdicts judge them, not a placement, and the notes say so.  A known
 * layout spread (--layout-noise) is then folded into each interval
 * (stats_ratio_fold(): se^2 + 2 sd^2, one layout draw a side) before Holm
 * and the verdict -- unlike --session-noise, which is a bound the interval
 * must clear, not a variance. */
#ifndef LACE_MEASURE_COMPARE_H
#define LACE_MEASURE_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "measure/build_scope.h"
#include "measure/perf_import.h"
#include "measure/stats/stats.h"
#include "util/strbuf.h"

struct compare_side {
	size_t nbatches;
	struct lace_import *batches;
};

struct compare_side_stats {
	size_t batches, n;       /* runs pooled */
	size_t segments;         /* batch halves (>= 4 runs) and summaries */
	double mean, sd, sem, df;
	bool from_summary;       /* some batch gave only mean and SEM */
	double drift_f, drift_p; /* NaN with one batch */
	bool drift;              /* drift_p < 1 - confidence: sem from batch means */
};

struct compare_event {
	const char *name, *unit;
	bool simulated;
	struct compare_side_stats a, b;
	struct lace_ratio r;
	double p_adj;
	enum lace_verdict verdict;
	bool exact;              /* no spread on either side: the exact ratio */
	bool session_capped;     /* slower/faster made inconclusive: one batch a side */
	const char *why;         /* why there is no verdict */
};

struct compare {
	struct compare_side a, b;
	double margin, confidence;
	double session_noise;    /* the user's bound on session drift; 0: none */
	struct layout_noise layout_noise; /* the known layout spread (--layout-noise) */
	struct build_scope scope; /* compare_analyze(): one build or two */
	size_t nevents;
	struct compare_event *events;
};

/* The events every batch has (in A1's order), analysed; -EINVAL with the
 * message set when an event is missing from some batch or none is common. */
int compare_analyze(struct compare *c);
void compare_release(struct compare *c);

/* Whether A and B are one build: the kernels' build-ids (lace stat
 * results record them; perf output does not: unknown) and, for lace
 * files, the commands (different ones: unknown). */
void compare_scope(const struct compare *c, struct build_scope *s);
/* The layout spread folded into the event's interval: the one known for
 * it, when A and B are (or may be) two builds; else 0. */
double compare_layout_fold(const struct compare *c, const char *event);

/* The notes on the sessions: the scope (two binaries, the layout spread:
 * build_scope_note()), one batch on a side (no measure of the sessions'
 * own difference), same boot on both sides, same kernel build on both
 * sides; "" when none.  Each is one line ending in \n. */
void compare_session_notes(const struct compare *c, struct strbuf *sb);

void compare_render_text(FILE *out, const struct compare *c);
json_t *compare_json(const struct compare *c);

#endif
