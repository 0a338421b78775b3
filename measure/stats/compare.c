/* lace compare's analysis; see compare.h. */
#include "measure/stats/compare.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *common_field(const struct compare_side *s, size_t off);

struct batch_moments {
	size_t n;
	double mean, sd;
};

/* n, mean, sd of values[0..n) */
static void moments_of(const double *v, size_t n, struct batch_moments *m)
{
	struct lace_summary s;

	stats_summary(v, n, &s);
	m->n = n;
	m->mean = s.mean;
	m->sd = s.sd;
}

/* A batch's segments: its first and second half of runs (in the order
 * they ran) when it has at least 4, else the whole batch; a perf -r N
 * summary is one segment, from its mean and relative SEM with the given N
 * (sd = sem * sqrt(N)).  Halves let one batch per side show drift within
 * its session (a neighbour's load, a warming machine), which the runs'
 * spread alone would hide.  Returns the segments written (1 or 2). */
static size_t segments(const struct lace_import *im, const struct lace_import_event *e,
		       struct batch_moments *m)
{
	if (e->summary) {
		m->n = im->runs;
		m->mean = e->mean;
		m->sd = fabs(e->rel_sem * e->mean) * sqrt((double)im->runs);
		return 1;
	}
	if (e->n < 4) {
		moments_of(e->values, e->n, m);
		return 1;
	}
	moments_of(e->values, e->n / 2, &m[0]);
	moments_of(e->values + e->n / 2, e->n - e->n / 2, &m[1]);
	return 2;
}

/* Pool a side's batches: grand mean, the within- and between-segment
 * sums of squares, and the F test of the segment means. */
static void side_pool(const struct compare_side *side, const char *name, double confidence,
		      struct compare_side_stats *st)
{
	size_t k = 0, N = 0;
	struct batch_moments *m = xcalloc(2 * side->nbatches, sizeof(*m));
	double sum = 0, ssw = 0, ssb = 0;

	memset(st, 0, sizeof(*st));
	st->drift_f = st->drift_p = NAN;
	for (size_t i = 0; i < side->nbatches; i++) {
		const struct lace_import_event *e = import_find(&side->batches[i], name);
		size_t ns = segments(&side->batches[i], e, &m[k]);
		st->from_summary |= e->summary;
		for (size_t j = k; j < k + ns; j++) {
			N += m[j].n;
			sum += m[j].mean * (double)m[j].n;
		}
		k += ns;
	}
	st->segments = k;
	st->batches = side->nbatches;
	st->n = N;
	st->mean = N ? sum / (double)N : NAN;
	for (size_t i = 0; i < k; i++) {
		double d = m[i].mean - st->mean;
		ssw += (double)(m[i].n ? m[i].n - 1 : 0) * m[i].sd * m[i].sd;
		ssb += (double)m[i].n * d * d;
	}
	st->sd = N > 1 ? sqrt((ssw + ssb) / (double)(N - 1)) : 0;
	st->sem = N ? st->sd / sqrt((double)N) : NAN;
	st->df = N > 1 ? (double)(N - 1) : 0;
	if (k > 1 && N > k) {
		if (ssw > 0) {
			st->drift_f = (ssb / (double)(k - 1)) / (ssw / (double)(N - k));
			st->drift_p = gsl_cdf_fdist_Q(st->drift_f, (double)(k - 1), (double)(N - k));
		} else {
			st->drift_f = ssb > 0 ? INFINITY : 0;
			st->drift_p = ssb > 0 ? 0 : 1;
		}
		st->drift = st->drift_p < 1 - confidence;
		if (st->drift) {
			/* the segments are the units: the spread of their means */
			double mm = 0, v = 0;
			for (size_t i = 0; i < k; i++)
				mm += m[i].mean / (double)k;
			for (size_t i = 0; i < k; i++)
				v += (m[i].mean - mm) * (m[i].mean - mm) / (double)(k - 1);
			double sem_b = sqrt(v / (double)k);
			st->mean = mm;
			if (sem_b > st->sem)
				st->sem = sem_b;
			st->df = (double)(k - 1);
		}
	}
	free(m);
}

