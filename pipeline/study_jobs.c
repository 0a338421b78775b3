/* lace study: queued lace stat measurements run as a pool (study_jobs.h). */
#include "pipeline/study_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/selfexec.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/xalloc.h"

struct study_job {
	json_t *dest;
	char *key, *pick, *out, *log, *what;
	struct strvec argv;
	int done;
};

void study_jobs_init(struct study_jobs *q, const char *dir)
{
	memset(q, 0, sizeof(*q));
	q->dir = xstrdup(dir);
}

void study_jobs_add_stat(struct study_jobs *q, json_t *dest, const char *key, const char *pick,
			 const char *backend, const char *events, int repeat,
			 const char *const *cmd, const char *env, const char *what)
{
	static unsigned seq;
	struct study_job *j;
	struct strbuf p = STRBUF_INIT;
	char rep[16];

	ALLOC_GROW(q->v, q->nr + 1, q->alloc);
	j = &q->v[q->nr++];
	memset(j, 0, sizeof(*j));
	j->dest = json_incref(dest);
	j->key = xstrdup(key);
	j->pick = pick ? xstrdup(pick) : NULL;
	j->what = xstrdup(what);
	strbuf_addf(&p, "%s/stat-%u.json", q->dir, seq);
	j->out = strbuf_detach(&p, NULL);
	strbuf_addf(&p, "%s/stat-%u.log", q->dir, seq++);
	j->log = strbuf_detach(&p, NULL);
	snprintf(rep, sizeof(rep), "%d", repeat);
	strvec_init(&j->argv);
	/* env(1) execs lace itself, so the measured command is the same
	 * with or without the variable */
	if (env) {
		strvec_push(&j->argv, "env");
		strvec_push(&j->argv, env);
	}
	const char *head[] = { selfexec_path(), "stat", "--json", "-o", j->out, "--output=null",
			       "--no-results", "--backend", backend, "-r", rep, "-e", events, NULL };
	strvec_pushv(&j->argv, head);
	/* the simulator counts the workload's window, not its start-up
	 * (record_window() in study.c says so in results.json), and gives
	 * the workloads, which time themselves, its virtual clock */
	if (!strcmp(backend, "sim"))
		strvec_pushv(&j->argv, (const char *[]){ "--window", "--virtual-clock", NULL });
	strvec_push(&j->argv, "--");
	strvec_pushv(&j->argv, (const char **)cmd);
}

json_t *study_stat_summary(const json_t *j)
{
	json_t *out = json_object();
	size_t i;
	json_t *ev;

	json_array_foreach(json_object_get(j, "events"), i, ev) {
		const char *name = json_string_value(json_object_get(ev, "name"));
		const json_t *mean = json_object_get(ev, "mean");
		json_t *o = json_object();
		if (!name) {
			json_decref(o);
			continue;
		}
		json_object_set_new(o, "mean", json_is_number(mean) ? json_real(json_number_value(mean))
								     : json_null());
		json_object_set(o, "sem", json_object_get(ev, "sem"));
		json_object_set(o, "stddev", json_object_get(ev, "stddev"));
		json_object_set(o, "status", json_object_get(ev, "status"));
		json_object_set(o, "simulated", json_object_get(ev, "simulated"));
		json_object_set_new(out, name, o);
	}
	json_object_set(out, "_elapsed", json_object_get(j, "elapsed"));
	return out;
}

/* The last line of a log: why a run gave no report. */
static char *last_line(const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, log) < 0 || !sb.len) {
		strbuf_release(&sb);
		return xstrdup("lace stat gave no report and no message");
	}
	strbuf_rtrim(&sb);
	const char *nl = strrchr(sb.buf, '\n');
	char *r = xstrdup(nl ? nl + 1 : sb.buf);
	strbuf_release(&sb);
	return r;
}

static void collect(struct study_job *j)
{
	json_t *rep = json_load_file(j->out, 0, NULL);
	json_t *sum = rep ? study_stat_summary(rep) : NULL;

	if (sum && json_object_size(sum) > 1) {
		if (j->pick)
			json_object_set(j->dest, j->key, json_object_get(sum, j->pick));
		else
			json_object_set(j->dest, j->key, sum);
	} else if (!j->pick) {
		char *why = last_line(j->log);
		json_object_set_new(j->dest, "not_measured", json_string(why));
		free(why);
	}
	json_decref(sum);
	json_decref(rep);
}

struct jobs_progress {
	struct study_jobs *q;
	const size_t *idx;
	const struct run_pool *pool;
	double t0, start;
	study_progress_fn *fn;
	void *data;
};

/* each job as it ends, so a long pool is not silent until its end */
static void pool_progress(void *data, size_t done, size_t total, int end)
{
	struct jobs_progress *jp = data;
	double now = time_now_s();

	if (end || jp->pool->last < 0)
		return;
	jp->fn(jp->data, &(struct study_progress){
		.phase = "measure", .what = jp->q->v[jp->idx[jp->pool->last]].what,
		.done = done, .total = total, .elapsed = now - jp->t0,
		.left = (now - jp->start) / done * (total - done) });
}

void study_jobs_run(struct study_jobs *q, int max, double t0, study_progress_fn *progress,
		    void *data)
{
	/* run_pool stops starting jobs after a failure; a study keeps going,
	 * so the jobs not yet started go into the next pool */
	for (;;) {
		struct run_pool pool = RUN_POOL_INIT;
		size_t *idx = xcalloc(q->nr + 1, sizeof(*idx)), n = 0;
		for (size_t i = 0; i < q->nr; i++) {
			if (q->v[i].done)
				continue;
			struct run_job *rj = run_pool_add(&pool, NULL, q->v[i].log, q->v[i].what);
			for (size_t a = 0; a < q->v[i].argv.nr; a++)
				strvec_push(&rj->argv, q->v[i].argv.v[a]);
			unlink(q->v[i].out);
			unlink(q->v[i].log);
			idx[n++] = i;
		}
		if (!n) {
			free(idx);
			break;
		}
		struct jobs_progress jp = { q, idx, &pool, t0, time_now_s(), progress, data };
		run_pool_run(&pool, max, progress ? pool_progress : NULL, &jp);
		for (size_t k = 0; k < n; k++) {
			if (pool.jobs[k].state != RUN_DONE)
				continue;
			struct study_job *j = &q->v[idx[k]];
			collect(j);
			j->done = 1;
		}
		run_pool_clear(&pool);
		free(idx);
	}
	for (size_t i = 0; i < q->nr; i++) {
		struct study_job *j = &q->v[i];
		json_decref(j->dest);
		free(j->key);
		free(j->pick);
		free(j->out);
		free(j->log);
		free(j->what);
		strvec_clear(&j->argv);
	}
	q->nr = 0;
}

void study_jobs_release(struct study_jobs *q)
{
	study_jobs_run(q, 1, 0, NULL, NULL);
	free(q->v);
	free(q->dir);
	memset(q, 0, sizeof(*q));
}
