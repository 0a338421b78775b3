/* Runs of one batch in flight together: lace stat -j N, lace ab -j N.
 *
 * stat_run() and ab_run() hand their runs to a queue in the order they
 * would run them.  With one job the queue runs each at once in lace's own
 * process, as lace always did.  With more, and a backend whose runs are
 * independent (one with run_setup(): each QEMU boot is a guest of its own,
 * one host thread, counts fixed by the guest's instruction count), every
 * run is forked: a child of lace runs it as lace would (--pre, the run,
 * --post; its own subreaper scope, so it reaps only its own leftovers) and
 * sends the result back as JSON (run_result_json()).  lace records the
 * results in the order the runs were handed in, so the results file, the
 * report and every statistic are those of -j 1.  A run handed in after
 * one that ended the batch (--stop-on-error, -r auto deciding, a backend
 * failure) is stopped and not recorded, as with -j 1 it would not have
 * run; after a signal every run in flight is recorded, as interrupted
 * unless it had ended.  Hardware counters run one at a time: two
 * workloads side by side would count each other's cache and TLB
 * pressure. */
#ifndef LACE_MEASURE_SESSION_JOBS_H
#define LACE_MEASURE_SESSION_JOBS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "measure/session.h"

/* One run of the batch, as a loop hands it in. */
struct session_slot {
	char *const *argv;
	int round;    /* as the results file numbers it */
	char side;    /* ab: 'A' or 'B'; stat: 0 */
	bool warmup;
	long boot;    /* lace_run_opts.boot: the run's place on its side */
};

/* Called in slot order as each run is recorded; true ends the batch. */
typedef bool session_done_fn(struct lace_session *s, const struct session_slot *slot,
			     const struct lace_run_result *res, void *ctx);

struct session_job; /* a run in flight (session_jobs.c) */

struct session_queue {
	struct lace_session *s;
	session_done_fn *done;
	void *ctx;
	long jobs;           /* runs at once; 1: each in lace's own process */
	bool stopped;        /* done() ended the batch, or a backend failed */
	struct session_job *q; /* in flight and not yet recorded, in slot order */
	size_t head, n, alloc;
	size_t running;      /* of those, not yet ended */
};

/* The number of jobs a batch of nruns runs gets: s->jobs, or when it is 0
 * the number of online CPUs for a backend that can run side by side, else
 * 1.  An explicit -j above 1 that cannot be honoured is a one-line warning
 * through s->warn (the backend, or --pre/--post, runs one at a time). */
void session_queue_init(struct session_queue *q, struct lace_session *s, long nruns,
			session_done_fn *done, void *ctx);
/* Hand in one run: run it now (one job), or fork it once fewer than jobs
 * runs are under way, recording what ended meanwhile.  false once the
 * batch is to stop (done() said so, a backend failure in s->err, a
 * signal): hand in no more. */
bool session_queue_push(struct session_queue *q, const struct session_slot *slot);
/* Wait for the runs under way and record them, in order. */
void session_queue_finish(struct session_queue *q);

#endif
