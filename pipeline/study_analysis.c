/* lace study: noise floors, slopes and ranks (study_analysis.h). */
#include "pipeline/study_analysis.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "measure/stats/stats.h"
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

/* Each variant's same-execution difference from baseline (the recorded
 * run replayed through both builds) ranked among the randomized builds'
 * differences from baseline on the same execution: |v - b| against
 * {|s_i - b|}.  The magnitude, not the count, because the randomized
 * orders can all sit on one side of baseline's link order (which every
 * variant shares); then ranking the count says "unlike random orders",
 * not "unlike baseline".  Larger than all K has one-sided p = 1/(K+1).
 * Every variant x event is one test, and the p's are Holm-adjusted
 * together (stats_holm): a verdict needs the adjusted p at alpha. */
struct q4_test {
	json_t *o;
	double d;
	struct study_rank rk;
	bool same;   /* instructions: equal on one execution, not tested */
};

static const char *rank_verdict(const struct q4_test *t, double p_holm, size_t n)
{
	static char buf[160];

	if (t->same)
		return "the same execution: equal by construction";
	if (t->rk.verdict == STUDY_RANK_NONE)
		return "not compared";
	if (t->rk.below != t->rk.k)
		return "within the layout spread";
	if (t->rk.verdict == STUDY_RANK_TOO_FEW)
		return "beyond every randomized build's difference, too few builds to decide";
	if (p_holm > STUDY_ALPHA + 1e-12) {
		snprintf(buf, sizeof(buf), "beyond every randomized build's difference, "
			 "not significant after Holm over %zu tests", n);
		return buf;
	}
	return t->d > 0 ? "more than every randomized build differs"
			: "fewer than every randomized build differs";
}

static void ranks(json_t *w)
{
	const json_t *base = row_by(w, "baseline");
	size_t nrows = json_array_size(json_object_get(w, "rows")), nt = 0, i;
	struct q4_test *t = xcalloc(nrows * NFRONT + 1, sizeof(*t));
	double *p = xcalloc(nrows * NFRONT + 1, sizeof(*p)), *adj = xcalloc(nrows * NFRONT + 1, sizeof(*adj));
	json_t *r;

	json_array_foreach(json_object_get(w, "rows"), i, r) {
		const char *v = json_string_value(json_object_get(r, "variant"));
		if (!v || !strcmp(v, "baseline"))
			continue;
		json_t *out = json_object();
		for (size_t e = 0; e < NFRONT; e++) {
			double *x, b = ev_mean(base, front[e]), d = ev_mean(r, front[e]) - b;
			size_t n = shuffle_values(w, front[e], &x);
			for (size_t k = 0; k < n; k++)
				x[k] = fabs(x[k] - b);
			struct q4_test *q = &t[nt];
			/* replayed, every build runs the recorded instructions:
			 * their count is not a test (nor one of Holm's) */
			q->same = !strcmp(front[e], "instructions");
			study_rank_test(fabs(d), x, q->same ? 0 : n, STUDY_ALPHA, &q->rk);
			q->d = d;
			q->o = json_object();
			json_object_set_new(q->o, "difference", lace_json_real(d));
			json_object_set_new(q->o, "tested", json_boolean(!q->same));
			json_object_set_new(q->o, "builds", json_integer((json_int_t)q->rk.k));
			json_object_set_new(q->o, "smaller", json_integer((json_int_t)q->rk.below));
			json_object_set_new(q->o, "larger", json_integer((json_int_t)q->rk.above));
			json_object_set_new(q->o, "p", lace_json_real(q->rk.verdict == STUDY_RANK_NONE
								      ? NAN : q->rk.p_higher));
			json_object_set_new(out, front[e], q->o);
			free(x);
			nt++;
		}
		json_object_set_new(r, "rank", out);
	}
	/* Holm over the tests that have a p (a layout not measured has none) */
	size_t nh = 0;
	for (size_t k = 0; k < nt; k++)
		if (t[k].rk.verdict != STUDY_RANK_NONE)
			p[nh++] = t[k].rk.p_higher;
	stats_holm(p, nh, adj);
	for (size_t k = 0, h = 0; k < nt; k++) {
		double ph = t[k].rk.verdict != STUDY_RANK_NONE ? adj[h++] : NAN;
		json_object_set_new(t[k].o, "p_holm", lace_json_real(ph));
		json_object_set_new(t[k].o, "verdict", json_string(rank_verdict(&t[k], ph, nh)));
	}
	json_object_set_new(w, "holm_tests", json_integer((json_int_t)nh));
	json_object_set_new(w, "alpha", json_real(STUDY_ALPHA));
	json_object_set_new(w, "min_builds", json_integer((json_int_t)study_rank_min_builds(STUDY_ALPHA)));
	free(t);
	free(p);
	free(adj);
}

/* What two executions would have said: each build's own live run against
 * its replay of baseline's (equal when the execution does not depend on
 * the layout); baseline's own replay must give its recorded run exactly. */
static void live_vs_replay(json_t *w)
{
	size_t i, same = 0, n = 0;
	json_t *r, *differ = json_array();

	json_array_foreach(json_object_get(w, "rows"), i, r) {
		const json_t *live = json_object_get(r, "live");
		if (!json_object_get(live, "events") || !json_object_get(r, "events"))
			continue;
		bool eq = true;
		for (size_t e = 0; e < NFRONT; e++)
			eq &= ev_mean(live, front[e]) == ev_mean(r, front[e]);
		json_object_set_new(r, "live_equals_replay", json_boolean(eq));
		if (!strcmp(json_string_value(json_object_get(r, "variant")) ?: "", "baseline")) {
			json_object_set_new(w, "replay_equals_live", json_boolean(eq));
			continue;
		}
		n++;
		same += eq;
		if (!eq)
			json_array_append(differ, json_object_get(r, "variant"));
	}
	json_object_set_new(w, "live_compared", json_integer((json_int_t)n));
	json_object_set_new(w, "live_equal", json_integer((json_int_t)same));
	json_object_set_new(w, "live_differ", differ);
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
	if (q4) {
		floor_of(q4, "baseline");
		ranks(q4);
		live_vs_replay(q4);
	}
}
