/* lace compare's output: the text table and the JSON document. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "measure/stats/compare.h"
#include "measure/stats/render.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/strbuf.h"

static void kernel_text(struct strbuf *sb, const struct lace_import *im)
{
	if (!im->has_kernel) {
		strbuf_addstr(sb, "kernel not recorded");
		return;
	}
	strbuf_addf(sb, "kernel %s, build-id %.12s%s, boot %.8s",
		    *im->kernel.release ? im->kernel.release : "?",
		    *im->kernel.build_id ? im->kernel.build_id : "?",
		    strlen(im->kernel.build_id) > 12 ? "..." : "",
		    *im->kernel.boot_id ? im->kernel.boot_id : "?");
}

static size_t batch_runs(const struct lace_import *im)
{
	size_t n = 0;

	for (size_t e = 0; e < im->nevents; e++) {
		size_t k = im->events[e].summary ? im->runs : im->events[e].n;
		if (k > n)
			n = k;
	}
	return n;
}

static void side_text(FILE *out, const struct compare_side *s, char name)
{
	for (size_t i = 0; i < s->nbatches; i++) {
		const struct lace_import *im = &s->batches[i];
		struct strbuf sb = STRBUF_INIT;
		kernel_text(&sb, im);
		fprintf(out, "   %c%zu: %s (%s, %zu runs%s), %s\n", name, i + 1, im->path, im->format,
			batch_runs(im), im->runs && strcmp(im->format, "lace stat") ? " as given" : "", sb.buf);
		strbuf_release(&sb);
	}
}

static void verdict_text(struct strbuf *v, const struct compare_event *x)
{
	if (x->why && x->verdict != LACE_VERDICT_EQUIVALENT) {
		strbuf_addstr(v, strncmp(x->why, "deterministic", 13) ? x->why : "none (deterministic count)");
		return;
	}
	strbuf_addstr(v, stats_verdict_name(x->verdict));
	if (x->session_capped)
		strbuf_addch(v, '*');
	if (x->exact)
		strbuf_addstr(v, " (the same count every run)");
}

void compare_render_text(FILE *out, const struct compare *c)
{
	int conf = (int)lround(c->confidence * 100);
	bool summary = false, drift = false, det = false;
	struct strbuf notes = STRBUF_INIT;

	fprintf(out, "\n lace compare: %zu batch%s A, %zu batch%s B; unpaired (Welch), margin +-%.2g%%, %d%% confidence\n",
		c->a.nbatches, c->a.nbatches == 1 ? "" : "es", c->b.nbatches, c->b.nbatches == 1 ? "" : "es",
		c->margin * 100, conf);
	side_text(out, &c->a, 'A');
	side_text(out, &c->b, 'B');
	fprintf(out, "\n  %-26s %-4s %14s %7s %14s %7s %9s  %-22s %9s  %s\n", "event", "unit", "A mean", "sd",
		"B mean", "sd", "B/A", "CI", "p (Holm)", "verdict");
	for (size_t e = 0; e < c->nevents; e++) {
		const struct compare_event *x = &c->events[e];
		char label[160], ci[64] = "", pbuf[32] = "", am[48], bm[48];
		struct strbuf v = STRBUF_INIT;
		snprintf(label, sizeof(label), "%s%s", x->name, x->simulated ? " [sim]" : "");
		if (x->why && !x->exact && x->verdict != LACE_VERDICT_EQUIVALENT) {
			fprintf(out, "  %-26s %s\n", label, x->why);
			continue;
		}
		summary |= x->a.from_summary || x->b.from_summary;
		drift |= x->a.drift || x->b.drift;
		det |= x->why && x->exact;
		if (x->exact)
			snprintf(ci, sizeof(ci), "exact");
		else
			snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", (x->r.ci_low - 1) * 100,
				 (x->r.ci_high - 1) * 100);
		if (isfinite(x->p_adj))
			snprintf(pbuf, sizeof(pbuf), x->p_adj < 1e-4 ? "<0.0001" : "%.4f", x->p_adj);
		verdict_text(&v, x);
		render_mean_format(am, sizeof(am), x->a.mean, x->unit);
		render_mean_format(bm, sizeof(bm), x->b.mean, x->unit);
		fprintf(out, "  %-26s %-4s %14s %6.2f%% %14s %6.2f%% %+8.2f%%  %-22s %9s  %s\n", label, x->unit,
			am, x->a.mean ? 100 * x->a.sd / x->a.mean : 0, bm,
			x->b.mean ? 100 * x->b.sd / x->b.mean : 0, (x->r.ratio - 1) * 100, ci, pbuf, v.buf);
		strbuf_release(&v);
	}
	if (drift) {
		fputs("\n drift within a side: its segments (each batch's first and second half of runs,\n"
		      " a perf -r N summary whole) differ more than their runs do:\n", out);
		for (size_t e = 0; e < c->nevents; e++) {
			const struct compare_event *x = &c->events[e];
			const struct compare_side_stats *s[2] = { &x->a, &x->b };
			for (int i = 0; i < 2; i++)
				if (s[i]->drift)
					fprintf(out, "  %-26s %c: F = %.3g, p = %.2g; its error is the spread of its %zu segment means\n",
						x->name, i ? 'B' : 'A', s[i]->drift_f, s[i]->drift_p, s[i]->segments);
		}
	}
	for (size_t e = 0, any = 0; e < c->nevents; e++) {
		const struct compare_event *x = &c->events[e];
		if (!(x->r.fold_sd > 0))
			continue;
		if (!any++)
			fputs("\n before the layout spread was folded in, the runs alone gave:\n", out);
		if (x->r.runs_ci_low == x->r.runs_ci_high)
			fprintf(out, "  %-26s exact %+.2f%% (the same count every run)\n", x->name,
				(x->r.ratio - 1) * 100);
		else
			fprintf(out, "  %-26s [%+.2f%%, %+.2f%%], p %.2g (before Holm)\n", x->name,
				(x->r.runs_ci_low - 1) * 100, (x->r.runs_ci_high - 1) * 100, x->r.runs_p);
	}
	compare_session_notes(c, &notes);
	if (notes.len)
		fputc('\n', out);
	for (char *p = notes.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		fprintf(out, " note: %.*s\n", (int)(nl - p), p);
	}
	strbuf_release(&notes);
	if (summary)
		fputs("\n statistics from summaries: perf stat -r N gives each event's mean and its\n"
		      " standard error (\"+- x%\"), not the runs; Welch's t uses them with N as given.\n"
		      " perf 6.1 (Debian 12) prints the LAST run's count there, not the mean (its\n"
		      " print_counter_aggr()); with it, save each run instead: N times\n"
		      " perf stat -r 1 -x, --append -o FILE (lace-compare(1)).\n", out);
	if (det)
		fputs("\n deterministic: simulated counts that repeat exactly; whether their difference\n"
		      " is more than layout noise needs randomized-layout builds (lace study).\n", out);
	fprintf(out, "\n slower/faster: B differs from A by more than the margin (whole CI beyond it, Holm-adjusted p < %.2g);\n"
		     " equivalent: the whole CI lies within the margin; sd: run-to-run standard deviation.\n"
		     " Unpaired: A and B ran in separate sessions, so drift between them is not cancelled;\n"
		     " alternate A B A B across reboots and give every batch (lace-compare(1)).\n",
		1 - c->confidence);
}

static json_t *side_stats_json(const struct compare_side_stats *s)
{
	json_t *j = json_object();

	json_object_set_new(j, "batches", json_integer((json_int_t)s->batches));
	json_object_set_new(j, "runs", json_integer((json_int_t)s->n));
	json_object_set_new(j, "segments", json_integer((json_int_t)s->segments));
	json_object_set_new(j, "mean", lace_json_real(s->mean));
	json_object_set_new(j, "stddev", lace_json_real(s->sd));
	json_object_set_new(j, "sem", lace_json_real(s->sem));
	json_object_set_new(j, "from_summary", json_boolean(s->from_summary));
	json_object_set_new(j, "drift_f", lace_json_real(s->drift_f));
	json_object_set_new(j, "drift_p", lace_json_real(s->drift_p));
	json_object_set_new(j, "drift", json_boolean(s->drift));
	return j;
}

static json_t *event_json(const struct compare *c, const struct compare_event *x)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", lace_json_string(x->name));
	json_object_set_new(j, "unit", json_string(x->unit));
	json_object_set_new(j, "simulated", json_boolean(x->simulated));
	json_object_set_new(j, "a", side_stats_json(&x->a));
	json_object_set_new(j, "b", side_stats_json(&x->b));
	json_object_set_new(j, "ratio", lace_json_real(x->r.ratio));
	json_object_set_new(j, "ci_low", lace_json_real(x->r.ci_low));
	json_object_set_new(j, "ci_high", lace_json_real(x->r.ci_high));
	json_object_set_new(j, "p", lace_json_real(x->r.p));
	json_object_set_new(j, "p_holm", lace_json_real(x->p_adj));
	json_object_set_new(j, "tost_p", lace_json_real(x->r.tost_p));
	json_object_set_new(j, "exact", json_boolean(x->exact));
	/* what the verdict judges: two binaries (or one build), and the
	 * layout spread in its interval with what the runs alone gave */
	json_object_set_new(j, "scope", json_string(build_scope_label(&c->scope)));
	json_object_set_new(j, "layout_noise", x->r.fold_sd > 0 ? json_real(x->r.fold_sd) : json_null());
	if (x->r.fold_sd > 0) {
		json_object_set_new(j, "runs_ci_low", lace_json_real(x->r.runs_ci_low));
		json_object_set_new(j, "runs_ci_high", lace_json_real(x->r.runs_ci_high));
		json_object_set_new(j, "runs_p", lace_json_real(x->r.runs_p));
	}
	json_object_set_new(j, "verdict", json_string(x->why && x->verdict != LACE_VERDICT_EQUIVALENT
							      ? "undecided"
							      : stats_verdict_name(x->verdict)));
	if (x->why)
		json_object_set_new(j, "note", json_string(x->why));
	else if (x->session_capped)
		json_object_set_new(j, "note", json_string("one batch on a side: significant within the sessions' "
							   "runs, not beyond their own difference"));
	json_object_set_new(j, "session_capped", json_boolean(x->session_capped));
	return j;
}

