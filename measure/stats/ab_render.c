/* `lace ab`'s output: the text table, Markdown and JSON of what
 * ab_analyze() found (ab.c), one place per format.  Pure: no analysis
 * here, nothing run. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats/render.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void more_rounds(struct strbuf *sb, const struct lace_ab_event *ev)
{
	if (ev->verdict != LACE_VERDICT_INCONCLUSIVE)
		return;
	if (ev->rounds_needed == SIZE_MAX && ev->r.fold_sd > 0)
		strbuf_addstr(sb, " (the layout spread alone keeps the CI this wide: more rounds cannot settle it)");
	else if (ev->rounds_needed == SIZE_MAX)
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

/* The scope's note (build_scope_note()) as lines, each after prefix (and
 * escaped for Markdown with md), and before them (if any) before. */
static void scope_lines(FILE *out, const struct lace_batch *b, const char *before, const char *prefix,
			bool md)
{
	struct build_scope sc;
	struct layout_noise ln;
	struct strbuf sb = STRBUF_INIT;

	ab_batch_scope(b, &sc);
	ab_layout_noise(b, &ln);
	build_scope_note(&sc, &ln, "--layout-noise", &sb);
	layout_noise_release(&ln);
	if (sb.len)
		fputs(before, out);
	for (char *p = sb.buf, *nl; *p; p = nl + 1) {
		struct strbuf line = STRBUF_INIT;
		nl = strchr(p, '\n');
		*nl = '\0';
		if (md)
			strbuf_add_md(&line, p);
		else
			strbuf_addstr(&line, p);
		fprintf(out, "%s%s\n", prefix, line.buf);
		strbuf_release(&line);
	}
	strbuf_release(&sb);
}

/* With a layout spread folded in: what the runs alone gave. */
static void runs_alone(FILE *out, const struct lace_batch *b, const struct lace_ab_event *ev)
{
	bool any = false;

	for (size_t e = 0; e < b->nevents + 1; e++) {
		const struct lace_ratio *r = &ev[e].r;
		if (!(r->fold_sd > 0))
			continue;
		if (!any)
			fputs("\n before the layout spread was folded in, the runs alone gave:\n", out);
		any = true;
		if (r->runs_ci_low == r->runs_ci_high)
			fprintf(out, "  %-26s exact %+.2f%% (the same count every round)\n", ev[e].name,
				(r->ratio - 1) * 100);
		else
			fprintf(out, "  %-26s [%+.2f%%, %+.2f%%], p %.2g (before Holm)\n", ev[e].name,
				(r->runs_ci_low - 1) * 100, (r->runs_ci_high - 1) * 100, r->runs_p);
	}
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
	runs_alone(out, b, ev);
	scope_lines(out, b, "\n", " scope: ", false);
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
	fprintf(out, "\n- backend: %s; A and B alternate in random order each round\n- elapsed: %s\n",
		b->backend ? b->backend : "",
		ab_elapsed_source(b));
	scope_lines(out, b, "", "- scope: ", true);
	fputc('\n', out);
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

static json_t *event_json(const struct lace_ab_event *x, const char *scope)
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
	/* what the verdict judges: two binaries (or one build), and the
	 * layout spread in its interval with what the runs alone gave */
	json_object_set_new(j, "scope", json_string(scope));
	json_object_set_new(j, "layout_noise", x->r.fold_sd > 0 ? json_real(x->r.fold_sd) : json_null());
	if (x->r.fold_sd > 0) {
		json_object_set_new(j, "runs_ci_low", lace_json_real(x->r.runs_ci_low));
		json_object_set_new(j, "runs_ci_high", lace_json_real(x->r.runs_ci_high));
		json_object_set_new(j, "runs_p", lace_json_real(x->r.runs_p));
	}
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
	json_t *o = json_schema_object("lace-ab"), *evs = json_array(), *notes = json_array();
	char faults[512];
	struct build_scope sc;
	struct layout_noise ln;
	struct strbuf sb = STRBUF_INIT;

	json_object_set_new(o, "rounds", json_integer((json_int_t)ab_paired_rounds(b)));
	json_object_set_new(o, "a", lace_json_string(b->cmd_a ? b->cmd_a : ""));
	json_object_set_new(o, "b", lace_json_string(b->cmd_b ? b->cmd_b : ""));
	json_object_set_new(o, "margin", json_real(b->margin));
	json_object_set_new(o, "confidence", json_real(b->confidence));
	json_object_set_new(o, "backend", json_string(b->backend ? b->backend : ""));
	json_object_set_new(o, "machine", lace_json_string(b->machine ? b->machine : ""));
	ab_batch_scope(b, &sc);
	json_object_set_new(o, "builds", build_scope_json(&sc));
	ab_layout_noise(b, &ln);
	json_object_set_new(o, "layout_noise", layout_noise_json(&ln));
	json_object_set_new(o, "layout_noise_folded", json_boolean(ab_layout_folds(b)));
	build_scope_note(&sc, &ln, "--layout-noise", &sb);
	layout_noise_release(&ln);
	for (char *p = sb.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		json_array_append_new(notes, json_stringn(p, (size_t)(nl - p)));
	}
	strbuf_release(&sb);
	json_object_set_new(o, "scope_notes", notes);
	for (size_t e = 0; e < b->nevents; e++)
		json_array_append_new(evs, event_json(&ev[e], build_scope_label(&sc)));
	json_object_set_new(o, "events", evs);
	/* wall time: its own key, so consumers of "events" see only events */
	json_object_set_new(o, "elapsed", event_json(&ev[b->nevents], build_scope_label(&sc)));
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
