/* lace study: the measurements, queued and then run as a pool.
 *
 * Every number the study compares comes from `lace stat` run the same way
 * (`lace stat --json -o FILE ... -- PROG ARGS`, the workload executed
 * directly, never through a shell), so baseline, variants and randomized
 * builds share one denominator; or, for reading 4, from `lace replay` of
 * recorded runs (a replay job waits for the job that records it).
 * Under the simulator the counts do not depend on what else runs, so the
 * pool runs one job per CPU; hardware counters and task-clock run one at
 * a time. */
#ifndef LACE_PIPELINE_STUDY_JOBS_H
#define LACE_PIPELINE_STUDY_JOBS_H

#include <jansson.h>
#include <stddef.h>

#include "pipeline/progress.h"

struct study_job;
struct study_jobs {
	char *dir;              /* where reports and logs go */
	struct study_job *v;
	size_t nr, alloc;
};

void study_jobs_init(struct study_jobs *q, const char *dir);
/* Queue `lace stat` of cmd (NULL-ended argv) with events, repeat runs, an
 * optional "K=V" environment; when it has run, dest[key] gets
 * {event: {mean, sem, stddev, status, simulated}, "_elapsed": ...} (or,
 * with pick, only that event's object), or dest gets "not_measured".
 * Returns the job's number in q (for study_jobs_record() and after). */
size_t study_jobs_add_stat(struct study_jobs *q, json_t *dest, const char *key, const char *pick,
			 const char *backend, const char *events, int repeat,
			 const char *const *cmd, const char *env, const char *what);
/* Make stat job `job` record the code stream it runs into path
 * (`lace stat --backend sim --record PATH`). */
void study_jobs_record(struct study_jobs *q, size_t job, const char *path);
/* Queue `lace replay --json -j 1 -e events --max-approx max_approx ARGS
 * recording` (args, NULL-ended: the layouts, --virtual, --seed...), run
 * once job `after` (the one recording it) has run.  dest gets "builds"
 * (the layouts of one block: the recorded build, then each --layout),
 * "rows" (every layout's counts as an array of the events' values, in
 * replay's order: row = block * builds + build, block 0 as built, blocks
 * 1..K the draws) and "approximate_pct" (the largest share of the
 * executed instructions a row carried over approximately), or
 * "not_measured" with replay's one-line reason (a layout refused above
 * max_approx percent carried approximately, exit 2) or the recording
 * job's. */
void study_jobs_add_replay(struct study_jobs *q, json_t *dest, const char *recording,
			   const char *const *args, const char *events, double max_approx, size_t after,
			   const char *what);
/* Run what is queued, at most max at once (a failed job does not stop the
 * others), store the results and empty the queue.  progress (may be NULL)
 * is called as each job ends; t0 is when the study began. */
void study_jobs_run(struct study_jobs *q, int max, double t0, study_progress_fn *progress,
		    void *data);
void study_jobs_release(struct study_jobs *q);

/* The means per event of a lace stat JSON report, as stored above. */
json_t *study_stat_summary(const json_t *stat);

#endif
