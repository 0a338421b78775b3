/* Runs of one batch in flight together; see session_jobs.h. */
#include "measure/session_jobs.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/results.h"
#include "util/array.h"
#include "util/error.h"
#include "util/run_command.h"
#include "util/sysinfo.h"
#include "util/xalloc.h"

struct session_job {
	struct session_slot slot;
	struct lace_session *s;
	pid_t pid;         /* 0 once reaped */
	FILE *out;         /* the child's result, JSON (an unlinked temporary file) */
	bool ended;
};

/* Why this batch's runs cannot be side by side, or NULL when they can. */
static const char *serial_reason(const struct lace_session *s)
{
	const struct lace_backend_set *set = &s->set;
	bool host = false, hw = false;

	for (size_t i = 0; i < set->nevents; i++) {
		host |= set->model_host && set->evs[i].backend == set->model_host;
		hw |= set->evs[i].backend == set->hw;
	}
	if (hw || !host)
		return "runs on hardware counters are one at a time (side by side they "
		       "would count each other's cache and TLB pressure)";
	if (!set->model_host->run_setup)
		return "the simulator's runs are one at a time";
	if (s->pre || s->post)
		return "--pre/--post run around each run, one at a time";
	return NULL;
}

/* one run per CPU, no more than fit in the memory available now */
static long default_jobs(const struct lace_backend *be)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), mib = sysinfo_mem_available_mib();

	if (be->run_mib && mib > 0 && n > mib / (long)be->run_mib)
		n = mib / (long)be->run_mib;
	return n > 1 ? n : 1;
}

void session_queue_init(struct session_queue *q, struct lace_session *s, long nruns,
			session_done_fn *done, void *ctx)
{
	const char *why = serial_reason(s);

	memset(q, 0, sizeof(*q));
	q->s = s;
	q->done = done;
	q->ctx = ctx;
	q->jobs = s->jobs > 0 ? s->jobs : why ? 1 : default_jobs(s->set.model_host);
	if (q->jobs > 1 && why) {
		if (s->warn) {
			char msg[256];
			snprintf(msg, sizeof(msg), "-j %ld: %s", q->jobs, why);
			s->warn(NULL, msg);
		}
		q->jobs = 1;
	}
	if (q->jobs < 1 || nruns < 2)
		q->jobs = 1;
}

/* In the child: the run as lace runs it, its result as one JSON object
 * ({"error": ERRNO, "message": ...} when the backend failed); exits 0, or
 * 1 when the result could not be written. */
static int child_run(void *data)
{
	struct session_job *job = data;
	struct lace_session *s = job->s;
	struct lace_run_opts o = s->ro;
	struct lace_run_result res;
	json_t *j;

	o.side = job->slot.side;
	o.boot = job->slot.boot;
	o.stop = &session_stop; /* a signal ends the run under way, as with one job */
	run_result_init(&res, s->evl.n);
	int err = session_run_once(&s->set, job->slot.argv, s->pre, s->post, &o, &res);
	if (err) {
		j = json_pack("{s:i,s:s}", "error", -err, "message", lace_error_msg());
	} else {
		session_mark_interrupted(&res);
		j = run_result_json(&res);
	}
	int bad = json_dumpf(j, job->out, JSON_COMPACT) || fflush(job->out);
	json_decref(j);
	run_result_release(&res);
	return bad ? 1 : 0;
}

static int job_start(struct session_queue *q, struct session_job *job)
{
	job->out = tmpfile();
	if (!job->out)
		return lace_error_set(errno, "a run's result file: %s", strerror(errno));
	job->s = q->s;
	pid_t pid = run_forked(child_run, job);
	if (pid < 0) {
		fclose(job->out);
		job->out = NULL;
		return (int)pid;
	}
	job->pid = pid;
	q->running++;
	return 0;
}

