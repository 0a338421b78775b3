/* lace ab's round loop; see ab_run.h. */
#include "measure/ab_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "measure/session_jobs.h"
#include "measure/stats/render.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/time.h"
#include "util/xalloc.h"

void ab_plan_init(struct ab_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->rounds = 10;
	p->warmup = 1;
	p->max_runs = 200;
	p->max_time = 600;
	p->margin = 0.01;
	p->confidence = 0.95;
}

/* the workload with every {elf} replaced by the shell-quoted path */
static char *substitute_elf(const char *workload, const char *elf)
{
	struct strbuf sb = STRBUF_INIT;
	char *argv1[] = { (char *)elf, NULL };
	char *quoted = session_join_argv(argv1);

	for (const char *p = workload; *p;) {
		if (!strncmp(p, "{elf}", 5)) {
			strbuf_addstr(&sb, quoted);
			p += 5;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	free(quoted);
	return strbuf_detach(&sb, NULL);
}

int ab_plan_workload(struct ab_plan *p, const char *base, const char *head, const char *workload)
{
	if (!strstr(workload, "{elf}"))
		return lace_error_set(EINVAL, "--workload must contain {elf}");
	for (const char *f = base; f; f = f == base ? head : NULL)
		if (access(f, X_OK))
			return lace_error_set(errno, "%s: %s", f, strerror(errno));
	p->cmd_a = p->owned_a = substitute_elf(workload, base);
	p->cmd_b = p->owned_b = substitute_elf(workload, head);
	p->elf_a = base;
	p->elf_b = head;
	return 0;
}

void ab_plan_same(struct ab_plan *p, char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, argv[i]);
	}
	p->argv = argv;
	p->cmd_a = p->owned_a = strbuf_detach(&sb, NULL);
	p->cmd_b = p->owned_b = xstrdup(p->cmd_a);
}

void ab_plan_release(struct ab_plan *p)
{
	free(p->owned_a);
	free(p->owned_b);
	p->owned_a = p->owned_b = NULL;
	layout_noise_release(&p->layout_noise);
}

/* the last value of a backend option given, or NULL */
static const char *backend_opt(const struct lace_session *s, const char *name)
{
	const char *v = NULL;

	for (size_t i = 0; i < s->nbackend_opts; i++)
		if (!strcmp(s->backend_opts[i].name, name))
			v = s->backend_opts[i].value;
	return v;
}

void ab_scope(const struct lace_session *s, const struct ab_plan *p, struct build_scope *sc)
{
	/* the qemu backend boots --kernel-a (or --kernel) for A, and
	 * --kernel-b for B, else A's kernel */
	const char *ka = backend_opt(s, "kernel-a"), *kb = backend_opt(s, "kernel-b");

	memset(sc, 0, sizeof(*sc));
	if (!ka)
		ka = backend_opt(s, "kernel");
	if (ka && kb)
		build_scope_files(sc, "kernel image", ka, kb);
	else if (kb)
		build_scope_add(sc, BUILDS_UNKNOWN, "A boots lace's default kernel, B --kernel-b %s", kb);
	if (p->elf_a && p->elf_b)
		build_scope_files(sc, "ELF", p->elf_a, p->elf_b);
	else if (!strcmp(p->cmd_a, p->cmd_b))
		build_scope_add(sc, BUILDS_SAME, "one command on both sides");
	else
		build_scope_add(sc, BUILDS_UNKNOWN, "different -A and -B commands, whose builds lace cannot "
						    "see: --base/--head would name them");
}

int ab_begin(struct lace_session *s, struct ab_plan *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct build_scope scope;

	if (!p->seed_given)
		p->seed = (unsigned long)time(NULL) ^ (unsigned long)getpid();
	strbuf_addf(&sb, "A: %s / B: %s", p->cmd_a, p->cmd_b);
	session_batch_begin(s, sb.buf);
	strbuf_release(&sb);
	s->batch.cmd_a = xstrdup(p->cmd_a);
	s->batch.cmd_b = xstrdup(p->cmd_b);
	s->batch.margin = p->margin;
	s->batch.confidence = p->confidence;
	json_object_set_new(s->batch.header, "seed", json_integer((json_int_t)p->seed));
	json_object_set_new(s->batch.header, "rounds",
			    p->autorounds ? json_string("auto") : json_integer(p->rounds));
	json_object_set_new(s->batch.header, "warmup", json_integer(p->warmup));
	/* a spread for an event not measured is a typo, not a no-op */
	for (size_t i = 0; i < p->layout_noise.n; i++) {
		const char *ev = p->layout_noise.v[i].event;
		size_t e = 0;
		while (e < s->batch.nevents && strcmp(s->batch.events[e].name, ev))
			e++;
		if (e == s->batch.nevents && strcmp(ev, "elapsed"))
			return lace_error_set(EINVAL, "--layout-noise names %s, which is not measured (-e)", ev);
	}
	/* in the header, so that lace report words a re-rendered batch alike */
	ab_scope(s, p, &scope);
	json_object_set_new(s->batch.header, "builds", build_scope_json(&scope));
	if (layout_noise_any(&p->layout_noise))
		json_object_set_new(s->batch.header, "layout_noise", layout_noise_json(&p->layout_noise));
	return session_results_open(s);
}

