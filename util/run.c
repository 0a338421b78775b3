#include "util/run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "util/error.h"
#include "util/run_command.h"
#include "util/xalloc.h"

struct run_job *run_pool_add(struct run_pool *p, const char *cwd, const char *log,
			     const char *what)
{
	struct run_job *j;

	ALLOC_GROW(p->jobs, p->nr + 1, p->alloc);
	j = &p->jobs[p->nr++];
	memset(j, 0, sizeof(*j));
	strvec_init(&j->argv);
	j->cwd = cwd ? xstrdup(cwd) : NULL;
	j->log = log ? xstrdup(log) : NULL;
	j->what = xstrdup(what ? what : "a job");
	return j;
}

void run_pool_clear(struct run_pool *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		strvec_clear(&p->jobs[i].argv);
		free(p->jobs[i].cwd);
		free(p->jobs[i].log);
		free(p->jobs[i].what);
	}
	free(p->jobs);
	memset(p, 0, sizeof(*p));
	p->last = -1;
}

/* One job started the one way (util/run_command.h); the pool waits for
 * it itself, with wait(), whichever of its jobs ends first.  -1 when it
 * could not be started (the message is recorded, the job counts as
 * failed as an exec failure would). */
static pid_t job_start(const struct run_job *j)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	pid_t pid;

	strvec_pushv(&cp.args, j->argv.v);
	cp.dir = j->cwd;
	cp.log = j->log;
	pid = child_process_start(&cp) ? -1 : cp.pid;
	cp.pid = 0;   /* the pool reaps it: clearing must not */
	child_process_clear(&cp);
	return pid;
}

static int job_failed(const struct run_job *j)
{
	return !WIFEXITED(j->status) || WEXITSTATUS(j->status);
}

long run_pool_run(struct run_pool *p, int max, run_progress_fn *progress, void *data)
{
	size_t next = 0, running = 0, done = 0;
	long failed = -1;

	if (max < 1)
		max = 1;
	while (running || (next < p->nr && failed < 0)) {
		while (running < (size_t)max && next < p->nr && failed < 0) {
			struct run_job *j = &p->jobs[next];

			if (!j->argv.nr || (j->pid = job_start(j)) < 0) {
				j->state = RUN_DONE;
				j->status = 127 << 8;
				failed = (long)next;
				break;
			}
			j->state = RUN_RUNNING;
			next++;
			running++;
		}
		if (!running)
			break;
		int status;
		pid_t pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (size_t i = 0; i < next; i++) {
			struct run_job *j = &p->jobs[i];

			if (j->state != RUN_RUNNING || j->pid != pid)
				continue;
			j->state = RUN_DONE;
			j->status = status;
			j->pid = 0;
			if (job_failed(j) && failed < 0)
				failed = (long)i;
			running--;
			done++;
			p->last = (long)i;
			if (progress)
				progress(data, done, p->nr, 0);
			p->last = -1;
		}
	}
	if (progress)
		progress(data, done, p->nr, 1);
	return failed;
}

int run_pool_finish(struct run_pool *p, int max, run_progress_fn *progress, void *data)
{
	long f = run_pool_run(p, max, progress, data);

	if (f < 0)
		return 0;
	if (!p->jobs[f].log)
		return lace_error_set(EIO, "%s failed", p->jobs[f].what);
	return lace_error_set(EIO, "%s failed (see %s)", p->jobs[f].what, p->jobs[f].log);
}