static bool side_all_summary_unsupported(const struct compare_side *s, const char *name)
{
	for (size_t i = 0; i < s->nbatches; i++) {
		const struct lace_import_event *e = import_find(&s->batches[i], name);
		if (e->summary || e->n)
			return false;
	}
	return true;
}

/* Every batch must have the event; "elapsed" (lace files only) is
 * compared when all have it and quietly left out otherwise. */
static int event_check(const struct compare *c, const char *name, bool *use)
{
	const struct compare_side *sides[2] = { &c->a, &c->b };

	*use = true;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nbatches; i++) {
			if (import_find(&sides[s]->batches[i], name))
				continue;
			if (!strcmp(name, "elapsed")) {
				*use = false;
				return 0;
			}
			return lace_error_set(EINVAL, "%s has %s, %s does not: compare batches of the same events",
					      c->a.batches[0].path, name, sides[s]->batches[i].path);
		}
	return 0;
}

static void event_analyze(struct compare *c, struct compare_event *ev)
{
	ev->p_adj = NAN;
	ev->verdict = LACE_VERDICT_UNDECIDED;
	ev->r.ratio = ev->r.ci_low = ev->r.ci_high = ev->r.p = ev->r.tost_p = NAN;
	if (side_all_summary_unsupported(&c->a, ev->name) || side_all_summary_unsupported(&c->b, ev->name)) {
		ev->why = "<not supported>";
		return;
	}
	side_pool(&c->a, ev->name, c->confidence, &ev->a);
	side_pool(&c->b, ev->name, c->confidence, &ev->b);
	if (ev->a.n < 2 || ev->b.n < 2) {
		ev->why = "fewer than 2 runs on a side";
		return;
	}
	if (ev->a.mean == 0 && ev->b.mean == 0 && ev->a.sd == 0 && ev->b.sd == 0) {
		ev->why = "zero in every run";
		ev->exact = true;
		ev->r.ratio = ev->r.ci_low = ev->r.ci_high = 1.0;
		ev->r.n = ev->a.n;
		ev->verdict = LACE_VERDICT_EQUIVALENT;
		return;
	}
	struct lace_side_mean a = { ev->a.n, ev->a.mean, ev->a.sem, ev->a.df };
	struct lace_side_mean b = { ev->b.n, ev->b.mean, ev->b.sem, ev->b.df };
	if (stats_ratio_unpaired(&a, &b, c->confidence, c->margin, &ev->r)) {
		ev->why = "a mean <= 0 (no ratio)";
		return;
	}
	/* one layout draw a side: a known spread of them widens the interval
	 * (and gives an exact simulated ratio one) before any verdict */
	stats_ratio_fold(&ev->r, compare_layout_fold(c, ev->name), c->confidence, c->margin);
	ev->exact = !(ev->r.log_se > 0);
	if (ev->exact && ev->simulated && ev->r.ratio != 1.0)
		/* as lace ab: a simulated count that repeats exactly differs by
		 * its layout, which randomized-layout builds must judge */
		ev->why = "deterministic: the same count every run, so no verdict; "
			  "compare with randomized-layout builds (lace study)";
}

/* One batch on a side is one session: its runs show how a session varies
 * inside itself, not how two sessions differ (another boot's layout, the
 * machine's load: 10-30 % batch to batch on a shared VM, where back-to-back
 * batches of `true` were called faster by the runs alone).  With >= 2
 * batches a side the pooling above measures that; with one, a verdict
 * needs the user's bound on it, and its interval must clear the bound
 * (symmetric on the log scale). */
static void session_cap(const struct compare *c, struct compare_event *ev)
{
	double bound = 1 + c->session_noise;

	if (ev->exact || (ev->verdict != LACE_VERDICT_SLOWER && ev->verdict != LACE_VERDICT_FASTER))
		return;
	if (c->a.nbatches > 1 && c->b.nbatches > 1)
		return;
	if (c->session_noise > 0 && (ev->r.ci_low > bound || ev->r.ci_high < 1 / bound))
		return;
	ev->verdict = LACE_VERDICT_INCONCLUSIVE;
	ev->session_capped = true;
}

