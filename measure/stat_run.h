/* lace stat's batch: the command run warmup + repeat times through the
 * session (measure/session.h), every run recorded as it ends. */
#ifndef LACE_MEASURE_STAT_RUN_H
#define LACE_MEASURE_STAT_RUN_H

#include "measure/session.h"

struct stat_plan {
	long repeat, warmup;
	bool ignore_failure; /* failed runs do not fail the batch */
	/* backend data of the measured runs (sim: per-function), for
	 * the backend's print_extra(); stat_plan_release() frees them */
	json_t **extras;
	size_t nextras;
};

/* The batch record with its header (command, repeat, warmup), and the
 * results file: 0 or -errno as session_results_open(). */
int stat_begin(struct lace_session *s, char *const argv[], const struct stat_plan *p);
/* warmup + repeat runs, or fewer when a signal or --stop-on-error ends
 * the batch; then the end line.  0, or the backend failure (s->err). */
int stat_run(struct lace_session *s, char *const argv[], struct stat_plan *p);
/* The exit status (hyperfine's rule): session_status(), else 1 when no run
 * succeeded, or when some failed without ignore_failure (then with the
 * message set, "N of M runs failed ..."), else 0. */
int stat_exit_status(const struct lace_session *s, const struct stat_plan *p);
void stat_plan_release(struct stat_plan *p);

#endif
