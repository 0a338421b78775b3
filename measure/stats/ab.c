/* `lace ab`: per-event analysis of the paired rounds and its output. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

struct lace_ab_event *ab_analyze(const struct lace_batch *b)
{
	size_t nser = b->nevents + 1; /* the events, then elapsed */
	struct lace_ab_event *out = xcalloc(nser, sizeof(*out));
	int rounds = max_round(b) + 1;
	double *a = xcalloc((size_t)rounds + 1, sizeof(double));
	double *bb = xcalloc((size_t)rounds + 1, sizeof(double));
	double *p = xcalloc(nser, sizeof(double));

	for (size_t e = 0; e < nser; e++) {
		struct lace_ab_event *ev = &out[e];
		size_t n = 0, zero_both = 0, not_sup = 0, one_zero = 0;

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
	free(a);
	free(bb);
	free(p);
	return out;
}

bool ab_all_decided(const struct lace_ab_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].verdict == LACE_VERDICT_INCONCLUSIVE ||
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

static void more_rounds(struct strbuf *sb, const struct lace_ab_event *ev)
{
	if (ev->verdict != LACE_VERDICT_INCONCLUSIVE)
		return;
	if (ev->rounds_needed == SIZE_MAX)
		strbuf_addstr(sb, " (the change sits on the margin: more rounds are unlikely to settle it)");
	else if (ev->rounds_needed > ev->rounds)
		strbuf_addf(sb, " (~%zu more round%s likely to settle it)", ev->rounds_needed - ev->rounds,
			    ev->rounds_needed - ev->rounds == 1 ? "" : "s");
	else
		strbuf_addstr(sb, " (a few more rounds likely settle it)");
}


void render_mean_format(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "s"))
		snprintf(buf, len, "%.6f", v);
	else if (v != 0 && fabs(v) < 1)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/* hyperfine's "B is 1.24 ± 0.01 times slower than A" (± half the CI of
 * the factor); "" when there is no ratio. */
static void factor_text(struct strbuf *sb, const struct lace_ab_event *x, const char *pm_sign)
{
	double f, pm;
	int dir = stats_factor(&x->r, &f, &pm);

	if (x->rounds < 2 || isnan(f))
		return;
	/* enough digits that the ± is not 0.00 */
	int dec = pm >= 0.005 || pm == 0 ? 2 : pm >= 0.0005 ? 3 : 4;
	if (dir == 0)
		strbuf_addf(sb, "B is as A (%.*f %s %.*f times)", dec, f, pm_sign, dec, pm);
	else
		strbuf_addf(sb, "B is %.*f %s %.*f times %s than A", dec, f, pm_sign, dec, pm,
			    dir > 0 ? "slower" : "faster");
}

/* what the elapsed row measured; the qemu backend boots a guest per run */
static const char *ab_elapsed_source(const struct lace_batch *b)
{
	if (!render_elapsed_simulated(b))
		return "wall clock of the native runs";
	return b->backend && strstr(b->backend, "qemu (")
		? "wall clock of the simulator's runs under QEMU (boot included), not native time: "
		  "the cost of emulating, its mean per round, never a verdict nor a reason for more rounds"
		: "wall clock of the simulator's runs under valgrind, not native time: "
		  "the cost of emulating, its mean per round, never a verdict nor a reason for more rounds";
}

