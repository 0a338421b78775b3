/* The placement design; see placement.h. */
#include "pipeline/placement.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats/placement.h"
#include "measure/stats/stats.h"
#include "pipeline/selfexec.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/prng.h"
#include "util/run.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/xalloc.h"

void placement_spec_init(struct placement_spec *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->events);
	strvec_init(&s->primaries);
	strvec_init(&s->stat_opts);
	s->family = "function";
	s->seed = 1;
	s->alpha = 0.05;
	s->margin = 1;
	s->target = 1;
	s->pilot_E = 4;
	s->pilot_K = 6;
	s->k_max = 32;
	s->jobs = 1;
}

void placement_spec_release(struct placement_spec *s)
{
	strvec_clear(&s->events);
	strvec_clear(&s->primaries);
	strvec_clear(&s->stat_opts);
}

int placement_exec_side(const struct placement_spec *s, size_t e)
{
	return s->b_boots ? (int)(e % 2) : 0;
}

unsigned placement_exec_perturb(const struct placement_spec *s, size_t e)
{
	return (unsigned)(s->b_boots ? e / 2 : e);
}

/* "EVENT:k" into "EVENT" and the replay's side object */
static void event_parts(const char *name, char *base, size_t len, const char **side)
{
	const char *colon = strrchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : strlen(name);

	*side = !colon ? "counts" : !strcmp(colon, ":k") ? "kernel" : "user";
	snprintf(base, len, "%.*s", (int)n, name);
}

static void join(const struct strvec *v, struct strbuf *sb)
{
	for (size_t i = 0; i < v->nr; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", v->v[i]);
}

void placement_boot_argv(const struct placement_spec *s, size_t e, const char *rec,
			 struct strvec *argv)
{
	struct strbuf ev = STRBUF_INIT;
	unsigned p = placement_exec_perturb(s, e);

	join(&s->events, &ev);
	strvec_pushv(argv, (const char *[]){ "stat", "--backend", "qemu", "--kernel",
					     s->boot[placement_exec_side(s, e)], "-r", "1", "-j", "1",
					     "--record", rec, "-e", ev.buf, "--json", "--no-results",
					     NULL });
	if (p) {
		strvec_push(argv, "--qemu-perturb");
		strvec_pushf(argv, "%u", p);
	}
	strvec_pushv(argv, (const char **)s->stat_opts.v);
	strvec_push(argv, "--");
	for (size_t i = 0; s->argv && s->argv[i]; i++)
		strvec_push(argv, s->argv[i]);
	strbuf_release(&ev);
}

/* each execution's draws are its own (fresh layouts per execution) */
static uint64_t exec_seed(const struct placement_spec *s, size_t e, bool aa)
{
	return prng_mix(s->seed ^ prng_mix((uint64_t)e * 2 + aa + PRNG_GOLDEN)) >> 1;
}

void placement_replay_argv(const struct placement_spec *s, size_t e, size_t K, bool aa,
			   const char *rec, struct strvec *argv)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf ev = STRBUF_INIT;
	int side = placement_exec_side(s, e);

	for (size_t i = 0; i < s->events.nr; i++) {
		char base[64];
		const char *part;

		event_parts(s->events.v[i], base, sizeof(base), &part);
		if (strvec_find(&names, base) < 0)
			strvec_push(&names, base);
	}
	join(&names, &ev);
	strvec_pushv(argv, (const char *[]){ "replay", "--json", "-j", "1", "-e", ev.buf,
					     "--base", s->elf[side], "--family", s->family, NULL });
	if (!aa)
		strvec_pushv(argv, (const char *[]){ "--layout", s->elf[!side], NULL });
	if (s->pad_points)
		strvec_pushv(argv, (const char *[]){ "--pad-points", s->pad_points, NULL });
	strvec_push(argv, "--virtual");
	strvec_pushf(argv, "%zu", aa ? 2 * K : K);
	strvec_push(argv, "--seed");
	strvec_pushf(argv, "%llu", (unsigned long long)exec_seed(s, e, aa));
	strvec_push(argv, rec);
	strvec_clear(&names);
	strbuf_release(&ev);
}

/* ---- the cells ------------------------------------------------------------- */

void placement_cells_init(struct placement_cells *c, size_t nevents)
{
	memset(c, 0, sizeof(*c));
	c->nevents = nevents;
	c->d = xcalloc(nevents, sizeof(*c->d));
	c->a_sum = xcalloc(nevents, sizeof(*c->a_sum));
	c->b_sum = xcalloc(nevents, sizeof(*c->b_sum));
	c->equal = xcalloc(nevents, sizeof(*c->equal));
}

void placement_cells_release(struct placement_cells *c)
{
	for (size_t i = 0; i < c->nevents; i++)
		free(c->d[i]);
	free(c->d);
	free(c->exec);
	free(c->a_sum);
	free(c->b_sum);
	free(c->equal);
	memset(c, 0, sizeof(*c));
}