/* every batch of both sides records a kernel build-id (or, !build_id, a command) */
static bool all_have(const struct compare *c, bool build_id)
{
	const struct compare_side *sides[2] = { &c->a, &c->b };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nbatches; i++) {
			const struct lace_import *im = &sides[s]->batches[i];
			if (build_id ? !im->has_kernel || !*im->kernel.build_id : !im->command)
				return false;
		}
	return true;
}

void compare_scope(const struct compare *c, struct build_scope *s)
{
	memset(s, 0, sizeof(*s));
	if (!all_have(c, true)) {
		bool perf = false;
		for (size_t i = 0; i < c->a.nbatches + c->b.nbatches; i++) {
			const struct lace_import *im = i < c->a.nbatches ? &c->a.batches[i]
									 : &c->b.batches[i - c->a.nbatches];
			perf |= !im->has_kernel;
		}
		build_scope_add(s, BUILDS_UNKNOWN, perf ? "perf stat output records no build-id"
						       : "a batch records no kernel build-id");
	} else {
		const char *ba = common_field(&c->a, offsetof(struct lace_kernel_id, build_id));
		const char *bb = common_field(&c->b, offsetof(struct lace_kernel_id, build_id));
		if (!ba || !bb)
			build_scope_add(s, BUILDS_DIFFERENT, "the batches of %s ran different kernel builds",
					!ba ? "A" : "B");
		else if (strcmp(ba, bb))
			build_scope_add(s, BUILDS_DIFFERENT, "kernel build-ids %.12s... and %.12s...", ba, bb);
		else
			build_scope_add(s, BUILDS_SAME, "kernel build-id %.12s... on both sides", ba);
	}
	/* user-space builds: a results file has the command, not its build */
	if (all_have(c, false)) {
		const char *cmd = c->a.batches[0].command;
		bool same = true;
		for (size_t i = 0; i < c->a.nbatches + c->b.nbatches; i++) {
			const struct lace_import *im = i < c->a.nbatches ? &c->a.batches[i]
									 : &c->b.batches[i - c->a.nbatches];
			same &= !strcmp(im->command, cmd);
		}
		if (same)
			build_scope_add(s, BUILDS_SAME, "the same command");
		else
			build_scope_add(s, BUILDS_UNKNOWN, "the batches ran different commands, and "
							   "results files do not record their builds");
	}
}

double compare_layout_fold(const struct compare *c, const char *event)
{
	return build_scope_two(&c->scope) ? layout_noise_of(&c->layout_noise, event) : 0;
}

int compare_analyze(struct compare *c)
{
	const struct lace_import *first = &c->a.batches[0];
	double *p;
	size_t n = 0;

	c->events = xcalloc(first->nevents + 1, sizeof(*c->events));
	p = xcalloc(first->nevents + 1, sizeof(double));
	for (size_t e = 0; e < first->nevents; e++) {
		bool use;
		if (event_check(c, first->events[e].name, &use)) {
			free(p);
			return -EINVAL;
		}
		if (!use)
			continue;
		struct compare_event *ev = &c->events[n++];
		ev->name = first->events[e].name;
		ev->unit = first->events[e].unit;
		ev->simulated = first->events[e].simulated;
	}
	/* an event in B1 that A1 lacks is as much a mismatch */
	const struct compare_side *sides[2] = { &c->a, &c->b };
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nbatches; i++)
			for (size_t e = 0; e < sides[s]->batches[i].nevents; e++) {
				const char *name = sides[s]->batches[i].events[e].name;
				if (!import_find(first, name) && strcmp(name, "elapsed")) {
					free(p);
					return lace_error_set(EINVAL,
							      "%s has %s, %s does not: compare batches of the same events",
							      sides[s]->batches[i].path, name, first->path);
				}
			}
	c->nevents = n;
	/* a spread for an event the batches lack is a typo, not a no-op */
	for (size_t i = 0; i < c->layout_noise.n; i++) {
		size_t e = 0;
		while (e < n && strcmp(c->events[e].name, c->layout_noise.v[i].event))
			e++;
		if (e == n) {
			free(p);
			return lace_error_set(EINVAL, "--layout-noise names %s, which the batches do not have",
					      c->layout_noise.v[i].event);
		}
	}
	compare_scope(c, &c->scope);
	for (size_t e = 0; e < n; e++) {
		event_analyze(c, &c->events[e]);
		p[e] = c->events[e].why || c->events[e].exact ? NAN : c->events[e].r.p;
	}
	stats_holm(p, n, p);
	for (size_t e = 0; e < n; e++) {
		struct compare_event *ev = &c->events[e];
		if (ev->why)
			continue;
		ev->p_adj = ev->exact ? ev->r.p : p[e];
		ev->verdict = stats_verdict(&ev->r, ev->p_adj, c->confidence, c->margin);
		session_cap(c, ev);
	}
	free(p);
	return 0;
}