/* Wait for one child to end (any of ours); false when none is left. */
static bool job_reap_one(struct session_queue *q)
{
	int status;
	pid_t w;
	bool forwarded = false;

	if (!q->running)
		return false;
	for (;;) {
		/* a signal to lace alone (kill PID, not the terminal's group):
		 * the children end their runs the way lace would */
		if (session_stop && !forwarded) {
			forwarded = true;
			for (size_t k = q->head; k < q->n; k++)
				if (q->q[k].pid > 0 && !q->q[k].ended)
					kill(q->q[k].pid, SIGTERM);
		}
		w = waitpid(-1, &status, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return false;
		for (size_t k = q->head; k < q->n; k++) {
			struct session_job *job = &q->q[k];
			if (job->pid == w && !job->ended) {
				job->ended = true;
				q->running--;
				return true;
			}
		}
		/* an orphan that came back to lace as subreaper: reaped, go on */
	}
}

/* The child's result into res; 0, or -errno when the backend failed in
 * it (message set), which ends the batch as it would with one job. */
static int job_result(struct session_job *job, struct lace_run_result *res)
{
	json_error_t je;
	json_t *j;
	char why[128];
	int err = 0;

	rewind(job->out);
	j = json_loadf(job->out, 0, &je);
	if (!j)
		return lace_error_set(EIO, "run %ld: no result came back from its process (%s)",
				      job->slot.boot + 1, je.text);
	if (json_object_get(j, "error")) {
		const char *msg = json_string_value(json_object_get(j, "message"));
		err = lace_error_set((int)json_integer_value(json_object_get(j, "error")), "%s",
				     msg ? msg : "a run failed");
	} else if (run_result_from_json(j, res, why, sizeof(why))) {
		err = lace_error_set(EIO, "run %ld: its result: %s", job->slot.boot + 1, why);
	}
	json_decref(j);
	return err;
}

static void job_release(struct session_job *job)
{
	if (job->out)
		fclose(job->out);
	job->out = NULL;
}

/* Record the ended runs at the head of the queue, in order. */
static void record_ready(struct session_queue *q)
{
	struct lace_session *s = q->s;

	while (q->head < q->n && q->q[q->head].ended) {
		struct session_job *job = &q->q[q->head++];
		struct lace_run_result res;

		if (q->stopped || s->err) {
			job_release(job);
			continue;
		}
		run_result_init(&res, s->evl.n);
		int err = job_result(job, &res);
		if (err) {
			s->err = err;
			q->stopped = true;
		} else {
			session_record(s, &res, job->slot.round, job->slot.side, job->slot.warmup);
			if (q->done && q->done(s, &job->slot, &res, q->ctx))
				q->stopped = true;
		}
		run_result_release(&res);
		job_release(job);
	}
	/* stopped: what is still under way would not have run */
	if (q->stopped && q->running)
		for (size_t k = q->head; k < q->n; k++)
			if (!q->q[k].ended)
				kill(q->q[k].pid, SIGTERM);
	if (q->head == q->n)
		q->head = q->n = 0;
}

bool session_queue_push(struct session_queue *q, const struct session_slot *slot)
{
	struct lace_session *s = q->s;

	if (q->stopped || s->err || session_stop)
		return false;
	if (q->jobs == 1) {
		struct lace_run_result res;
		run_result_init(&res, s->evl.n);
		if (!session_run(s, slot->argv, slot->round, slot->side, slot->warmup, slot->boot, &res) &&
		    q->done && q->done(s, slot, &res, q->ctx))
			q->stopped = true;
		run_result_release(&res);
		return !q->stopped && !s->err && !session_stop;
	}
	struct lace_run_opts o = s->ro;
	o.side = slot->side;
	o.boot = slot->boot;
	int ready = s->set.model_host->run_setup(s->set.model_host, slot->argv, &o);
	if (ready < 0) {
		s->err = ready;
		q->stopped = true;
		return false;
	}
	/* this batch runs one at a time after all (--record) */
	while (q->running && (ready > 0 || q->running >= (size_t)q->jobs)) {
		job_reap_one(q);
		record_ready(q);
	}
	if (ready > 0)
		q->jobs = 1;
	if (q->stopped || s->err || session_stop)
		return false;
	if (q->jobs == 1)
		return session_queue_push(q, slot);
	ALLOC_GROW(q->q, q->n + 1, q->alloc);
	struct session_job *job = &q->q[q->n];
	memset(job, 0, sizeof(*job));
	job->slot = *slot;
	int err = job_start(q, job);
	if (err) {
		s->err = err;
		q->stopped = true;
		return false;
	}
	q->n++;
	return true;
}

void session_queue_finish(struct session_queue *q)
{
	while (job_reap_one(q))
		record_ready(q);
	record_ready(q);
	free(q->q);
	q->q = NULL;
	q->head = q->n = q->alloc = 0;
}
