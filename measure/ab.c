/* `lace ab`: per-event analysis of the paired rounds and its output. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/render.h"
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

struct lace_ab_event *ab_analyze(const struct lace_batch *b)
{
	struct lace_ab_event *out = xcalloc(b->nevents ? b->nevents : 1, sizeof(*out));
	int rounds = max_round(b) + 1;
	double *a = xcalloc((size_t)rounds + 1, sizeof(double));
	double *bb = xcalloc((size_t)rounds + 1, sizeof(double));
	double *p = xcalloc(b->nevents ? b->nevents : 1, sizeof(double));

	for (size_t e = 0; e < b->nevents; e++) {
		struct lace_ab_event *ev = &out[e];
		size_t n = 0, zero_both = 0, not_sup = 0, one_zero = 0;
		double scale = b->events[e].scale;

		ev->name = b->events[e].name;
		ev->simulated = b->events[e].simulated;
		for (int r = 0; r < rounds; r++) {
			const struct lace_batch_run *ra = find_side(b, r, 'A'), *rb = find_side(b, r, 'B');
			if (!ra || !rb)
				continue;
			if (ra->status[e] != LACE_COUNT_OK || rb->status[e] != LACE_COUNT_OK) {
				not_sup += ra->status[e] == LACE_COUNT_NOT_SUPPORTED ||
					   rb->status[e] == LACE_COUNT_NOT_SUPPORTED;
				continue;
			}
			double va = ra->values[e] * scale, vb = rb->values[e] * scale;
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
		if (not_sup && !n) {
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
		} else if (stats_ratio_ci(a, bb, n, b->confidence, b->margin, &ev->r) == 0) {
			p[e] = ev->r.p;
		}
	}
	stats_holm(p, b->nevents, p);
	for (size_t e = 0; e < b->nevents; e++) {
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

static size_t paired_rounds(const struct lace_batch *b)
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

static void render_text(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev)
{
	char faults[512];
	int conf = (int)lround(b->confidence * 100);

	fprintf(out, "\n lace ab: %zu paired rounds, %s, margin +-%.2g%%, %d%% confidence\n",
		paired_rounds(b), b->backend ? b->backend : "perf_event", b->margin * 100, conf);
	fprintf(out, "   A: %s\n   B: %s\n\n", b->cmd_a ? b->cmd_a : "", b->cmd_b ? b->cmd_b : "");
	fprintf(out, "  %-26s %14s %7s %14s %7s %9s  %-22s %9s  %s\n", "event", "A mean", "sd", "B mean",
		"sd", "B/A", "CI", "p (Holm)", "verdict");
	for (size_t e = 0; e < b->nevents; e++) {
		const struct lace_ab_event *x = &ev[e];
		char label[160], ci[64] = "", pbuf[32] = "";
		struct strbuf v = STRBUF_INIT;
		snprintf(label, sizeof(label), "%s%s", x->name, x->simulated ? " [sim]" : "");
		if (x->why && x->verdict != LACE_VERDICT_EQUIVALENT) {
			fprintf(out, "  %-26s %s\n", label, x->why);
			continue;
		}
		if (x->rounds >= 2) {
			snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", (x->r.ci_low - 1) * 100,
				 (x->r.ci_high - 1) * 100);
			if (x->p_adj < 1e-4)
				snprintf(pbuf, sizeof(pbuf), "<0.0001");
			else
				snprintf(pbuf, sizeof(pbuf), "%.4f", x->p_adj);
		}
		strbuf_addstr(&v, stats_verdict_name(x->verdict));
		more_rounds(&v, x);
		if (x->why)
			strbuf_addf(&v, " (%s)", x->why);
		fprintf(out, "  %-26s %14.2f %6.2f%% %14.2f %6.2f%% %+8.2f%%  %-22s %9s  %s\n", label,
			x->a.mean, x->a.mean ? 100 * x->a.sd / x->a.mean : 0, x->b.mean,
			x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100, ci, pbuf, v.buf);
		strbuf_release(&v);
	}
	fprintf(out, "\n slower/faster: B differs from A by more than the margin (whole CI beyond it, Holm-adjusted p < %.2g);\n"
		     " equivalent: the whole CI lies within the margin; sd: run-to-run standard deviation.\n",
		1 - b->confidence);
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

	fprintf(out, "#### lace ab: %zu paired rounds, margin ±%.2g%%, %d%% CI\n\n", paired_rounds(b),
		b->margin * 100, conf);
	fprintf(out, "- A: `%s`\n- B: `%s`\n- machine: %s\n- backend: %s; A and B alternate in random order each round\n\n",
		b->cmd_a ? b->cmd_a : "", b->cmd_b ? b->cmd_b : "", b->machine ? b->machine : "",
		b->backend ? b->backend : "");
	fprintf(out, "| event | A mean (σ) | B mean (σ) | B/A change [%d%% CI] | verdict |\n|---|---:|---:|---:|---|\n",
		conf);
	for (size_t e = 0; e < b->nevents; e++) {
		const struct lace_ab_event *x = &ev[e];
		struct strbuf v = STRBUF_INIT;
		strbuf_addstr(&v, stats_verdict_name(x->verdict));
		more_rounds(&v, x);
		if (x->why && x->verdict != LACE_VERDICT_EQUIVALENT) {
			fprintf(out, "| %s | | | | %s |\n", x->name, x->why[0] == '<' ? "not supported" : x->why);
		} else {
			fprintf(out, "| %s%s | %.2f (%.2f%%) | %.2f (%.2f%%) | %+.2f%% [%+.2f%%, %+.2f%%] | %s |\n",
				x->name, x->simulated ? " (sim)" : "", x->a.mean,
				x->a.mean ? 100 * x->a.sd / x->a.mean : 0, x->b.mean,
				x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100,
				(x->r.ci_low - 1) * 100, (x->r.ci_high - 1) * 100, v.buf);
		}
		strbuf_release(&v);
	}
	batch_fault_summary(b, faults, sizeof(faults));
	if (*faults)
		fprintf(out, "\n%s\n", faults);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *ab_json(const struct lace_batch *b, const struct lace_ab_event *ev)
{
	json_t *o = json_object(), *evs = json_array();
	char faults[512];

	json_object_set_new(o, "rounds", json_integer((json_int_t)paired_rounds(b)));
	json_object_set_new(o, "a", json_string(b->cmd_a ? b->cmd_a : ""));
	json_object_set_new(o, "b", json_string(b->cmd_b ? b->cmd_b : ""));
	json_object_set_new(o, "margin", json_real(b->margin));
	json_object_set_new(o, "confidence", json_real(b->confidence));
	json_object_set_new(o, "backend", json_string(b->backend ? b->backend : ""));
	json_object_set_new(o, "machine", json_string(b->machine ? b->machine : ""));
	for (size_t e = 0; e < b->nevents; e++) {
		const struct lace_ab_event *x = &ev[e];
		json_t *j = json_object();
		json_object_set_new(j, "name", json_string(x->name));
		json_object_set_new(j, "simulated", json_boolean(x->simulated));
		json_object_set_new(j, "rounds", json_integer((json_int_t)x->rounds));
		json_object_set_new(j, "a_mean", num(x->a.mean));
		json_object_set_new(j, "a_stddev", num(x->a.sd));
		json_object_set_new(j, "b_mean", num(x->b.mean));
		json_object_set_new(j, "b_stddev", num(x->b.sd));
		json_object_set_new(j, "ratio", num(x->r.ratio));
		json_object_set_new(j, "ci_low", num(x->r.ci_low));
		json_object_set_new(j, "ci_high", num(x->r.ci_high));
		json_object_set_new(j, "p", num(x->r.p));
		json_object_set_new(j, "p_holm", num(x->p_adj));
		json_object_set_new(j, "tost_p", num(x->r.tost_p));
		json_object_set_new(j, "verdict", json_string(stats_verdict_name(x->verdict)));
		if (x->verdict == LACE_VERDICT_INCONCLUSIVE)
			json_object_set_new(j, "rounds_needed",
					    x->rounds_needed == SIZE_MAX ? json_null()
									 : json_integer((json_int_t)x->rounds_needed));
		if (x->why)
			json_object_set_new(j, "note", json_string(x->why));
		json_array_append_new(evs, j);
	}
	json_object_set_new(o, "events", evs);
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
