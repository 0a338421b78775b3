/* placement_run(): the placement design with lace's own children, -j at
 * once (lace ab --same-execution, lace check); see placement.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "pipeline/placement.h"
#include "pipeline/selfexec.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/xalloc.h"

struct batch {
	struct run_pool pool;
	struct strvec outs, errs;
};

/* a job of lace argv, its stdout and stderr into files of dir */
static void batch_add(struct batch *b, const char *dir, const char *what, const struct strvec *argv)
{
	static unsigned serial;   /* every job of the run its own files */
	struct run_job *j = run_pool_add(&b->pool, NULL, NULL, what);

	strvec_pushf(&b->outs, "%s/%u.out", dir, serial);
	strvec_pushf(&b->errs, "%s/%u.err", dir, serial++);
	strvec_pushv(&j->argv, (const char *[]){ "sh", "-c",
		"o=$1; e=$2; shift 2; exec \"$@\" >\"$o\" 2>\"$e\"", "sh",
		b->outs.v[b->outs.nr - 1], b->errs.v[b->errs.nr - 1], selfexec_path(), NULL });
	strvec_pushv(&j->argv, (const char **)argv->v);
}

/* Run the batch; docs[i] each job's JSON.  A failure: its stderr's last
 * line, or lace stat's fault summary, as the one line. */
static int batch_run(struct batch *b, int jobs, json_t **docs)
{
	long bad = run_pool_run(&b->pool, jobs > 0 ? jobs : 1, NULL, NULL);
	int rc = 0;

	for (size_t i = 0; i < b->pool.nr && !rc; i++) {
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
		json_error_t je;

		strbuf_read_file(&out, b->outs.v[i]);
		strbuf_read_file(&err, b->errs.v[i]);
		docs[i] = json_loads(out.buf ? out.buf : "", 0, &je);
		const char *faults = json_string_value(json_object_get(docs[i], "fault_summary"));
		if ((long)i == bad || (bad >= 0 && !docs[i]) || (faults && *faults)) {
			struct strbuf why = STRBUF_INIT;
			if (faults && *faults)
				strbuf_addf(&why, "%s: %s", b->pool.jobs[i].what, faults);
			else
				selfexec_explain_exit(WIFEXITED(b->pool.jobs[i].status) ?
						      WEXITSTATUS(b->pool.jobs[i].status) : 128, &err,
						      b->pool.jobs[i].what, &why);
			rc = lace_error_set(EIO, "%s", why.buf);
			strbuf_release(&why);
		} else if (!docs[i]) {
			rc = lace_error_set(EIO, "%s printed unreadable JSON: %s", b->pool.jobs[i].what,
					    je.text);
		}
		strbuf_release(&out);
		strbuf_release(&err);
	}
	return rc;
}

static void batch_clear(struct batch *b)
{
	run_pool_clear(&b->pool);
	strvec_clear(&b->outs);
	strvec_clear(&b->errs);
}

/* boots of executions [from, to) into recs */
static int boots(const struct placement_spec *s, const char *dir, size_t from, size_t to,
		 struct strvec *recs, json_t *execs)
{
	struct batch b = { RUN_POOL_INIT, STRVEC_INIT, STRVEC_INIT };
	json_t **docs = xcalloc(to - from + 1, sizeof(*docs));
	int rc;

	for (size_t e = from; e < to; e++) {
		struct strvec argv = STRVEC_INIT;
		char what[96];

		strvec_pushf(recs, "%s/e%zu.lrec", dir, e);
		placement_boot_argv(s, e, recs->v[e], &argv);
		snprintf(what, sizeof(what), "%s's boot %zu (perturbation %u)",
			 placement_exec_side(s, e) ? "B" : "A", e, placement_exec_perturb(s, e));
		batch_add(&b, dir, what, &argv);
		strvec_clear(&argv);
	}
	rc = batch_run(&b, s->jobs, docs);
	for (size_t e = from; e < to && !rc; e++) {
		json_t *x = json_pack("{s:I,s:s,s:I}", "execution", (json_int_t)e, "side",
				      placement_exec_side(s, e) ? "B" : "A", "perturbation",
				      (json_int_t)placement_exec_perturb(s, e)), *live = json_object();
		size_t i;
		json_t *ev;

		json_array_foreach(json_object_get(docs[e - from], "events"), i, ev)
			json_object_set(live, json_string_value(json_object_get(ev, "name")) ?: "",
					json_object_get(ev, "mean"));
		json_object_set_new(x, "live", live);
		json_array_append_new(execs, x);
	}
	for (size_t i = 0; i < to - from; i++)
		json_decref(docs[i]);
	free(docs);
	batch_clear(&b);
	return rc;
}

/* Does execution e's replay through its own build give its live counts?
 * (lace replay's row "recorded"; exact by construction, so a difference
 * is a bug of the replay) */