static const json_t *row_named(const json_t *replay, const char *name, bool suffix)
{
	size_t i, n = strlen(name);
	json_t *r;

	json_array_foreach(json_object_get(replay, "layouts"), i, r) {
		const char *l = json_string_value(json_object_get(r, "layout"));
		size_t ll = l ? strlen(l) : 0;

		if (l && (suffix ? ll > n && l[ll - n - 1] == '@' && !strcmp(l + ll - n, name)
				 : !strcmp(l, name)))
			return r;
	}
	return NULL;
}

static double row_count(const json_t *row, const char *event)
{
	char base[64];
	const char *part;

	event_parts(event, base, sizeof(base), &part);
	return lace_json_get_num(json_object_get(row, part), base);
}

double placement_log_ratio(double a, double b)
{
	if (a == b)
		return 0;
	if (a <= 0 || b <= 0)
		return log((b + 1) / (a + 1));
	return log(b / a);
}

int placement_cells_add(struct placement_cells *c, const struct placement_spec *s, size_t e,
			bool aa, const json_t *replay)
{
	return placement_cells_add_range(c, s, e, aa, replay, 1, SIZE_MAX);
}

int placement_cells_add_range(struct placement_cells *c, const struct placement_spec *s, size_t e,
			      bool aa, const json_t *replay, size_t first_k, size_t nk)
{
	int side = placement_exec_side(s, e), rc = 0;
	double *a = xcalloc(c->nevents + 1, sizeof(*a)), *b = xcalloc(c->nevents + 1, sizeof(*b));

	for (size_t k = first_k; k - first_k < nk && !rc; k++) {
		char own[32], other[32];
		const json_t *ra, *rb;

		if (aa) {
			snprintf(own, sizeof(own), "virtual-%zu", 2 * k - 1);
			snprintf(other, sizeof(other), "virtual-%zu", 2 * k);
			ra = row_named(replay, own, false);
			rb = row_named(replay, other, false);
		} else {
			snprintf(own, sizeof(own), "virtual-%zu", k);
			const json_t *r_own = row_named(replay, own, false), *r_other = row_named(replay, own, true);
			ra = side ? r_other : r_own;
			rb = side ? r_own : r_other;
			if (!r_own != !r_other) {
				rc = lace_error_set(EINVAL, "execution %zu: the replay has %s %s without "
						    "its pair", e, r_own ? "" : "the other build's", own);
				break;
			}
		}
		if (!ra || !rb) {
			if (k == first_k)
				rc = lace_error_set(EINVAL, "execution %zu: the replay has no virtual "
						    "layouts", e);
			break;
		}
		for (size_t v = 0; v < c->nevents && !rc; v++) {
			a[v] = row_count(ra, s->events.v[v]);
			b[v] = row_count(rb, s->events.v[v]);
			if (isnan(a[v]) || isnan(b[v]))
				rc = lace_error_set(EINVAL, "execution %zu: the replay has no %s",
						    e, s->events.v[v]);
		}
		if (!rc)
			placement_cells_add_counts(c, e, a, b);
	}
	free(a);
	free(b);
	return rc;
}

void placement_cells_add_counts(struct placement_cells *c, size_t e, const double *a, const double *b)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->exec = xrealloc(c->exec, c->cap * sizeof(*c->exec));
		for (size_t v = 0; v < c->nevents; v++)
			c->d[v] = xrealloc(c->d[v], c->cap * sizeof(**c->d));
	}
	for (size_t v = 0; v < c->nevents; v++) {
		c->d[v][c->n] = placement_log_ratio(a[v], b[v]);
		c->a_sum[v] += a[v];
		c->b_sum[v] += b[v];
		c->equal[v] += a[v] == b[v];
	}
	c->exec[c->n++] = e;
}

/* ---- the design --------------------------------------------------------- */

void placement_result_json(json_t *o, const struct placement_result *r)
{
	json_object_set_new(o, "executions", json_integer((json_int_t)r->E));
	json_object_set_new(o, "cells", json_integer((json_int_t)r->cells));
	json_object_set_new(o, "draws_per_execution", lace_json_real(r->k_harmonic));
	json_object_set_new(o, "effect_percent", lace_json_real(r->effect));
	json_object_set_new(o, "ci_low_percent", lace_json_real(r->ci_low));
	json_object_set_new(o, "ci_high_percent", lace_json_real(r->ci_high));
	json_object_set_new(o, "t", lace_json_real(r->t));
	json_object_set_new(o, "df", lace_json_real(r->df));
	json_object_set_new(o, "p", lace_json_real(r->p));
	json_object_set_new(o, "p_signflip", lace_json_real(r->p_signflip));
	json_object_set_new(o, "signflip_exact", json_boolean(r->signflip_exact));
	json_object_set_new(o, "normality_w", lace_json_real(r->normality_w));
	json_object_set_new(o, "normality_p", lace_json_real(r->normality_p));
	json_object_set_new(o, "tost_p", lace_json_real(r->tost_p));
	json_object_set_new(o, "mde_percent", lace_json_real(r->mde));
	json_object_set_new(o, "sd_execution_means", lace_json_real(r->sd_exec));
	json_object_set_new(o, "var_within", lace_json_real(r->var_within));
	json_object_set_new(o, "var_between", lace_json_real(r->var_between));
}

