/* Output of a batch: `lace stat` and `lace ab` tables, CSV, JSON and
 * Markdown, one place per format.  Live output and `lace report` both go
 * through here. */
#ifndef LACE_MEASURE_RENDER_H
#define LACE_MEASURE_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "measure/build_scope.h"
#include "measure/results.h"
#include "measure/stats/stats.h"

enum lace_format { LACE_FMT_TEXT, LACE_FMT_CSV, LACE_FMT_JSON, LACE_FMT_MD };

struct lace_render_opts {
	enum lace_format fmt;
	const char *sep;   /* CSV separator (-x): any string, as perf takes it;
			    * "\\t" is a tab (perf's spelling); NULL: "," */
	bool verbose;      /* -v: min / median / max */
	json_t *const *backend_data;   /* per run, what the simulating backend
					* kept (its functions, path lengths):
					* "backend_data" in --json */
	size_t nbackend_data;
};

/* Where a batch's elapsed (wall) time comes from: the simulator's runs
 * under valgrind when every event is simulated (no native run happens),
 * else the native runs. */
bool render_elapsed_simulated(const struct lace_batch *b);

/* A mean with its unit's precision, for `lace ab` and `lace compare`:
 * seconds to the microsecond, values below 1 (0.4 context switches per
 * round) with their digits, others to two decimals. */
void render_mean_format(char *buf, size_t len, double v, const char *unit);

/* lace stat */
void stat_render(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o);
json_t *stat_json(const struct lace_batch *b);

/* lace ab: the analysis of one event over the paired rounds so far */
struct lace_ab_event {
	const char *name;         /* the event, or "elapsed" for wall time */
	const char *unit;         /* "msec", "s" (elapsed), "" for counts */
	bool simulated;
	size_t rounds;            /* paired rounds with both values */
	struct lace_summary a, b; /* per side, over those rounds (display scale) */
	struct lace_ratio r;      /* B/A from the paired log ratios */
	double p_adj;             /* Holm over the events */
	enum lace_verdict verdict;
	size_t rounds_needed;     /* inconclusive: total rounds likely to settle it */
	const char *why;          /* undecided: "<not supported>" ... */
	bool deterministic;       /* simulated, same value every round on both
				   * sides: the exact ratio, no CI, no verdict */
	bool cost;                /* elapsed of emulated runs (valgrind, QEMU):
				   * the host's time to emulate, shown as its
				   * mean per round; no CI, no verdict, no
				   * place in the Holm family */
};

/* Analyse the batch's non-warmup, fault-free rounds; returns nevents + 1
 * entries (caller frees the array): the events in order, then wall time
 * ("elapsed", seconds per run), analysed the same way and part of the
 * Holm family when the runs were native; when every event is emulated
 * it is a cost (see lace_ab_event.cost). */
struct lace_ab_event *ab_analyze(const struct lace_batch *b);
/* Whether the batch's A and B are one build, from its header ("builds",
 * written by ab_begin(); absent in older files: unknown). */
void ab_batch_scope(const struct lace_batch *b, struct build_scope *s);
/* The layout spread the batch was given (its header's "layout_noise",
 * from --layout-noise; release it), and whether ab_analyze() folds it in:
 * when A and B are two builds (one build is one layout). */
void ab_layout_noise(const struct lace_batch *b, struct layout_noise *ln);
bool ab_layout_folds(const struct lace_batch *b);
/* Rounds in which both A and B ran without a fault (warmup excluded): a
 * comparison needs at least 2. */
size_t ab_paired_rounds(const struct lace_batch *b);
/* Every event decided (slower/faster/equivalent) or undecidable. */
bool ab_all_decided(const struct lace_ab_event *ev, size_t n);
void ab_render(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev,
	       const struct lace_render_opts *o);
json_t *ab_json(const struct lace_batch *b, const struct lace_ab_event *ev);

#endif