static void render_text(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev)
{
	char faults[512];
	int conf = (int)lround(b->confidence * 100);
	size_t nser = b->nevents + 1;

	fprintf(out, "\n lace ab: %zu paired rounds, %s, margin +-%.2g%%, %d%% confidence\n",
		ab_paired_rounds(b), b->backend ? b->backend : "perf_event", b->margin * 100, conf);
	fprintf(out, "   A: %s\n   B: %s\n\n", b->cmd_a ? b->cmd_a : "", b->cmd_b ? b->cmd_b : "");
	fprintf(out, "  %-26s %-4s %14s %7s %14s %7s %9s  %-22s %9s  %s\n", "event", "unit", "A mean", "sd",
		"B mean", "sd", "B/A", "CI", "p (Holm)", "verdict");
	for (size_t e = 0; e < nser; e++) {
		const struct lace_ab_event *x = &ev[e];
		char label[160], ci[64] = "", pbuf[32] = "", am[48], bm[48];
		struct strbuf v = STRBUF_INIT;
		snprintf(label, sizeof(label), "%s%s", x->name, x->simulated ? " [sim]" : "");
		if (x->cost) {
			render_mean_format(am, sizeof(am), x->a.mean, x->unit);
			render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
			fprintf(out, "  %-26s %-4s %14s %6.2f%% %14s %6.2f%% %+8.2f%%  %-22s %9s  %s\n", label,
				x->unit, am, x->a.mean ? 100 * x->a.sd / x->a.mean : 0, bm,
				x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100, "cost", "",
				"none (time to emulate, not a verdict)");
			continue;
		}
		if (x->why && !x->deterministic && x->verdict != LACE_VERDICT_EQUIVALENT) {
			fprintf(out, "  %-26s %s\n", label, x->why);
			continue;
		}
		if (x->deterministic) {
			snprintf(ci, sizeof(ci), "exact");
		} else if (x->rounds >= 2) {
			snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", (x->r.ci_low - 1) * 100,
				 (x->r.ci_high - 1) * 100);
			if (x->p_adj < 1e-4)
				snprintf(pbuf, sizeof(pbuf), "<0.0001");
			else
				snprintf(pbuf, sizeof(pbuf), "%.4f", x->p_adj);
		}
		if (x->deterministic)
			strbuf_addstr(&v, "none (deterministic count)");
		else
			strbuf_addstr(&v, stats_verdict_name(x->verdict));
		more_rounds(&v, x);
		if (x->why && !x->deterministic)
			strbuf_addf(&v, " (%s)", x->why);
		render_mean_format(am, sizeof(am), x->a.mean, x->unit);
		render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
		fprintf(out, "  %-26s %-4s %14s %6.2f%% %14s %6.2f%% %+8.2f%%  %-22s %9s  %s\n", label,
			x->unit, am, x->a.mean ? 100 * x->a.sd / x->a.mean : 0, bm,
			x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100, ci, pbuf, v.buf);
		strbuf_release(&v);
	}
	/* the same ratios as factors, as hyperfine and pyperf say them */
	bool any = false;
	for (size_t e = 0; e < nser; e++) {
		struct strbuf f = STRBUF_INIT;
		if (!ev[e].why || ev[e].verdict == LACE_VERDICT_EQUIVALENT)
			factor_text(&f, &ev[e], "±");
		if (f.len) {
			if (!any)
				fputs("\n B relative to A (± half the CI of the factor):\n", out);
			any = true;
			fprintf(out, "  %-26s %s\n", ev[e].name, f.buf);
		}
		strbuf_release(&f);
	}
	for (size_t e = 0; e < nser; e++)
		if (ev[e].deterministic) {
			fputs("\n deterministic: simulated counts that repeat exactly; their B/A is exact and\n"
			      " repeats add no evidence, so no CI or verdict is given. Whether such a\n"
			      " difference is more than layout noise needs randomized-layout builds\n"
			      " (lace build --shuffle K, K >= 19 for 5%; lace study does this).\n", out);
			break;
		}
	fprintf(out, "\n slower/faster: B differs from A by more than the margin (whole CI beyond it, Holm-adjusted p < %.2g);\n"
		     " equivalent: the whole CI lies within the margin; sd: run-to-run standard deviation.\n"
		     " elapsed: %s.\n",
		1 - b->confidence,
		ab_elapsed_source(b));
	batch_fault_summary(b, faults, sizeof(faults));
	if (*faults)
		fprintf(out, " %s\n", faults);
	if (b->interrupted)
		fprintf(out, " interrupted: verdicts from the rounds measured before the signal\n");
	else if (!b->finished)
		fprintf(out, " the batch did not finish (no end record): verdicts from the rounds it wrote\n");
}

