/* The placement design (issue 34; design.md, "Same execution"): one
 * implementation for lace ab --same-execution, lace check and the kernel
 * study's reading 4.
 *
 * The question is B's placement against A's, on the same code.  Two boots
 * of two builds are two executions (a binary that moves moves when the
 * timer interrupts land), and one build is one draw of its incidental
 * layout; so
 *  - E executions are recorded (lace stat --record), from A's boots and,
 *    where B boots, from B's, alternately, each with its own timing
 *    perturbation (--qemu-perturb: the same code, another execution);
 *  - each recording is replayed through K virtual layout pairs (lace
 *    replay --virtual K): draw k of A and draw k of B are laid out by the
 *    same draw, so what they share moves alike, and each execution gets
 *    fresh draws (its own seed);
 *  - the cells d = ln(Y_B / Y_A) go to measure/stats/placement.h: the test
 *    is on the E per-execution means, the primary events (declared
 *    before measuring) Holm-adjusted together, the rest estimates;
 *  - E and K come from a pilot (a few executions x a few draws) that
 *    estimates the spread between executions and between draws, for a
 *    stated smallest effect within a budget, or are given.
 * A vs A (the same build both ways, each cell two independent draws: draw
 * 2k-1 against 2k of one recording, through the build that recorded it)
 * runs at the same E and K: its verdicts must not say slower or faster.
 *
 * This file builds the commands and reads their JSON; the caller runs
 * them (placement_run() with a pool of lace's own children, or the kernel
 * study's job plan). */
#ifndef LACE_PIPELINE_PLACEMENT_H
#define LACE_PIPELINE_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/strvec.h"

/* the primary events when none are declared: the kernel's misses */
#define PLACEMENT_PRIMARIES "L1-icache-load-misses:k,iTLB-load-misses:k"

struct placement_spec {
	const char *boot[2];        /* A's and B's boot images (bzImage or vmlinux) */
	const char *elf[2];         /* their ELFs with symbols (a vmlinux) */
	bool b_boots;               /* B's boots record executions too (half of them) */
	struct strvec events;       /* every event reported (lace stat's names, EVENT:k/:u) */
	struct strvec primaries;    /* those with a verdict (a subset of events) */
	const char *family;         /* "function" (default) or "relink" */
	const char *pad_points;     /* the relink family's */
	uint64_t seed;
	double alpha;               /* 0.05 */
	double margin;              /* percent: equivalence within +-margin */
	double target;              /* percent: the smallest effect to detect */
	size_t E, K;                /* 0: chosen by the pilot */
	size_t pilot_E, pilot_K;
	size_t k_max;               /* the most draws per execution the choice takes */
	double budget;              /* seconds of boots and replays; 0: none */
	bool aa;                    /* run A vs A at the same E and K */
	size_t aa_trials;           /* A vs A trials, each E x K fresh draws of the
				     * recorded executions: how often the test
				     * says slower or faster when nothing moved */
	bool same_build;            /* A and B are one file: the comparison itself is
				     * A vs A (paired draws of one build would be
				     * equal by construction: a test that cannot fail) */
	struct strvec stat_opts;    /* lace stat's options for each boot */
	char *const *argv;          /* the workload */
	int jobs;                   /* commands at once */
};

void placement_spec_init(struct placement_spec *s);
void placement_spec_release(struct placement_spec *s);

/* execution e: which side records it and its perturbation */
int placement_exec_side(const struct placement_spec *s, size_t e);
unsigned placement_exec_perturb(const struct placement_spec *s, size_t e);

/* lace's arguments (without the program) for the boot that records
 * execution e into rec, and for its replay through K draw pairs (aa:
 * 2K draws of the recorded build, for A vs A). */
void placement_boot_argv(const struct placement_spec *s, size_t e, const char *rec,
			 struct strvec *argv);
void placement_replay_argv(const struct placement_spec *s, size_t e, size_t K, bool aa,
			   const char *rec, struct strvec *argv);

/* The cells: per event, d = ln(Y_B / Y_A) of each execution and draw. */
struct placement_cells {
	size_t nevents;
	double **d;        /* [event][cell] */
	size_t *exec;      /* [cell] */
	size_t n, cap;
	double *a_sum, *b_sum;   /* per event: the counts summed over the cells */
	size_t *equal;     /* per event: cells where B and A count exactly the same */
};

void placement_cells_init(struct placement_cells *c, size_t nevents);
void placement_cells_release(struct placement_cells *c);
/* Add execution e's cells from its replay's JSON (lace replay --json of
 * placement_replay_argv()); 0 or -EINVAL with the message set. */
int placement_cells_add(struct placement_cells *c, const struct placement_spec *s, size_t e,
			bool aa, const json_t *replay);
/* The same for draws (or A vs A draw pairs) first_k .. first_k + nk - 1
 * of the replay only (1-based): one A vs A trial of a replay of many. */
int placement_cells_add_range(struct placement_cells *c, const struct placement_spec *s, size_t e,
			      bool aa, const json_t *replay, size_t first_k, size_t nk);
/* One cell of execution e from A's and B's counts, one of each event
 * (c->nevents): d = placement_log_ratio(A, B).  For callers that read
 * the replays' rows themselves (the model study's reading 4). */
void placement_cells_add_counts(struct placement_cells *c, size_t e, const double *a, const double *b);

/* A cell: ln(B/A), and for a count of 0 on one side only ln((B+1)/(A+1))
 * (a miss count can be 0; its log cannot). */
double placement_log_ratio(double a, double b);

/* E and K from the pilot's cells (the first primary's components), the
 * cost of a boot and of a replay of one draw pair (seconds, wall, with
 * the jobs running at once); into *E, *K; the reason, as a JSON object
 * (the components, the costs, the target, what it reaches). */
json_t *placement_design(const struct placement_spec *s, const struct placement_cells *pilot,
			 double boot_s, double cell_s, size_t *E, size_t *K);

/* r's numbers into o: executions, cells, draws_per_execution, the effect
 * and its interval (percent), t, df, p, p_signflip, normality, tost_p,
 * mde_percent and the variance components (the keys every report of the
 * design reads). */
struct placement_result;
void placement_result_json(json_t *o, const struct placement_result *r);

/* The analysis: per event its placement_result, the verdicts of the
 * primaries (Holm over them) and the estimates of the rest. */
json_t *placement_analysis(const struct placement_spec *s, const struct placement_cells *c);

/* The whole comparison with lace's own children (-j at once): the pilot
 * when E or K is 0, the executions, the replays, A vs A when asked, the
 * analysis.  *out: the lace-placement document.  0, or -errno with the
 * message set (a boot or replay that failed: its one line). */
int placement_run(const struct placement_spec *s, json_t **out);

#endif
