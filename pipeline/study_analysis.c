/* lace study: noise floors, slopes and reading 4's verdicts (study_analysis.h). */
#include "pipeline/study_analysis.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "measure/stats/placement.h"
#include "measure/stats/stats.h"
#include "pipeline/placement.h"
#include "pipeline/study_stats.h"
#include "util/array.h"
#include "util/json.h"
#include "util/xalloc.h"

static const char *const front[] = {
	"instructions", "L1-icache-loads", "L1-icache-load-misses", "iTLB-loads", "iTLB-load-misses",
};
#define NFRONT (ARRAY_SIZE(front))

static double ev_mean(const json_t *row, const char *ev)
{
	return lace_json_get_num(json_object_get(json_object_get(row, "events"), ev), "mean");
}

static const json_t *row_by(const json_t *w, const char *config)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(w, "rows"), i, r) {
		const char *c = json_string_value(json_object_get(r, "config"));
		if (c && !strcmp(c, config))
			return r;
	}
	return NULL;
}

/* The values of one event over the randomized builds (NaN: not measured). */
static size_t shuffle_values(const json_t *w, const char *ev, double **out)
{
	const json_t *per = json_object_get(w, "shuffle_builds");
	size_t n = json_object_size(per), k = 0;
	const char *name;
	json_t *o;

	*out = xcalloc(n + 1, sizeof(double));
	json_object_foreach((json_t *)per, name, o)
		(*out)[k++] = ev_mean(o, ev);
	return k;
}

/* The layout noise floor: the largest |x - baseline| / baseline over the
 * randomized builds; min/max span baseline and the builds, the band the
 * figures draw, from the same measurements as the bars. */
static void noise_floor(json_t *w, const json_t *base_row)
{
	json_t *floor = json_object();
	for (size_t e = 0; e < NFRONT; e++) {
		double *x, base = ev_mean(base_row, front[e]);
		size_t n = shuffle_values(w, front[e], &x), k = 0;
		double lo = INFINITY, hi = -INFINITY, fl = 0;
		for (size_t i = 0; i < n; i++) {
			if (isnan(x[i]))
				continue;
			k++;
			lo = fmin(lo, x[i]);
			hi = fmax(hi, x[i]);
			if (base > 0)
				fl = fmax(fl, fabs(x[i] - base) / base);
		}
		json_t *o = json_object();
		json_object_set_new(o, "builds", json_integer((json_int_t)k));
		if (!k || isnan(base)) {
			json_object_set_new(o, "floor_pct", json_null());
		} else {
			json_object_set_new(o, "min", json_real(fmin(lo, base)));
			json_object_set_new(o, "max", json_real(fmax(hi, base)));
			json_object_set_new(o, "floor_pct", json_real(fl * 100));
		}
		json_object_set_new(floor, front[e], o);
		free(x);
	}
	json_object_set_new(w, "noise_floor", floor);
}

/* disabled - no tracepoint against hash faults, over the main size and
 * the slope points: slope = cost per fault, intercept = start-up. */
static void marginal(json_t *w)
{
	size_t np = json_array_size(json_object_get(w, "slope_points")) + 1;
	double *x = xcalloc(np, sizeof(double)), *y = xcalloc(np, sizeof(double));
	json_t *out = json_object();
	for (size_t e = 0; e < NFRONT; e++) {
		size_t k = 0, i;
		json_t *p;
		const json_t *a = row_by(w, "no tracepoint"), *b = row_by(w, "disabled");
		const json_t *hf = json_object_get(json_object_get(b, "counts"), "hash_faults");
		x[k] = lace_json_num(hf);
		y[k++] = ev_mean(b, front[e]) - ev_mean(a, front[e]);
		json_array_foreach(json_object_get(w, "slope_points"), i, p) {
			const json_t *pb = json_object_get(p, "disabled");
			hf = json_object_get(json_object_get(pb, "counts"), "hash_faults");
			x[k] = lace_json_num(hf);
			y[k++] = ev_mean(pb, front[e]) - ev_mean(json_object_get(p, "no tracepoint"), front[e]);
		}
		struct study_fit f;
		json_t *o = json_object();
		if (study_fit_line(x, y, k, &f) == 0) {
			json_object_set_new(o, "per_fault", lace_json_real(f.slope));
			json_object_set_new(o, "per_fault_se", lace_json_real(f.slope_se));
			json_object_set_new(o, "startup", lace_json_real(f.intercept));
			json_object_set_new(o, "startup_se", lace_json_real(f.intercept_se));
		} else {
			json_object_set_new(o, "not_measured",
					    json_string("fewer than 3 sizes measured on both builds"));
		}
		json_object_set_new(o, "points", json_integer((json_int_t)f.n));
		json_object_set_new(out, front[e], o);
	}
	json_object_set_new(w, "marginal", out);
	free(x);
	free(y);
}