static void render_md(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev)
{
	char faults[512];
	int conf = (int)lround(b->confidence * 100);

	fprintf(out, "#### lace ab: %zu paired rounds, margin ±%.2g%%, %d%% CI\n\n", ab_paired_rounds(b),
		b->margin * 100, conf);
	struct strbuf hd = STRBUF_INIT;

	strbuf_addstr(&hd, "- A: ");
	strbuf_add_md_code(&hd, b->cmd_a ? b->cmd_a : "", 0);
	strbuf_addstr(&hd, "\n- B: ");
	strbuf_add_md_code(&hd, b->cmd_b ? b->cmd_b : "", 0);
	strbuf_addstr(&hd, "\n- machine: ");
	strbuf_add_md(&hd, b->machine ? b->machine : "");
	fputs(hd.buf, out);
	strbuf_release(&hd);
	fprintf(out, "\n- backend: %s; A and B alternate in random order each round\n- elapsed: %s\n\n",
		b->backend ? b->backend : "",
		ab_elapsed_source(b));
	fprintf(out, "| event | A mean (σ) | B mean (σ) | B/A change [%d%% CI] | factor | verdict |\n|---|---:|---:|---:|---|---|\n",
		conf);
	for (size_t e = 0; e < b->nevents + 1; e++) {
		const struct lace_ab_event *x = &ev[e];
		struct strbuf v = STRBUF_INIT, f = STRBUF_INIT, nm = STRBUF_INIT, wy = STRBUF_INIT;
		char am[48], bm[48];
		strbuf_addstr(&v, stats_verdict_name(x->verdict));
		more_rounds(&v, x);
		strbuf_add_md(&nm, x->name);
		if (x->cost) {
			render_mean_format(am, sizeof(am), x->a.mean, x->unit);
			render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
			fprintf(out, "| %s (sim) | %s s | %s s | %+.2f%% (cost) | | %s |\n", nm.buf, am, bm,
				(x->r.ratio - 1) * 100, x->why);
		} else if (x->deterministic) {
			render_mean_format(am, sizeof(am), x->a.mean, x->unit);
			render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
			fprintf(out, "| %s (sim) | %s | %s | %+.2f%% (exact) | | %s |\n", nm.buf, am, bm,
				(x->r.ratio - 1) * 100, x->why);
		} else if (x->why && x->verdict != LACE_VERDICT_EQUIVALENT) {
			strbuf_add_md(&wy, x->why[0] == '<' ? "not supported" : x->why);
			fprintf(out, "| %s | | | | | %s |\n", nm.buf, wy.buf);
		} else {
			render_mean_format(am, sizeof(am), x->a.mean, x->unit);
			render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
			factor_text(&f, x, "±");
			fprintf(out, "| %s%s | %s%s%s (%.2f%%) | %s%s%s (%.2f%%) | %+.2f%% [%+.2f%%, %+.2f%%] | %s | %s |\n",
				nm.buf, x->simulated ? " (sim)" : "", am, *x->unit ? " " : "", x->unit,
				x->a.mean ? 100 * x->a.sd / x->a.mean : 0, bm, *x->unit ? " " : "", x->unit,
				x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100,
				(x->r.ci_low - 1) * 100, (x->r.ci_high - 1) * 100, f.buf, v.buf);
		}
		strbuf_release(&v);
		strbuf_release(&f);
		strbuf_release(&nm);
		strbuf_release(&wy);
	}
	batch_fault_summary(b, faults, sizeof(faults));
	if (*faults)
		fprintf(out, "\n%s\n", faults);
}