/* -r auto: every event decided (never before round 5: a CI from fewer
 * paired ratios is too wide to trust its decision) */
static bool ab_decided(const struct lace_session *s)
{
	struct lace_ab_event *ev = ab_analyze(&s->batch);
	bool done = ab_all_decided(ev, s->batch.nevents);

	free(ev);
	return done;
}

struct ab_progress {
	const struct ab_plan *p;
	int round;      /* the last measured round recorded ... */
	int nrecorded;  /* ... and how many of its two runs */
};

/* a run recorded: --stop-on-error, and -r auto's decision once both
 * sides of a round are in */
static bool ab_done(struct lace_session *s, const struct session_slot *slot,
		    const struct lace_run_result *res, void *ctx)
{
	struct ab_progress *a = ctx;

	if (res->fault != LACE_FAULT_NONE && s->stop_on_error && !slot->warmup)
		return true;
	if (slot->warmup)
		return false;
	if (slot->round != a->round) {
		a->round = slot->round;
		a->nrecorded = 0;
	}
	return ++a->nrecorded == 2 && a->p->autorounds && slot->round + 1 >= 5 && !session_stop &&
	       ab_decided(s);
}

int ab_run(struct lace_session *s, const struct ab_plan *p)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	char *sh_a[] = { "/bin/sh", "-c", (char *)p->cmd_a, NULL };
	char *sh_b[] = { "/bin/sh", "-c", (char *)p->cmd_b, NULL };
	char *const *argv_a = sh_a, *const *argv_b = sh_b;
	struct strvec words_a = STRVEC_INIT, words_b = STRVEC_INIT;
	long limit = p->autorounds ? p->max_runs : p->rounds;
	double t0 = time_now_s();
	struct ab_progress a = { p, -1, 0 };
	struct session_queue q;
	bool go = true;

	if (p->argv) {
		argv_a = argv_b = p->argv;
	} else if (s->set.model_host && !strcmp(s->set.model_host->name, "qemu")) {
		/* the guest runs the program itself: the host's shell (and
		 * what it would find in the host's PATH) is not there */
		strvec_split(&words_a, p->cmd_a);
		strvec_split(&words_b, p->cmd_b);
		argv_a = (char *const *)words_a.v;
		argv_b = (char *const *)words_b.v;
	}
	gsl_rng_set(rng, p->seed);
	session_queue_init(&q, s, 2 * (p->warmup + limit), ab_done, &a);
	for (long r = -p->warmup; r < limit && go; r++) {
		bool warm = r < 0;
		/* drawn every round, warmups too, so a seed gives one order */
		int b_first = gsl_rng_uniform(rng) < 0.5;
		if (p->autorounds && !warm && time_now_s() - t0 > p->max_time)
			break;
		for (int k = 0; k < 2 && go; k++) {
			char side = (k == 0) == b_first ? 'B' : 'A';
			if (s->progress)
				s->progress(&(struct session_progress){ .warmup = warm,
					.i = warm ? r + p->warmup + 1 : r + 1, .n = warm ? p->warmup : limit,
					.is_max = p->autorounds && !warm, .side = side });
			/* each side boots once a round: a round's place is its boot's */
			go = session_queue_push(&q, &(struct session_slot){
				.argv = side == 'A' ? argv_a : argv_b,
				.round = warm ? (int)(r + p->warmup) : (int)r, .side = side,
				.warmup = warm, .boot = r + p->warmup });
		}
	}
	session_queue_finish(&q);
	gsl_rng_free(rng);
	strvec_clear(&words_a);
	strvec_clear(&words_b);
	session_batch_end(s);
	return s->err;
}

int ab_exit_status(const struct lace_session *s)
{
	int rc = session_status(s);

	lace_error_clear();
	if (rc)
		return rc;
	size_t paired = ab_paired_rounds(&s->batch);
	if (paired < 2) {
		lace_error_set(EIO, "%zu rounds ran both A and B without a fault: "
			       "a comparison needs at least 2", paired);
		return LACE_EXIT_FAIL;
	}
	return LACE_EXIT_OK;
}