/* ---- reading 4: the placement design (study_r4.h) ------------------------
 *
 * What the jobs stored (study_r4.c): per execution its live counts and its
 * replays (each {builds, rows}: row = block * builds + build, block 0 as
 * built, 1..K the draws, a row the values of q4's "events"); the family's
 * draws and the randomized builds on the first execution; each variant's
 * own live run.  Judged here as pipeline/placement.h's design with
 * measure/stats/placement.h, the kernel study's reading 4 alike: per
 * variant and event the cells ln(variant / baseline) of each execution's
 * paired draws, the t test on the executions' means, Holm over every
 * variant x primary event; A vs A first (the controls: a study whose A vs
 * A says slower or faster gives no verdicts); baseline as built among its
 * family's draws, reported whatever it is. */

static const json_t *q4_design(const json_t *w)
{
	return json_object_get(w, "design");
}

static double design_num(const json_t *w, const char *k)
{
	return lace_json_get_num(q4_design(w), k);
}

/* the column of event ev in the replays' rows, or -1 */
static long col_of(const json_t *w, const char *ev)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(w, "events"), i, e)
		if (!strcmp(json_string_value(e) ?: "", ev))
			return (long)i;
	return -1;
}

static double cell(const json_t *rep, size_t row, long col)
{
	return col < 0 ? NAN : lace_json_num(json_array_get(json_array_get(json_object_get(rep, "rows"), row),
							    (size_t)col));
}

/* a replay job's results, when it has rows */
static const json_t *replay_of(const json_t *exe, const char *key)
{
	const json_t *r = json_object_get(json_object_get(exe, "replays"), key);

	return json_object_get(r, "rows") ? r : NULL;
}

static size_t builds_of(const json_t *rep)
{
	return (size_t)json_integer_value(json_object_get(rep, "builds"));
}

/* the events judged: the primaries, then the estimates */
static size_t judged_events(const json_t *w, const char **ev, size_t max)
{
	size_t n = 0, i;
	json_t *e;

	json_array_foreach(json_object_get(q4_design(w), "primaries"), i, e)
		if (n < max)
			ev[n++] = json_string_value(e);
	json_array_foreach(json_object_get(q4_design(w), "estimates"), i, e)
		if (n < max)
			ev[n++] = json_string_value(e);
	return n;
}

static size_t nprimaries(const json_t *w)
{
	return json_array_size(json_object_get(q4_design(w), "primaries"));
}

/* The cells of key's replays over the executions: draw a_of(k) against
 * draw b_of(k) (row indices), k = 1..K, every event of ev. */
static void cells_of(const json_t *w, const char *key, const char *const *ev, size_t nev, bool aa,
		     struct placement_cells *c)
{
	size_t K = (size_t)design_num(w, "draws"), e;
	json_t *exe;
	double a[8], b[8];

	json_array_foreach(json_object_get(w, "executions"), e, exe) {
		const json_t *rep = replay_of(exe, key);
		size_t nb = builds_of(rep);

		for (size_t k = 1; rep && nb && k <= K; k++) {
			/* pairs: build 0 and 1 of block k; A vs A: draws 2k-1, 2k */
			size_t ra = aa ? 2 * k - 1 : k * nb, rb = aa ? 2 * k : k * nb + 1;
			bool ok = true;

			for (size_t v = 0; v < nev && v < ARRAY_SIZE(a); v++) {
				a[v] = cell(rep, ra, col_of(w, ev[v]));
				b[v] = cell(rep, rb, col_of(w, ev[v]));
				ok &= !isnan(a[v]) && !isnan(b[v]);
			}
			if (ok)
				placement_cells_add_counts(c, e, a, b);
		}
	}
}

struct q4_test {
	json_t *o;
	struct placement_result r;
	bool ok;
};

/* One event's analysis of cells c (column v) into t. */
static void analyze(const json_t *w, const struct placement_cells *c, size_t v, const char *ev,
		    bool primary, struct q4_test *t)
{
	t->ok = !placement_analyze(c->d[v], c->exec, c->n, design_num(w, "alpha"),
				   design_num(w, "margin_percent"), 1, &t->r);
	t->o = json_pack("{s:s,s:b,s:I,s:I}", "event", ev, "primary", primary, "cells", (json_int_t)c->n,
			 "cells_equal", (json_int_t)c->equal[v]);
	json_object_set_new(t->o, "a_mean", lace_json_real(c->n ? c->a_sum[v] / (double)c->n : NAN));
	json_object_set_new(t->o, "b_mean", lace_json_real(c->n ? c->b_sum[v] / (double)c->n : NAN));
	if (t->ok)
		placement_result_json(t->o, &t->r);
	else
		json_object_set_new(t->o, "error", json_string(c->n ? "fewer than 2 executions"
							       : "no cells: not measured"));
}