static json_t *event_json(const struct lace_ab_event *x)
{
	json_t *j = json_object();
	struct strbuf f = STRBUF_INIT;
	double factor, pm;

	json_object_set_new(j, "name", lace_json_string(x->name));
	json_object_set_new(j, "unit", json_string(x->unit));
	json_object_set_new(j, "simulated", json_boolean(x->simulated));
	json_object_set_new(j, "rounds", json_integer((json_int_t)x->rounds));
	json_object_set_new(j, "a_mean", lace_json_real(x->a.mean));
	json_object_set_new(j, "a_stddev", lace_json_real(x->a.sd));
	json_object_set_new(j, "b_mean", lace_json_real(x->b.mean));
	json_object_set_new(j, "b_stddev", lace_json_real(x->b.sd));
	json_object_set_new(j, "ratio", lace_json_real(x->r.ratio));
	json_object_set_new(j, "ci_low", lace_json_real(x->r.ci_low));
	json_object_set_new(j, "ci_high", lace_json_real(x->r.ci_high));
	json_object_set_new(j, "p", lace_json_real(x->r.p));
	json_object_set_new(j, "p_holm", lace_json_real(x->p_adj));
	json_object_set_new(j, "tost_p", lace_json_real(x->r.tost_p));
	json_object_set_new(j, "verdict", json_string(stats_verdict_name(x->verdict)));
	json_object_set_new(j, "deterministic", json_boolean(x->deterministic));
	if (x->cost)
		json_object_set_new(j, "cost", json_true());
	if (x->verdict == LACE_VERDICT_INCONCLUSIVE)
		json_object_set_new(j, "rounds_needed",
				    x->rounds_needed == SIZE_MAX ? json_null()
								 : json_integer((json_int_t)x->rounds_needed));
	/* hyperfine's factor: >= 1, "slower" when B/A >= 1, else A/B "faster" */
	int dir = stats_factor(&x->r, &factor, &pm);
	bool has = x->rounds >= 2 && !isnan(factor) && !x->cost;
	if (!x->why || x->verdict == LACE_VERDICT_EQUIVALENT)
		factor_text(&f, x, "±");
	json_object_set_new(j, "factor", has ? lace_json_real(factor) : json_null());
	json_object_set_new(j, "factor_pm", has ? lace_json_real(pm) : json_null());
	json_object_set_new(j, "factor_direction",
			    !has ? json_null() : json_string(dir > 0 ? "slower" : dir < 0 ? "faster" : "same"));
	json_object_set_new(j, "factor_text", json_string(f.buf));
	strbuf_release(&f);
	if (x->why)
		json_object_set_new(j, "note", json_string(x->why));
	return j;
}

json_t *ab_json(const struct lace_batch *b, const struct lace_ab_event *ev)
{
	json_t *o = json_schema_object("lace-ab"), *evs = json_array();
	char faults[512];

	json_object_set_new(o, "rounds", json_integer((json_int_t)ab_paired_rounds(b)));
	json_object_set_new(o, "a", lace_json_string(b->cmd_a ? b->cmd_a : ""));
	json_object_set_new(o, "b", lace_json_string(b->cmd_b ? b->cmd_b : ""));
	json_object_set_new(o, "margin", json_real(b->margin));
	json_object_set_new(o, "confidence", json_real(b->confidence));
	json_object_set_new(o, "backend", json_string(b->backend ? b->backend : ""));
	json_object_set_new(o, "machine", lace_json_string(b->machine ? b->machine : ""));
	for (size_t e = 0; e < b->nevents; e++)
		json_array_append_new(evs, event_json(&ev[e]));
	json_object_set_new(o, "events", evs);
	/* wall time: its own key, so consumers of "events" see only events */
	json_object_set_new(o, "elapsed", event_json(&ev[b->nevents]));
	json_object_set_new(o, "elapsed_source",
			    json_string(render_elapsed_simulated(b) ? "simulator" : "native"));
	batch_fault_summary(b, faults, sizeof(faults));
	json_object_set_new(o, "fault_summary", json_string(faults));
	json_object_set_new(o, "finished", json_boolean(b->finished));
	json_object_set_new(o, "interrupted", json_boolean(b->interrupted));
	return o;
}

void ab_render(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev,
	       const struct lace_render_opts *o)
{
	switch (o->fmt) {
	case LACE_FMT_JSON: {
		json_t *j = ab_json(b, ev);
		json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
		fputc('\n', out);
		json_decref(j);
		break;
	}
	case LACE_FMT_MD:
		render_md(out, b, ev);
		break;
	default:
		render_text(out, b, ev);
	}
}