static json_t *batches_json(const struct compare_side *s)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->nbatches; i++) {
		const struct lace_import *im = &s->batches[i];
		json_t *b = json_object();
		json_object_set_new(b, "path", lace_json_string(im->path));
		json_object_set_new(b, "format", json_string(im->format));
		json_object_set_new(b, "runs", json_integer((json_int_t)batch_runs(im)));
		json_object_set_new(b, "kernel", im->has_kernel ? kernel_id_json(&im->kernel) : json_null());
		json_array_append_new(arr, b);
	}
	return arr;
}

json_t *compare_json(const struct compare *c)
{
	json_t *o = json_schema_object("lace-compare"), *evs = json_array(), *notes = json_array();
	struct strbuf sb = STRBUF_INIT;

	json_object_set_new(o, "a", batches_json(&c->a));
	json_object_set_new(o, "b", batches_json(&c->b));
	json_object_set_new(o, "margin", json_real(c->margin));
	json_object_set_new(o, "confidence", json_real(c->confidence));
	json_object_set_new(o, "test", json_string("welch-unpaired"));
	json_object_set_new(o, "builds", build_scope_json(&c->scope));
	json_object_set_new(o, "layout_noise", layout_noise_json(&c->layout_noise));
	json_object_set_new(o, "layout_noise_folded",
			    json_boolean(build_scope_two(&c->scope) && layout_noise_any(&c->layout_noise)));
	for (size_t e = 0; e < c->nevents; e++)
		json_array_append_new(evs, event_json(c, &c->events[e]));
	json_object_set_new(o, "events", evs);
	compare_session_notes(c, &sb);
	for (char *p = sb.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		json_array_append_new(notes, json_stringn(p, (size_t)(nl - p)));
	}
	json_object_set_new(o, "notes", notes);
	strbuf_release(&sb);
	return o;
}