/* Holm over the tests t[0..n) (those with a p), then each one's verdict */
static void verdicts(const json_t *w, struct q4_test **t, size_t n)
{
	double *p = xcalloc(n + 1, sizeof(*p)), *adj = xcalloc(n + 1, sizeof(*adj));
	double alpha = design_num(w, "alpha"), margin = design_num(w, "margin_percent");
	size_t family = 0;

	for (size_t i = 0; i < n; i++) {
		p[i] = t[i]->ok ? t[i]->r.p : NAN;
		family += !isnan(p[i]);
	}
	stats_holm(p, n, adj);
	for (size_t i = 0; i < n; i++) {
		json_object_set_new(t[i]->o, "p_holm", lace_json_real(adj[i]));
		json_object_set_new(t[i]->o, "holm_family", json_integer((json_int_t)family));
		json_object_set_new(t[i]->o, "margin_percent", lace_json_real(margin));
		json_object_set_new(t[i]->o, "verdict", json_string(placement_verdict_name(
			t[i]->ok ? placement_verdict(&t[i]->r, adj[i], alpha, margin) : PV_NO_VERDICT)));
	}
	free(p);
	free(adj);
}

static void judge_variants(json_t *w)
{
	const char *ev[8];
	size_t nev = judged_events(w, ev, ARRAY_SIZE(ev)), np = nprimaries(w), nv, i, n = 0, m = 0;
	const json_t *vs = json_object_get(w, "variants");
	json_t *out = json_array(), *v;

	nv = json_array_size(vs);
	struct q4_test *t = xcalloc(nv * nev + 1, sizeof(*t)), **prim = xcalloc(nv * nev + 1, sizeof(*prim));
	json_array_foreach(vs, i, v) {
		struct placement_cells c;

		placement_cells_init(&c, nev);
		cells_of(w, json_string_value(v), ev, nev, false, &c);
		for (size_t k = 0; k < nev; k++, n++) {
			analyze(w, &c, k, ev[k], k < np, &t[n]);
			json_object_set(t[n].o, "variant", v);
			json_array_append_new(out, t[n].o);
			if (k < np)
				prim[m++] = &t[n];
		}
		placement_cells_release(&c);
	}
	verdicts(w, prim, m);
	json_object_set_new(w, "verdicts", out);
	free(t);
	free(prim);
}

static bool judge_aa(json_t *w)
{
	const char *ev[8];
	size_t np = nprimaries(w) < 8 ? nprimaries(w) : 8;
	struct q4_test t[8], *tp[8];
	struct placement_cells c;
	json_t *evs = json_array();
	bool ok = np > 0;

	judged_events(w, ev, ARRAY_SIZE(ev));
	placement_cells_init(&c, np);
	cells_of(w, "aa", ev, np, true, &c);
	for (size_t v = 0; v < np; v++) {
		analyze(w, &c, v, ev[v], true, &t[v]);
		tp[v] = &t[v];
		json_array_append_new(evs, t[v].o);
	}
	verdicts(w, tp, np);
	for (size_t v = 0; v < np; v++) {
		const char *vd = json_string_value(json_object_get(t[v].o, "verdict"));
		ok &= t[v].ok && strcmp(vd, "slower") && strcmp(vd, "faster");
	}
	placement_cells_release(&c);
	json_object_set_new(w, "aa", json_pack("{s:o,s:b}", "events", evs, "ok", ok));
	return ok;
}

/* Were the executions other executions?  Each one's live counts, their
 * range over the executions; and each replayed through its own build
 * (A vs A's row 0, baseline as built) against its live run. */
