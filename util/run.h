/* run: a pool of child processes run at most N at a time (after git's
 * run_processes_parallel), each with its own log file.
 *
 * Add jobs with run_pool_add() and fill their argv, then run_pool_run().
 * Once a job fails no new one starts; those running are waited for.  The
 * pool never prints: the caller's progress function may. */
#ifndef LACE_RUN_H
#define LACE_RUN_H

#include <stddef.h>
#include <sys/types.h>

#include "util/strvec.h"

enum run_state { RUN_PENDING, RUN_RUNNING, RUN_DONE };

struct run_job {
	struct strvec argv;   /* argv[0] is looked up in PATH */
	char *cwd;            /* NULL: the caller's */
	char *log;            /* stdout and stderr appended here; NULL: inherited */
	char *what;           /* for messages ("baseline: compiling util/strbuf.c") */
	enum run_state state;
	int status;           /* wait status once RUN_DONE; 127 when exec failed */
	pid_t pid;
};

struct run_pool {
	struct run_job *jobs;
	size_t nr, alloc;
	long last;            /* while progress runs: the job that just ended */
};
#define RUN_POOL_INIT { NULL, 0, 0, -1 }

/* Called after each job ends (done of total; pool->last is that job) and
 * once more with end set when the run is over, whatever the outcome. */
typedef void run_progress_fn(void *data, size_t done, size_t total, int end);

/* A new pending job with an empty argv; the strings are copied. */
struct run_job *run_pool_add(struct run_pool *p, const char *cwd, const char *log,
			     const char *what);
/* Run every pending job, at most max (>= 1) at once.  Returns the index of
 * the first job that failed (exit status not 0, killed, or not started),
 * or -1 when all succeeded.  progress may be NULL. */
long run_pool_run(struct run_pool *p, int max, run_progress_fn *progress, void *data);
/* run_pool_run(), then 0 or -EIO with "<what> failed (see <log>)". */
int run_pool_finish(struct run_pool *p, int max, run_progress_fn *progress, void *data);
/* Free every job; the pool is empty and reusable after. */
void run_pool_clear(struct run_pool *p);

#endif