static bool equals_live(const struct placement_spec *s, const json_t *replay, const json_t *exec)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(replay, "layouts"), i, r) {
		if (strcmp(json_string_value(json_object_get(r, "layout")) ?: "", "recorded"))
			continue;
		for (size_t v = 0; v < s->events.nr; v++) {
			const char *name = s->events.v[v], *colon = strrchr(name, ':');
			char base[64];
			snprintf(base, sizeof(base), "%.*s", colon ? (int)(colon - name) : (int)strlen(name),
				 name);
			const char *part = !colon ? "counts" : !strcmp(colon, ":k") ? "kernel" : "user";
			double rep = lace_json_get_num(json_object_get(r, part), base);
			double live = lace_json_get_num(json_object_get(exec, "live"), name);
			if (rep != live)
				return false;
		}
		return true;
	}
	return false;
}

/* replays of executions [from, to) with K draw pairs into c; *same_live
 * is cleared when one of them through its own build is not its boot */
static int replays(const struct placement_spec *s, const char *dir, size_t from, size_t to,
		   size_t K, bool aa, const struct strvec *recs, struct placement_cells *c,
		   const json_t *execs, bool *same_live)
{
	struct batch b = { RUN_POOL_INIT, STRVEC_INIT, STRVEC_INIT };
	json_t **docs = xcalloc(to - from + 1, sizeof(*docs));
	size_t *which = xcalloc(to - from + 1, sizeof(*which)), n = 0;
	int rc;

	for (size_t e = from; e < to; e++) {
		struct strvec argv = STRVEC_INIT;
		char what[96];

		/* A vs A: each execution's own build against itself */
		placement_replay_argv(s, e, K, aa, recs->v[e], &argv);
		snprintf(what, sizeof(what), "lace replay of execution %zu%s", e, aa ? " (A vs A)" : "");
		batch_add(&b, dir, what, &argv);
		which[n++] = e;
		strvec_clear(&argv);
	}
	rc = batch_run(&b, s->jobs, docs);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = placement_cells_add(c, s, which[i], aa, docs[i]);
		if (!equals_live(s, docs[i], json_array_get(execs, which[i])))
			*same_live = false;
	}
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	free(docs);
	free(which);
	batch_clear(&b);
	return rc;
}

/* Clopper-Pearson's exact interval of a binomial proportion x/n */
static void binomial_ci(size_t x, size_t n, double alpha, double *lo, double *hi)
{
	*lo = x ? gsl_cdf_beta_Pinv(alpha / 2, (double)x, (double)(n - x + 1)) : 0;
	*hi = x < n ? gsl_cdf_beta_Pinv(1 - alpha / 2, (double)(x + 1), (double)(n - x)) : 1;
}

/* A vs A trials: each execution replayed once through 2 K T draws of its
 * own build; trial t takes draw pairs t K + 1 .. t K + K of every
 * execution (fresh layouts, the same recorded executions: under the null
 * nothing differs between A and A but the draws, so reusing executions
 * keeps each trial a true null), and its verdicts on the primaries
 * (Holm over them) count as false when slower or faster. */
static json_t *trials(const struct placement_spec *s, const char *dir, size_t E, size_t K,
		      const struct strvec *recs, int *rc)
{
	struct batch b = { RUN_POOL_INIT, STRVEC_INIT, STRVEC_INIT };
	json_t **docs = xcalloc(E + 1, sizeof(*docs)), *out = NULL;
	size_t T = s->aa_trials, slower = 0, faster = 0, undecided = 0;

	for (size_t e = 0; e < E; e++) {
		struct strvec argv = STRVEC_INIT;
		char what[96];

		placement_replay_argv(s, e, K * T, true, recs->v[e], &argv);
		snprintf(what, sizeof(what), "lace replay of execution %zu (%zu A vs A trials)", e, T);
		batch_add(&b, dir, what, &argv);
		strvec_clear(&argv);
	}
	if ((*rc = batch_run(&b, s->jobs, docs)))
		goto out;
	for (size_t t = 0; t < T && !*rc; t++) {
		struct placement_cells c;
		size_t i;
		json_t *a, *ev;

		placement_cells_init(&c, s->events.nr);
		for (size_t e = 0; e < E && !*rc; e++)
			*rc = placement_cells_add_range(&c, s, e, true, docs[e], t * K + 1, K);
		if (!*rc) {
			bool any_s = false, any_f = false, decided = true;
			a = placement_analysis(s, &c);
			json_array_foreach(a, i, ev) {
				const char *v = json_string_value(json_object_get(ev, "verdict"));
				if (!v)
					continue;
				any_s |= !strcmp(v, "slower");
				any_f |= !strcmp(v, "faster");
				decided &= strcmp(v, "no verdict possible") != 0;
			}
			slower += any_s;
			faster += any_f && !any_s;
			undecided += !decided;
			json_decref(a);
		}
		placement_cells_release(&c);
	}
	if (!*rc) {
		double lo, hi;
		size_t x = slower + faster;

		binomial_ci(x, T, 0.05, &lo, &hi);
		out = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f}", "trials", (json_int_t)T,
				"executions", (json_int_t)E, "draws", (json_int_t)K, "false_verdicts",
				(json_int_t)x, "slower", (json_int_t)slower, "faster", (json_int_t)faster,
				"no_verdict_possible", (json_int_t)undecided, "rate", (double)x / (double)T,
				"ci_low", lo, "ci_high", hi);
	}