static void judge_executions(json_t *w)
{
	json_t *out = json_object(), *evs = json_object(), *exe, *e;
	size_t i, k, measured = 0, compared = 0, equal = 0;
	bool identical = true;

	json_array_foreach(json_object_get(w, "events"), k, e) {
		double lo = INFINITY, hi = -INFINITY;
		const char *name = json_string_value(e);

		json_array_foreach(json_object_get(w, "executions"), i, exe) {
			double x = ev_mean(exe, name);
			if (isnan(x))
				continue;
			lo = fmin(lo, x);
			hi = fmax(hi, x);
		}
		identical &= lo == hi;
		json_object_set_new(evs, name, json_pack("{s:o,s:o}", "min", lace_json_real(lo),
							 "max", lace_json_real(hi)));
	}
	json_array_foreach(json_object_get(w, "executions"), i, exe) {
		const json_t *aa = replay_of(exe, "aa");
		bool same = true;

		if (!json_object_get(exe, "events"))
			continue;
		measured++;
		if (!aa)
			continue;
		json_array_foreach(json_object_get(w, "events"), k, e)
			same &= cell(aa, 0, (long)k) == ev_mean(exe, json_string_value(e));
		compared++;
		equal += same;
	}
	json_object_set_new(out, "measured", json_integer((json_int_t)measured));
	json_object_set_new(out, "identical", json_boolean(measured > 1 && identical));
	json_object_set_new(out, "events", evs);
	json_object_set_new(out, "replay_compared", json_integer((json_int_t)compared));
	json_object_set_new(out, "replay_equal", json_integer((json_int_t)equal));
	json_object_set_new(w, "executions_check", out);
}

/* What two executions of two builds would have said: each variant's own
 * live run against the first execution replayed through it as built. */
static void judge_live(json_t *w)
{
	const json_t *exe0 = json_array_get(json_object_get(w, "executions"), 0);
	json_t *differ = json_array(), *o, *e;
	const char *name;
	size_t n = 0, same = 0, k;

	json_object_foreach(json_object_get(w, "live"), name, o) {
		const json_t *rep = replay_of(exe0, name);
		bool eq = true;

		if (!rep || !json_object_get(o, "events"))
			continue;
		json_array_foreach(json_object_get(w, "events"), k, e)
			eq &= cell(rep, 1, (long)k) == ev_mean(o, json_string_value(e));
		n++;
		same += eq;
		if (!eq)
			json_array_append_new(differ, json_string(name));
	}
	json_object_set_new(w, "live_compared", json_integer((json_int_t)n));
	json_object_set_new(w, "live_equal", json_integer((json_int_t)same));
	json_object_set_new(w, "live_differ", differ);
}

/* the family's draws of column col (rows 1.. of each chunk), baseline as
 * built (row 0 of the first) into *base */
static size_t family_draws(const json_t *w, long col, double **v, double *base)
{
	const json_t *f = json_object_get(w, "family");
	size_t n = 0;

	*v = NULL;
	*base = NAN;
	for (unsigned c = 0;; c++) {
		char key[32];
		snprintf(key, sizeof(key), "function-%u", c);
		const json_t *j = json_object_get(f, key), *rows = json_object_get(j, "rows");
		if (!j)
			break;
		if (!c)
			*base = cell(j, 0, col);
		for (size_t i = 1; i < json_array_size(rows); i++) {
			*v = xrealloc(*v, (n + 1) * sizeof(**v));
			(*v)[n++] = cell(j, i, col);
		}
	}
	return n;
}

/* x among the values vals[0..n) (NaNs skipped): two-sided rank p, the
 * counts below and above, the range, and x's quantile by mid-rank, (below
 * + (ties + 1) / 2) / (n + 1): uniform on (0, 1) when x is one more draw */
static json_t *rank_of(double x, const double *vals, size_t n)
{
	double *ref = xcalloc(n + 1, sizeof(*ref)), lo = INFINITY, hi = -INFINITY;
	struct lace_rank rk;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(vals[i]))
			continue;
		ref[m++] = vals[i];
		lo = fmin(lo, vals[i]);
		hi = fmax(hi, vals[i]);
	}
	double p = stats_rank_p(x, ref, m, LACE_ALT_TWO_SIDED, &rk);
	free(ref);
	return json_pack("{s:o,s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "value", lace_json_real(x), "draws",
			 (json_int_t)m, "below", (json_int_t)rk.below, "above", (json_int_t)rk.above, "p",
			 lace_json_real(p), "min", lace_json_real(lo), "max", lace_json_real(hi), "quantile",
			 lace_json_real(m ? ((double)rk.below + (double)(m - rk.below - rk.above + 1) / 2) /
					    (double)(m + 1) : NAN));
}

/* Baseline as built among its family's draws (the family fix: a family
 * whose draws cannot give the build measured is not its layout noise);
 * the randomized builds' quantiles among the draws and their uniformity
 * (KS), baseline among the randomized builds; every build as built on
 * the first execution, with its quantile, for the report's chart. */