json_t *placement_design(const struct placement_spec *s, const struct placement_cells *pilot,
			 double boot_s, double cell_s, size_t *E, size_t *K)
{
	struct placement_result r;
	json_t *why = json_object();
	size_t e_min = s->pilot_E > 4 ? s->pilot_E : 4;

	*E = s->E ? s->E : e_min;
	*K = s->K ? s->K : s->pilot_K;
	if (!pilot->nevents || placement_analyze(pilot->d[0], pilot->exec, pilot->n, s->alpha, s->margin,
						 s->seed, &r)) {
		json_object_set_new(why, "error", json_string(lace_error_msg()));
		return why;
	}
	double vw = isnan(r.var_within) ? 0 : r.var_within;
	size_t ce, ck;
	double reach = placement_choose(r.var_between, vw, boot_s, cell_s, s->target, s->alpha, e_min,
					2, s->k_max, s->budget, &ce, &ck);
	if (s->b_boots && ce % 2)   /* half from each side */
		ce++;
	if (!s->E)
		*E = ce;
	if (!s->K)
		*K = ck;
	json_object_set_new(why, "event", json_string(s->primaries.nr ? s->primaries.v[0] : ""));
	json_object_set_new(why, "pilot_executions", json_integer((json_int_t)r.E));
	json_object_set_new(why, "pilot_draws", json_integer((json_int_t)s->pilot_K));
	json_object_set_new(why, "var_between", lace_json_real(r.var_between));
	json_object_set_new(why, "var_within", lace_json_real(vw));
	json_object_set_new(why, "boot_seconds", lace_json_real(boot_s));
	json_object_set_new(why, "draw_pair_seconds", lace_json_real(cell_s));
	json_object_set_new(why, "target_percent", lace_json_real(s->target));
	json_object_set_new(why, "budget_seconds", lace_json_real(s->budget));
	json_object_set_new(why, "reaches_percent", lace_json_real(
		placement_mde(sqrt(r.var_between + vw / (double)*K), *E, s->alpha)));
	json_object_set_new(why, "choice_reaches_percent", lace_json_real(reach));
	json_object_set_new(why, "executions", json_integer((json_int_t)*E));
	json_object_set_new(why, "draws", json_integer((json_int_t)*K));
	return why;
}

static json_t *analysis_of(const struct placement_spec *s, const struct placement_cells *c,
			   bool verdicts)
{
	json_t *arr = json_array();
	size_t np = 0;
	double *p = xcalloc(s->events.nr + 1, sizeof(*p)), *adj = xcalloc(s->events.nr + 1, sizeof(*adj));
	struct placement_result *res = xcalloc(s->events.nr + 1, sizeof(*res));
	bool *ok = xcalloc(s->events.nr + 1, sizeof(*ok));

	for (size_t v = 0; v < s->events.nr; v++) {
		ok[v] = !placement_analyze(c->d[v], c->exec, c->n, s->alpha, s->margin, s->seed, &res[v]);
		if (strvec_find(&s->primaries, s->events.v[v]) >= 0)
			p[np++] = ok[v] ? res[v].p : NAN;
	}
	stats_holm(p, np, adj);
	np = 0;
	for (size_t v = 0; v < s->events.nr; v++) {
		json_t *o = json_object();
		bool primary = strvec_find(&s->primaries, s->events.v[v]) >= 0;

		json_object_set_new(o, "event", json_string(s->events.v[v]));
		json_object_set_new(o, "primary", json_boolean(primary));
		json_object_set_new(o, "a_mean", lace_json_real(c->n ? c->a_sum[v] / (double)c->n : NAN));
		json_object_set_new(o, "b_mean", lace_json_real(c->n ? c->b_sum[v] / (double)c->n : NAN));
		json_object_set_new(o, "cells_equal", json_integer((json_int_t)c->equal[v]));
		if (ok[v])
			placement_result_json(o, &res[v]);
		else
			json_object_set_new(o, "error", json_string("fewer than 2 executions"));
		if (primary) {
			double h = adj[np++];
			json_object_set_new(o, "p_holm", lace_json_real(h));
			json_object_set_new(o, "margin_percent", lace_json_real(s->margin));
			if (verdicts)
				json_object_set_new(o, "verdict", json_string(placement_verdict_name(
					ok[v] ? placement_verdict(&res[v], h, s->alpha, s->margin)
					      : PV_NO_VERDICT)));
		}
		json_array_append_new(arr, o);
	}
	free(p);
	free(adj);
	free(res);
	free(ok);
	return arr;
}

json_t *placement_analysis(const struct placement_spec *s, const struct placement_cells *c)
{
	return analysis_of(s, c, true);
}