out:
	for (size_t e = 0; e < E; e++)
		json_decref(docs[e]);
	free(docs);
	batch_clear(&b);
	return out;
}

static json_t *side_json(const struct placement_spec *s, int i)
{
	return json_pack("{s:s,s:s}", "boot", s->boot[i], "elf", s->elf[i]);
}

int placement_run(const struct placement_spec *s, json_t **out)
{
	struct strvec recs = STRVEC_INIT;
	struct placement_cells c, aa;
	json_t *execs = json_array(), *why = NULL;
	char *dir = NULL;
	bool pilot = !s->E || !s->K, same_live = true;
	size_t E0 = pilot ? s->pilot_E : s->E, K0 = pilot ? s->pilot_K : s->K, E = E0, K = K0;
	double t0, t_boot = 0, t_rep = 0;
	int rc;

	*out = NULL;
	placement_cells_init(&c, s->events.nr);
	placement_cells_init(&aa, s->events.nr);
	if (s->b_boots && E0 % 2)
		E0++;
	if ((rc = fs_temp_dir("lace-placement", &dir)))
		goto out;
	t0 = time_now_s();
	if ((rc = boots(s, dir, 0, E0, &recs, execs)))
		goto out;
	t_boot = time_now_s() - t0;
	t0 = time_now_s();
	if ((rc = replays(s, dir, 0, E0, K0, s->same_build, &recs, &c, execs, &same_live)))
		goto out;
	t_rep = time_now_s() - t0;
	if (pilot) {
		why = placement_design(s, &c, t_boot / (double)E0, t_rep / (double)(E0 * K0), &E, &K);
		if (E < E0)
			E = E0;
		t0 = time_now_s();
		if ((rc = boots(s, dir, E0, E, &recs, execs)))
			goto out;
		t_boot += time_now_s() - t0;
		t0 = time_now_s();
		/* the pilot's executions again with K draws (their first K0
		 * are the pilot's: the same seeds) */
		placement_cells_release(&c);
		placement_cells_init(&c, s->events.nr);
		if ((rc = replays(s, dir, 0, E, K, s->same_build, &recs, &c, execs, &same_live)))
			goto out;
		t_rep += time_now_s() - t0;
	}
	if (s->aa) {
		t0 = time_now_s();
		if ((rc = replays(s, dir, 0, E, K, true, &recs, &aa, execs, &same_live)))
			goto out;
		t_rep += time_now_s() - t0;
	}
	json_t *tr = NULL;
	if (s->aa_trials) {
		t0 = time_now_s();
		if (!(tr = trials(s, dir, E, K, &recs, &rc)))
			goto out;
		t_rep += time_now_s() - t0;
	}
	*out = json_schema_object("lace-placement");
	json_object_set_new(*out, "a", side_json(s, 0));
	json_object_set_new(*out, "b", side_json(s, 1));
	json_object_set_new(*out, "design", json_pack("{s:I,s:I,s:s,s:I,s:b,s:f,s:f,s:f}",
		"executions", (json_int_t)E, "draws", (json_int_t)K, "family", s->family, "seed",
		(json_int_t)s->seed, "b_boots", s->b_boots, "alpha", s->alpha, "margin_percent",
		s->margin, "target_percent", s->target));
	if (s->same_build)
		json_object_set_new(json_object_get(*out, "design"), "same_build", json_true());
	if (why)
		json_object_set_new(json_object_get(*out, "design"), "pilot", why);
	why = NULL;
	json_object_set_new(*out, "replay_equals_live", json_boolean(same_live));
	json_object_set_new(*out, "executions", execs);
	execs = NULL;
	json_object_set_new(*out, "events", placement_analysis(s, &c));
	if (s->aa) {
		json_t *a = json_object();
		json_object_set_new(a, "events", placement_analysis(s, &aa));
		json_object_set_new(*out, "a_vs_a", a);
	}
	if (tr)
		json_object_set_new(*out, "aa_trials", tr);
	json_object_set_new(*out, "cost", json_pack("{s:f,s:f}", "boot_seconds", t_boot,
						      "replay_seconds", t_rep));
out:
	if (dir) {
		char *keep = rc ? xstrdup(lace_error_msg()) : NULL;
		fs_remove_tree(dir);
		if (keep)
			lace_error_set(-rc, "%s", keep);
		free(keep);
	}
	free(dir);
	json_decref(execs);
	json_decref(why);
	strvec_clear(&recs);
	placement_cells_release(&c);
	placement_cells_release(&aa);
	return rc;
}
