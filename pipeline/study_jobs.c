/* lace study: queued lace stat and lace replay measurements run as a pool
 * (study_jobs.h). */
#include "pipeline/study_jobs.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/selfexec.h"
#include "util/json.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/time.h"
#include "util/xalloc.h"

struct study_job {
	json_t *dest;
	char *key, *out, *log, *what;
	char *pick;      /* stat: the one event kept; replay: the rows' events */
	struct strvec argv;
	int done;
	bool replay;     /* lace replay --json: out holds its stdout */
	bool failed;     /* ran and gave no report (a replay of it cannot run) */
	long after;      /* the job that must have run first, or -1 */
};

void study_jobs_init(struct study_jobs *q, const char *dir)
{
	memset(q, 0, sizeof(*q));
	q->dir = xstrdup(dir);
}

/* a new job writing DIR/KIND-N.json and logging to DIR/KIND-N.log */
static struct study_job *job_new(struct study_jobs *q, const char *kind, json_t *dest,
				 const char *key, const char *what)
{
	static unsigned seq;
	struct study_job *j;
	struct strbuf p = STRBUF_INIT;

	ALLOC_GROW(q->v, q->nr + 1, q->alloc);
	j = &q->v[q->nr++];
	memset(j, 0, sizeof(*j));
	j->after = -1;
	j->dest = json_incref(dest);
	j->key = xstrdup(key);
	j->what = xstrdup(what);
	strbuf_addf(&p, "%s/%s-%u.json", q->dir, kind, seq);
	j->out = strbuf_detach(&p, NULL);
	strbuf_addf(&p, "%s/%s-%u.log", q->dir, kind, seq++);
	j->log = strbuf_detach(&p, NULL);
	strvec_init(&j->argv);
	return j;
}

size_t study_jobs_add_stat(struct study_jobs *q, json_t *dest, const char *key, const char *pick,
			   const char *backend, const char *events, int repeat,
			   const char *const *cmd, const char *env, const char *what)
{
	struct study_job *j = job_new(q, "stat", dest, key, what);
	char rep[16];

	j->pick = pick ? xstrdup(pick) : NULL;
	snprintf(rep, sizeof(rep), "%d", repeat);
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
	return q->nr - 1;
}

void study_jobs_record(struct study_jobs *q, size_t job, const char *path)
{
	/* --record PATH among lace stat's options, before the "--" */
	strvec_insert_before(&q->v[job].argv, "--", (const char *const[]){ "--record", path, NULL });
}

void study_jobs_add_replay(struct study_jobs *q, json_t *dest, const char *recording,
			   const char *const *args, const char *events, double max_approx, size_t after,
			   const char *what)
{
	struct study_job *j = job_new(q, "replay", dest, "rows", what);
	char pct[32];

	j->replay = true;
	j->after = (long)after;
	j->pick = xstrdup(events);   /* the rows' columns */
	snprintf(pct, sizeof(pct), "%g", max_approx);
	/* lace replay has no -o: sh only redirects its stdout to the job's
	 * output (its $0), so the log keeps stderr, the one line that says
	 * why; the arguments are passed as they are, never parsed by sh.
	 * One thread: the pool runs the jobs side by side. */
	strvec_pushv(&j->argv, (const char *[]){ "sh", "-c", "exec \"$@\" > \"$0\"", j->out,
						 selfexec_path(), "replay", "--json", "-j", "1", "-e",
						 events, "--max-approx", pct, NULL });
	strvec_pushv(&j->argv, (const char **)args);
	strvec_push(&j->argv, recording);
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
static char *last_line(const char *log, const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, log) < 0 || !sb.len) {
		strbuf_release(&sb);
		strbuf_addf(&sb, "%s gave no report and no message", cmd);
		return strbuf_detach(&sb, NULL);
	}
	strbuf_rtrim(&sb);
	const char *nl = strrchr(sb.buf, '\n');
	char *r = xstrdup(nl ? nl + 1 : sb.buf);
	strbuf_release(&sb);
	return r;
}

/* A replay's rows into dest (study_jobs_add_replay()); false when the
 * output has none or a row lacks an event. */
