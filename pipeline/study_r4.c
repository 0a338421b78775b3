/* Reading 4 of lace study: its jobs (study_r4.h). */
#include "pipeline/study_r4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

/* Replay refuses a layout when more than this share of the executed
 * instructions is carried over only approximately (code a variant adds or
 * changes, mapped by offset).  We keep lace replay's own default and do
 * not raise it: counts from code that was not carried exactly are partly
 * the mapping's guess, and the effects judged here are fractions of a per
 * cent, so such a variant is "not measured" with replay's reason rather
 * than given a number the test cannot vouch for; the share that was
 * approximate (below the limit) is kept with each replay. */
#define MAX_APPROX_PCT 1.0
/* characters of LACE_PERTURB added per execution */
#define PERTURB_STEP 16
/* the family's draws per replay job: they spread over the cores */
#define FAMILY_CHUNK 250

/* each execution's draws are its own (fresh layouts per execution); A vs
 * A's another seed's; the family's chunks theirs */
static unsigned long long pair_seed(unsigned e)
{
	return 1000 + 2ull * e;
}

static unsigned long long aa_seed(unsigned e)
{
	return 1001 + 2ull * e;
}

static char *bin_of(const struct study_r4_spec *s, const char *variant)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s/%s/hackbench", s->variants_dir, variant);
	return strbuf_detach(&p, NULL);
}

/* a lace stat job of hackbench on variant, simulated, into dest's
 * "events"; env: one "K=V" or NULL.  Returns the job. */
static size_t live_job(struct study_jobs *q, json_t *dest, const struct study_r4_spec *s,
		       const char *variant, const char *env, const char *what)
{
	char *bin = bin_of(s, variant);
	struct strvec cmd = STRVEC_INIT;

	strvec_push(&cmd, bin);
	strvec_split(&cmd, s->args);
	/* the recordings must be the simulator's, whatever the other
	 * readings' backend, and the variants' own runs are compared with
	 * their replays: all of them simulated */
	size_t job = study_jobs_add_stat(q, dest, "events", NULL, "sim", s->events, 1, cmd.v, env, what);
	strvec_clear(&cmd);
	free(bin);
	return job;
}

/* a replay job of rec (recorded by job `after`) into a new object
 * dest[key]; args: the layouts and draws */
static void replay_job(struct study_jobs *q, json_t *dest, const char *key, const char *rec,
		       size_t after, const struct strvec *args, const struct study_r4_spec *s,
		       const char *what)
{
	json_t *o = json_object();

	json_object_set_new(dest, key, o);
	study_jobs_add_replay(q, o, rec, (const char *const *)args->v, s->events, MAX_APPROX_PCT, after,
			      what);
}

static void draws_args(struct strvec *a, unsigned long long k, unsigned long long seed)
{
	strvec_pushv(a, (const char *[]){ "--family", "function", "--virtual", NULL });
	strvec_pushf(a, "%llu", k);
	strvec_push(a, "--seed");
	strvec_pushf(a, "%llu", seed);
}

/* the first execution through >= 1,000 draws of baseline's family, in
 * chunks (row 0 of each: baseline as built), and through the randomized
 * builds as built (row 0: baseline) */
static void queue_family(struct study_jobs *q, json_t *w, const struct study_r4_spec *s, const char *rec,
			 size_t after)
{
	json_t *f = json_object(), *sh = json_object(), *names = json_array();
	unsigned n = 0;
	size_t i;
	json_t *v;

	json_object_set_new(w, "family", f);
	for (unsigned c = 0; n < s->family_draws; c++) {
		unsigned k = s->family_draws - n < FAMILY_CHUNK ? s->family_draws - n : FAMILY_CHUNK;
		struct strvec a = STRVEC_INIT;
		char key[32], what[96];

		snprintf(key, sizeof(key), "function-%u", c);
		snprintf(what, sizeof(what), "lace replay: baseline's function-family draws, part %u", c + 1);
		draws_args(&a, k, 77 + c);
		replay_job(q, f, key, rec, after, &a, s, what);
		json_object_set_new(json_object_get(f, key), "seed", json_integer(77 + c));
		strvec_clear(&a);
		n += k;
	}
	if (!json_array_size(s->shuffles))
		return;
	struct strvec a = STRVEC_INIT;
	json_array_foreach(s->shuffles, i, v) {
		char *bin = bin_of(s, json_string_value(v));

		strvec_pushv(&a, (const char *[]){ "--layout", bin, NULL });
		json_array_append(names, v);
		free(bin);
	}
	json_object_set_new(w, "shuffles", sh);
	json_object_set_new(sh, "names", names);
	study_jobs_add_replay(q, sh, rec, (const char *const *)a.v, s->events, MAX_APPROX_PCT, after,
			      "lace replay: the randomized builds as built");
	strvec_clear(&a);
}