static void judge_family(json_t *w)
{
	const char *ev[8];
	size_t np = nprimaries(w) < 8 ? nprimaries(w) : 8, i;
	const json_t *sh = json_object_get(w, "shuffles"), *exe0 = json_array_get(json_object_get(w, "executions"), 0);
	json_t *out = json_object(), *ranks = json_array(), *shj = json_array(), *built = json_array(), *v;
	size_t ns = json_array_size(json_object_get(sh, "names"));
	bool have_sh = json_object_get(sh, "rows") && builds_of(sh) == ns + 1;

	judged_events(w, ev, ARRAY_SIZE(ev));
	json_object_set_new(w, "family_checks", out);
	/* as built: baseline, the variants, the randomized builds */
	json_array_append_new(built, json_pack("{s:s,s:s,s:o}", "build", "baseline", "kind", "baseline",
					       "events", json_object()));
	json_array_foreach(json_object_get(w, "variants"), i, v)
		json_array_append_new(built, json_pack("{s:O,s:s,s:o}", "build", v, "kind", "variant",
						       "events", json_object()));
	json_array_foreach(json_object_get(sh, "names"), i, v)
		json_array_append_new(built, json_pack("{s:O,s:s,s:o}", "build", v, "kind", "randomized",
						       "events", json_object()));
	for (size_t k = 0; k < np; k++) {
		long col = col_of(w, ev[k]);
		double *d, base, *u = xcalloc(ns + 1, sizeof(*u)), *sv = xcalloc(ns + 1, sizeof(*sv));
		size_t nd = family_draws(w, col, &d, &base), j;
		json_t *b;

		if (nd)
			json_array_append_new(ranks, json_pack("{s:s,s:o}", "event", ev[k], "rank",
							       rank_of(base, d, nd)));
		/* built[first + s]: randomized build s, row 1 + s of its replay */
		size_t first = json_array_size(built) - ns;
		json_array_foreach(built, j, b) {
			const json_t *rep = replay_of(exe0, json_string_value(json_object_get(b, "build")));
			const char *kind = json_string_value(json_object_get(b, "kind"));
			double x = !strcmp(kind, "baseline") ? base : !strcmp(kind, "variant") ?
				   cell(rep, 1, col) : have_sh ? cell(sh, 1 + j - first, col) : NAN;
			json_t *o = json_object();

			json_object_set_new(o, "value", lace_json_real(x));
			if (nd && !isnan(x)) {
				json_t *rk = rank_of(x, d, nd);
				json_object_set(o, "quantile", json_object_get(rk, "quantile"));
				json_decref(rk);
			}
			json_object_set_new(json_object_get(b, "events"), ev[k], o);
			if (!strcmp(kind, "randomized") && nd && !isnan(x)) {
				u[j - first] = lace_json_get_num(o, "quantile");
				sv[j - first] = x;
			}
		}
		if (nd && have_sh && ns) {
			double D, p = stats_ks_uniform(u, ns, &D), mean = 0;
			for (size_t s = 0; s < ns; s++)
				mean += sv[s] / (double)ns;
			json_array_append_new(shj, json_pack("{s:s,s:I,s:o,s:o,s:o,s:o}", "event", ev[k],
				"builds", (json_int_t)ns, "ks_D", lace_json_real(D), "ks_p", lace_json_real(p),
				"mean_minus_baseline", lace_json_real(mean - base),
				"baseline_among_them", rank_of(base, sv, ns)));
		}
		if (nd) {
			json_t *rk = rank_of(base, d, nd);
			json_object_set_new(json_object_get(json_object_get(json_array_get(built, 0), "events"), ev[k]),
					    "band", json_pack("{s:o,s:o}", "low",
					    lace_json_real(fmin(base, lace_json_get_num(rk, "min"))), "high",
					    lace_json_real(fmax(base, lace_json_get_num(rk, "max")))));
			json_decref(rk);
		}
		free(d);
		free(u);
		free(sv);
	}
	json_object_set_new(out, "baseline_ranks", ranks);
	json_object_set_new(out, "randomized", shj);
	json_object_set_new(out, "as_built", built);
}

static void judge_q4(json_t *w)
{
	if (!q4_design(w))   /* results of an older study: nothing to judge */
		return;
	bool aa = judge_aa(w);
	judge_variants(w);
	judge_executions(w);
	judge_live(w);
	judge_family(w);
	json_object_set_new(w, "controls", json_pack("{s:b,s:b}", "aa", aa, "ok", aa));
}

static void floor_of(json_t *w, const char *base_config)
{
	if (json_object_get(w, "shuffle_builds"))
		noise_floor(w, row_by(w, base_config));
}

void study_analyse(json_t *res)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(json_object_get(res, "q1_tracepoint"), "workloads"), i, w) {
		floor_of(w, "disabled");
		marginal(w);
	}
	json_t *q4 = json_object_get(res, "q4_placement");
	if (q4)
		judge_q4(q4);
}