static bool collect_replay(struct study_job *j, const json_t *rep)
{
	const json_t *lays = json_object_get(rep, "layouts");
	json_t *rows = json_array();
	size_t i, builds = json_array_size(lays);
	double approx = 0;
	json_t *lay;
	char *evs = xstrdup(j->pick), *save = NULL;
	struct strvec ev = STRVEC_INIT;

	for (char *e = strtok_r(evs, ",", &save); e; e = strtok_r(NULL, ",", &save))
		strvec_push(&ev, e);
	free(evs);
	json_array_foreach(lays, i, lay) {
		const json_t *counts = json_object_get(lay, "counts"), *c = json_object_get(lay, "carried");
		const char *name = json_string_value(json_object_get(lay, "layout"));
		json_t *row = json_array();

		/* the first draw of the recorded build begins block 1 */
		if (name && !strcmp(name, "virtual-1") && builds == json_array_size(lays))
			builds = i;
		for (size_t e = 0; e < ev.nr; e++) {
			double x = lace_json_get_num(counts, ev.v[e]);
			/* counts: whole numbers, written as such */
			json_array_append_new(row, x == floor(x) && fabs(x) < 9e15 ? json_integer((json_int_t)x)
										    : lace_json_real(x));
		}
		json_array_append_new(rows, row);
		double all = lace_json_get_num(c, "exact") + lace_json_get_num(c, "approximate") +
			     lace_json_get_num(c, "outside");
		if (all > 0 && 100.0 * lace_json_get_num(c, "approximate") / all > approx)
			approx = 100.0 * lace_json_get_num(c, "approximate") / all;
		if (!ev.nr || isnan(lace_json_get_num(counts, ev.v[0])))
			builds = 0;
	}
	strvec_clear(&ev);
	if (!json_array_size(rows) || !builds) {
		json_decref(rows);
		return false;
	}
	json_object_set_new(j->dest, "builds", json_integer((json_int_t)builds));
	json_object_set_new(j->dest, "rows", rows);
	json_object_set_new(j->dest, "approximate_pct", lace_json_real(approx));
	return true;
}

static void collect(struct study_job *j)
{
	json_t *rep = json_load_file(j->out, 0, NULL);
	json_t *sum = rep && !j->replay ? study_stat_summary(rep) : NULL;

	if (j->replay) {
		if (!rep || !collect_replay(j, rep)) {
			char *why = last_line(j->log, "lace replay");
			json_object_set_new(j->dest, "not_measured", json_string(why));
			free(why);
			j->failed = true;
		}
		json_decref(rep);
		return;
	}

	if (sum && json_object_size(sum) > 1) {
		if (j->pick)
			json_object_set(j->dest, j->key, json_object_get(sum, j->pick));
		else
			json_object_set(j->dest, j->key, sum);
	} else {
		j->failed = true;
		if (!j->pick) {
			char *why = last_line(j->log, "lace stat");
			json_object_set_new(j->dest, "not_measured", json_string(why));
			free(why);
		}
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
	size_t before, total;  /* over every round: ended before this pool; all */
};

/* each job as it ends, so a long pool is not silent until its end */
static void pool_progress(void *data, size_t done, size_t total, int end)
{
	struct jobs_progress *jp = data;
	double now = time_now_s();

	if (end || jp->pool->last < 0)
		return;
	done += jp->before;
	jp->fn(jp->data, &(struct study_progress){
		.phase = "measure", .what = jp->q->v[jp->idx[jp->pool->last]].what,
		.done = done, .total = jp->total, .elapsed = now - jp->t0,
		.left = (now - jp->start) / done * (jp->total - done) });
	(void)total;
}

/* Whether job i may start now: its recording has run.  A job whose
 * recording failed is done without running, with the recording's why. */
static bool job_ready(struct study_jobs *q, size_t i)
{
	struct study_job *j = &q->v[i];

	if (j->after < 0)
		return true;
	struct study_job *a = &q->v[j->after];
	if (!a->done)
		return false;
	if (a->failed) {
		char *why = last_line(a->log, "lace stat");
		json_object_set_new(j->dest, "not_measured",
				    json_sprintf("the recorded run failed: %s", why));
		free(why);
		j->failed = true;
		j->done = 1;
		return false;
	}
	return true;
}

void study_jobs_run(struct study_jobs *q, int max, double t0, study_progress_fn *progress,
		    void *data)
{
	size_t before = 0, total = 0;
	double start = time_now_s();

	for (size_t i = 0; i < q->nr; i++)
		total += !q->v[i].done;
	/* run_pool stops starting jobs after a failure; a study keeps going,
	 * so the jobs not yet started go into the next pool, and so do the
	 * replays whose recording was not yet made */
	for (;;) {
		struct run_pool pool = RUN_POOL_INIT;
		size_t *idx = xcalloc(q->nr + 1, sizeof(*idx)), n = 0;
		for (size_t i = 0; i < q->nr; i++) {
			if (q->v[i].done)
				continue;
			if (!job_ready(q, i)) {
				total -= q->v[i].done; /* done without running: no line */
				continue;
			}
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
		struct jobs_progress jp = { q, idx, &pool, t0, start, progress, data, before, total };
		run_pool_run(&pool, max, progress ? pool_progress : NULL, &jp);
		for (size_t k = 0; k < n; k++) {
			if (pool.jobs[k].state != RUN_DONE)
				continue;
			struct study_job *j = &q->v[idx[k]];
			collect(j);
			j->done = 1;
			before++;
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