static json_t *str_array(const char *csv)
{
	struct strvec v = STRVEC_INIT;
	json_t *a = json_array();

	strvec_split(&v, csv);
	for (size_t i = 0; i < v.nr; i++)
		json_array_append_new(a, json_string(v.v[i]));
	strvec_clear(&v);
	return a;
}

void study_r4_queue(struct study_jobs *q, json_t *res, const struct study_r4_spec *s)
{
	json_t *w = json_object(), *d = json_object(), *ex = json_array(), *live = json_object();
	char *events = xstrdup(s->events);
	size_t i;
	json_t *v;

	for (char *c = events; *c; c++)   /* the events as words */
		*c = *c == ',' ? ' ' : *c;
	json_object_set_new(res, "q4_placement", w);
	json_object_set_new(w, "workload", json_sprintf("hackbench %s", s->args));
	json_object_set_new(w, "recorded_on", json_string("baseline"));
	json_object_set_new(w, "max_approx_pct", json_real(MAX_APPROX_PCT));
	json_object_set_new(w, "events", str_array(events));
	free(events);
	json_object_set_new(w, "design", d);
	json_object_set_new(d, "executions", json_integer(s->executions));
	json_object_set_new(d, "draws", json_integer(s->draws));
	json_object_set_new(d, "family", json_string("function"));
	json_object_set_new(d, "family_draws", json_integer(s->family_draws));
	json_object_set_new(d, "primaries", str_array("L1-icache-load-misses iTLB-load-misses"));
	json_object_set_new(d, "estimates", str_array("L1-icache-loads iTLB-loads"));
	json_object_set_new(d, "alpha", json_real(0.05));
	json_object_set_new(d, "margin_percent", json_real(1.0));
	json_object_set_new(d, "perturbation", json_string("LACE_PERTURB"));
	json_object_set_new(d, "perturbation_step", json_integer(PERTURB_STEP));
	json_object_set(w, "variants", (json_t *)s->variants);
	json_object_set_new(w, "executions", ex);
	json_object_set_new(w, "live", live);

	for (unsigned e = 0; e < s->executions; e++) {
		json_t *o = json_object(), *reps = json_object();
		struct strbuf env = STRBUF_INIT, rec = STRBUF_INIT, what = STRBUF_INIT;

		json_array_append_new(ex, o);
		json_object_set_new(o, "execution", json_integer(e));
		json_object_set_new(o, "env_chars", json_integer(e * PERTURB_STEP));
		json_object_set_new(o, "seed", json_integer((json_int_t)pair_seed(e)));
		json_object_set_new(o, "aa_seed", json_integer((json_int_t)aa_seed(e)));
		strbuf_addf(&rec, "hackbench-%u.lrec", e);
		json_object_set_new(o, "recording", json_sprintf("runs/%s", rec.buf));
		json_object_set_new(o, "replays", reps);
		strbuf_reset(&rec);
		strbuf_addf(&rec, "%s/hackbench-%u.lrec", s->runs_dir, e);
		unlink(rec.buf);
		strbuf_addstr(&env, "LACE_PERTURB=");
		for (unsigned c = 0; c < e * PERTURB_STEP; c++)
			strbuf_addch(&env, 'x');
		strbuf_addf(&what, "hackbench %s on baseline (sim, execution %u, recorded)", s->args, e);
		size_t job = live_job(q, o, s, "baseline", env.buf, what.buf);
		study_jobs_record(q, job, rec.buf);
		/* every variant's draws paired with baseline's, one job each */
		json_array_foreach(s->variants, i, v) {
			const char *name = json_string_value(v);
			char *bin = bin_of(s, name);
			struct strvec a = STRVEC_INIT;

			strvec_pushv(&a, (const char *[]){ "--layout", bin, NULL });
			draws_args(&a, s->draws, pair_seed(e));
			strbuf_reset(&what);
			strbuf_addf(&what, "lace replay: execution %u, baseline and %s", e, name);
			replay_job(q, reps, name, rec.buf, job, &a, s, what.buf);
			strvec_clear(&a);
			free(bin);
		}
		/* A vs A: 2K draws of baseline, draw 2k-1 against 2k */
		struct strvec a = STRVEC_INIT;
		draws_args(&a, 2ull * s->draws, aa_seed(e));
		strbuf_reset(&what);
		strbuf_addf(&what, "lace replay: execution %u, A vs A", e);
		replay_job(q, reps, "aa", rec.buf, job, &a, s, what.buf);
		strvec_clear(&a);
		if (!e)
			queue_family(q, w, s, rec.buf, job);
		strbuf_release(&env);
		strbuf_release(&rec);
		strbuf_release(&what);
	}
	/* each variant's own run: does the execution depend on the build? */
	json_array_foreach(s->variants, i, v) {
		json_t *o = json_object();
		struct strbuf what = STRBUF_INIT;

		json_object_set_new(live, json_string_value(v), o);
		strbuf_addf(&what, "hackbench %s on %s (sim)", s->args, json_string_value(v));
		live_job(q, o, s, json_string_value(v), NULL, what.buf);
		strbuf_release(&what);
	}
}
