/* `lace ab`: the per-event analysis of the paired rounds (the output is
 * ab_render.c's, as perf keeps its util/stat.c apart from util/stat-display.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/build_scope.h"
#include "measure/stats/render.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct lace_batch_run *find_side(const struct lace_batch *b, int round, char side)
{
	/* the last good run of that round and side (a retry would come later) */
	const struct lace_batch_run *hit = NULL;

	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (r->round == round && r->side == side && !r->warmup && r->fault == LACE_FAULT_NONE)
			hit = r;
	}
	return hit;
}

static int max_round(const struct lace_batch *b)
{
	int m = -1;

	for (size_t i = 0; i < b->nruns; i++)
		if (!b->runs[i].warmup && b->runs[i].round > m)
			m = b->runs[i].round;
	return m;
}

/* One side's value of series e in a run: an event (display scale), or
 * at e == nevents the run's wall time in seconds. */
static enum lace_count_status side_value(const struct lace_batch *b, const struct lace_batch_run *r,
					 size_t e, double *v)
{
	if (e == b->nevents) {
		*v = r->elapsed_s;
		return LACE_COUNT_OK;
	}
	*v = r->values[e] * b->events[e].scale;
	return r->status[e];
}

void ab_batch_scope(const struct lace_batch *b, struct build_scope *s)
{
	build_scope_from_json(json_object_get(b->header, "builds"), s);
}

void ab_layout_noise(const struct lace_batch *b, struct layout_noise *ln)
{
	layout_noise_from_json(ln, json_object_get(b->header, "layout_noise"));
}

bool ab_layout_folds(const struct lace_batch *b)
{
	struct build_scope s;
	struct layout_noise ln;

	ab_batch_scope(b, &s);
	ab_layout_noise(b, &ln);
	bool folds = build_scope_two(&s) && layout_noise_any(&ln);
	layout_noise_release(&ln);
	return folds;
}

struct lace_ab_event *ab_analyze(const struct lace_batch *b)
{
	/* one layout draw a side, for the whole batch: a known spread of
	 * layouts widens the intervals (stats_ratio_fold()) */
	struct layout_noise ln;
	bool folds = ab_layout_folds(b);
	size_t nser = b->nevents + 1; /* the events, then elapsed */
	struct lace_ab_event *out = xcalloc(nser, sizeof(*out));
	int rounds = max_round(b) + 1;
	double *a = xcalloc((size_t)rounds + 1, sizeof(double));
	double *bb = xcalloc((size_t)rounds + 1, sizeof(double));
	double *p = xcalloc(nser, sizeof(double));