void compare_release(struct compare *c)
{
	for (size_t i = 0; i < c->a.nbatches; i++)
		import_release(&c->a.batches[i]);
	for (size_t i = 0; i < c->b.nbatches; i++)
		import_release(&c->b.batches[i]);
	free(c->a.batches);
	free(c->b.batches);
	free(c->events);
	layout_noise_release(&c->layout_noise);
	memset(c, 0, sizeof(*c));
}

static const char *common_field(const struct compare_side *s, size_t off)
{
	const char *v = NULL;

	for (size_t i = 0; i < s->nbatches; i++) {
		if (!s->batches[i].has_kernel)
			continue;
		const char *f = (const char *)&s->batches[i].kernel + off;
		if (!*f)
			continue;
		if (v && strcmp(v, f))
			return NULL;
		v = f;
	}
	return v;
}

static bool sides_share(const struct compare *c, size_t off, const char **which)
{
	for (size_t i = 0; i < c->a.nbatches; i++)
		for (size_t j = 0; j < c->b.nbatches; j++) {
			const struct lace_import *x = &c->a.batches[i], *y = &c->b.batches[j];
			const char *fx = (const char *)&x->kernel + off, *fy = (const char *)&y->kernel + off;
			if (x->has_kernel && y->has_kernel && *fx && !strcmp(fx, fy)) {
				*which = fx;
				return true;
			}
		}
	return false;
}

void compare_session_notes(const struct compare *c, struct strbuf *sb)
{
	const char *w;

	build_scope_note(&c->scope, &c->layout_noise, "--layout-noise", sb);

	/* one session per side: its load, boot and layout differ from the
	 * other's by more than the kernel, and nothing here measures that */
	if (c->a.nbatches == 1 || c->b.nbatches == 1) {
		strbuf_addstr(sb, "one batch on a side: a difference between two sessions may be the sessions' "
				  "(load, boot), not the kernels'; alternate A B A B and give every batch\n");
		for (size_t e = 0; e < c->nevents; e++)
			if (c->events[e].session_capped) {
				if (c->session_noise > 0)
					strbuf_addf(sb, "inconclusive*: the interval does not clear --session-noise %.3g%%\n",
						    c->session_noise * 100);
				else
					strbuf_addstr(sb, "inconclusive*: significant within the sessions' runs, but "
							  "the sessions' own difference is unmeasured; give >= 2 batches "
							  "a side, or bound it with --session-noise PCT\n");
				break;
			}
	}

	if (sides_share(c, offsetof(struct lace_kernel_id, boot_id), &w))
		strbuf_addf(sb, "A and B share a boot (boot id %s): not a cross-reboot comparison\n", w);
	const char *ba = common_field(&c->a, offsetof(struct lace_kernel_id, build_id));
	const char *bb = common_field(&c->b, offsetof(struct lace_kernel_id, build_id));
	if (ba && bb && !strcmp(ba, bb))
		strbuf_addf(sb, "A and B ran the same kernel build (build-id %s): if you meant to compare "
				"kernels, B did not boot the other one\n", ba);
}