	ab_layout_noise(b, &ln);
	for (size_t e = 0; e < nser; e++) {
		struct lace_ab_event *ev = &out[e];
		size_t n = 0, zero_both = 0, not_sup = 0, one_zero = 0;

		double fold = folds ? layout_noise_of(&ln, e < b->nevents ? b->events[e].name : "elapsed") : 0;

		if (e < b->nevents) {
			ev->name = b->events[e].name;
			ev->unit = b->events[e].unit;
			ev->simulated = b->events[e].simulated;
		} else {
			ev->name = "elapsed";
			ev->unit = "s";
			ev->simulated = render_elapsed_simulated(b);
		}
		for (int r = 0; r < rounds; r++) {
			const struct lace_batch_run *ra = find_side(b, r, 'A'), *rb = find_side(b, r, 'B');
			double va, vb;
			if (!ra || !rb)
				continue;
			enum lace_count_status sa = side_value(b, ra, e, &va), sb = side_value(b, rb, e, &vb);
			if (sa != LACE_COUNT_OK || sb != LACE_COUNT_OK) {
				not_sup += sa == LACE_COUNT_NOT_SUPPORTED || sb == LACE_COUNT_NOT_SUPPORTED;
				continue;
			}
			if (va == 0 && vb == 0) {
				zero_both++;
				continue;
			}
			if (!(va > 0) || !(vb > 0)) {
				one_zero++;
				continue;
			}
			a[n] = va;
			bb[n] = vb;
			n++;
		}
		ev->rounds = n;
		ev->p_adj = NAN;
		ev->r.ratio = ev->r.ci_low = ev->r.ci_high = ev->r.p = ev->r.tost_p = NAN;
		ev->r.log_mean = ev->r.log_sd = NAN;
		stats_summary(a, n, &ev->a);
		stats_summary(bb, n, &ev->b);
		p[e] = NAN;
		ev->verdict = LACE_VERDICT_UNDECIDED;
		if (e == b->nevents && ev->simulated && n) {
			/* every event emulated: elapsed is how long the host took
			 * to emulate A and B (valgrind, QEMU with its boot), not
			 * how fast either runs.  A verdict on it, or more rounds
			 * to settle one, would measure the emulator */
			ev->cost = true;
			ev->why = "the host's time to emulate: a cost, not a verdict";
			ev->r.n = n;
			ev->r.ratio = ev->b.mean / ev->a.mean;
		} else if (not_sup && !n) {
			ev->why = "<not supported>";
		} else if (zero_both && !n && !one_zero) {
			/* zero in every round on both sides: nothing changed */
			ev->why = "zero in every round";
			ev->r.n = ev->rounds = zero_both;
			ev->r.ratio = ev->r.ci_low = ev->r.ci_high = 1.0;
			ev->r.p = ev->p_adj = 1.0;
			ev->r.tost_p = 0.0;
			ev->verdict = LACE_VERDICT_EQUIVALENT;
			ev->a.mean = ev->b.mean = 0;
		} else if (one_zero) {
			ev->why = "zero on one side of some rounds (no ratio)";
		} else if (n < 2) {
			ev->why = "fewer than 2 paired rounds";
		} else if (ev->simulated && ev->a.sd == 0 && ev->b.sd == 0 && fold > 0 && e < b->nevents) {
			/* an exact count of two builds: with the layouts' known
			 * spread, whether it is more than layout noise is a test */
			stats_ratio_exact(ev->a.mean, ev->b.mean, n, b->margin, &ev->r);
			stats_ratio_fold(&ev->r, fold, b->confidence, b->margin);
			p[e] = ev->r.p;
		} else if (ev->simulated && ev->a.sd == 0 && ev->b.sd == 0) {
			/* A simulated count that repeats exactly: a t-test over
			 * identical rounds would give a zero-width CI and a verdict
			 * from nothing.  Report the exact difference; whether it is
			 * more than layout noise needs randomized-layout builds. */
			ev->deterministic = true;
			ev->why = "deterministic: the same count every round, so no CI or verdict; "
				  "compare with randomized-layout builds (lace study)";
			ev->r.n = n;
			ev->r.ratio = ev->b.mean / ev->a.mean;
		} else if (stats_ratio_ci(a, bb, n, b->confidence, b->margin, &ev->r) == 0) {
			/* wall time too: a layout that misses more runs longer */
			stats_ratio_fold(&ev->r, fold, b->confidence, b->margin);
			p[e] = ev->r.p;
		}
	}
	stats_holm(p, nser, p);
	for (size_t e = 0; e < nser; e++) {
		struct lace_ab_event *ev = &out[e];
		if (isnan(p[e]))
			continue;
		ev->p_adj = p[e];
		ev->verdict = stats_verdict(&ev->r, ev->p_adj, b->confidence, b->margin);
		if (ev->verdict == LACE_VERDICT_INCONCLUSIVE)
			ev->rounds_needed = stats_rounds_needed(&ev->r, b->confidence, b->margin);
	}
	layout_noise_release(&ln);
	free(a);
	free(bb);
	free(p);
	return out;
}

bool ab_all_decided(const struct lace_ab_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((ev[i].verdict == LACE_VERDICT_INCONCLUSIVE &&
		     /* the layouts' spread alone keeps it open: rounds cannot help */
		     !(ev[i].r.fold_sd > 0 && ev[i].rounds_needed == SIZE_MAX)) ||
		    (ev[i].verdict == LACE_VERDICT_UNDECIDED && ev[i].rounds < 2 && !ev[i].why))
			return false;
	return true;
}

size_t ab_paired_rounds(const struct lace_batch *b)
{
	size_t n = 0;
	int rounds = max_round(b) + 1;

	for (int r = 0; r < rounds; r++)
		n += find_side(b, r, 'A') && find_side(b, r, 'B');
	return n;
}
