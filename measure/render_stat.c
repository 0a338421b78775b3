/* `lace stat` output: perf stat's table, CSV, JSON and Markdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "measure/render.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* What one event came to over the batch's good runs. */
struct ev_sum {
	size_t counted, not_supported, not_counted;
	double *v;             /* display-scaled values of the counted runs */
	struct lace_summary s;
	double running_pct;    /* mean time_running/time_enabled, 100 when never multiplexed */
};

static bool run_used(const struct lace_batch_run *r)
{
	return !r->warmup && r->fault == LACE_FAULT_NONE;
}

static void ev_summarize(const struct lace_batch *b, size_t e, struct ev_sum *out)
{
	double pct_sum = 0;
	size_t pct_n = 0;

	memset(out, 0, sizeof(*out));
	out->v = xcalloc(b->nruns ? b->nruns : 1, sizeof(double));
	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (!run_used(r))
			continue;
		switch (r->status[e]) {
		case LACE_COUNT_OK:
			out->v[out->counted++] = r->values[e] * b->events[e].scale;
			if (r->enabled[e] > 0) {
				pct_sum += 100.0 * r->running[e] / r->enabled[e];
				pct_n++;
			}
			break;
		case LACE_COUNT_NOT_SUPPORTED:
			out->not_supported++;
			break;
		default:
			out->not_counted++;
		}
	}
	stats_summary(out->v, out->counted, &out->s);
	out->running_pct = pct_n ? pct_sum / (double)pct_n : 100.0;
}

static const char *ev_status(const struct ev_sum *s)
{
	if (s->counted)
		return "counted";
	return s->not_supported ? "not_supported" : "not_counted";
}

static double pct(double part, double whole)
{
	return whole != 0 ? 100.0 * part / fabs(whole) : 0.0;
}

/* Runs whose context switches (or migrations) are far beyond the batch's
 * norm: Tukey's far-out fence (above Q3 + 3 x IQR), and at least 1.5 x the
 * median and 2 more than it, so a heavy-tailed batch (hackbench's context
 * switches) flags only its real outliers. */
static void flag_outliers(const struct lace_batch *b, bool migrations, struct strbuf *runs_out)
{
	double *sorted = xcalloc(b->nruns ? b->nruns : 1, sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		long x = migrations ? r->migrations : r->ctx_switches;
		if (run_used(r) && x >= 0)
			sorted[n++] = (double)x;
	}
	if (n < 4) {
		free(sorted);
		return;
	}
	gsl_sort(sorted, 1, n);
	double med = gsl_stats_median_from_sorted_data(sorted, 1, n);
	double q1 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.25);
	double q3 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.75);
	double limit = q3 + 3.0 * (q3 - q1);
	if (limit < 1.5 * med)
		limit = 1.5 * med;
	if (limit < med + 2)
		limit = med + 2;
	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		long x = migrations ? r->migrations : r->ctx_switches;
		if (!run_used(r) || x < 0 || (double)x <= limit)
			continue;
		strbuf_addf(runs_out, "%s%d (%ld)", runs_out->len ? ", " : "", r->round + 1, x);
	}
	free(sorted);
}

static void time_summary(const struct lace_batch *b, int which, struct lace_summary *s)
{
	double *v = xcalloc(b->nruns ? b->nruns : 1, sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (run_used(r))
			v[n++] = which == 0 ? r->elapsed_s : which == 1 ? r->user_s : r->sys_s;
	}
	stats_summary(v, n, s);
	free(v);
}

static void render_text(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o)
{
	size_t used = batch_count_ok(b, false);
	char faults[512];

	fprintf(out, "\n Performance counter stats for '%s' (%zu run%s, %s):\n\n", b->command ? b->command : "",
		used, used == 1 ? "" : "s", b->backend ? b->backend : "perf_event");
	for (size_t e = 0; e < b->nevents; e++) {
		struct ev_sum s;
		const struct lace_batch_event *ev = &b->events[e];
		char label[160];
		snprintf(label, sizeof(label), "%s%s", ev->name, ev->simulated ? " [sim]" : "");
		ev_summarize(b, e, &s);
		if (!s.counted) {
			fprintf(out, "  %18s      %-28s\n",
				s.not_supported ? "<not supported>" : "<not counted>", label);
		} else {
			bool integral = !*ev->unit;
			fprintf(out, "  %18.*f %-5s %-28s ( +- %5.2f%% )  sd %6.2f%%",
				integral ? 0 : 2, s.s.mean, ev->unit, label, pct(s.s.sem, s.s.mean),
				pct(s.s.sd, s.s.mean));
			if (s.running_pct < 99.995)
				fprintf(out, "  (%.2f%%)", s.running_pct);
			if (s.not_counted || s.not_supported)
				fprintf(out, "  [counted in %zu of %zu runs]", s.counted,
					s.counted + s.not_counted + s.not_supported);
			fputc('\n', out);
			if (o->verbose)
				fprintf(out, "  %18s       min %.*f  median %.*f  max %.*f\n", "",
					integral ? 0 : 3, s.s.min, integral ? 0 : 3, s.s.median,
					integral ? 0 : 3, s.s.max);
		}
		free(s.v);
	}
	struct lace_summary el, us, sy;
	time_summary(b, 0, &el);
	time_summary(b, 1, &us);
	time_summary(b, 2, &sy);
	if (el.n) {
		fprintf(out, "\n  %14.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )  sd %6.2f%%\n",
			el.mean, el.sem, pct(el.sem, el.mean), pct(el.sd, el.mean));
		if (o->verbose)
			fprintf(out, "  %14s       min %.6f  median %.6f  max %.6f\n", "", el.min, el.median,
				el.max);
		fprintf(out, "\n  %14.6f seconds user\n  %14.6f seconds sys\n", us.mean, sy.mean);
	}
	fputs("\n ( +- x% ): standard error of the mean; sd: run-to-run standard deviation, both relative to the mean.\n",
	      out);
	struct strbuf cs = STRBUF_INIT, mg = STRBUF_INIT;
	flag_outliers(b, false, &cs);
	flag_outliers(b, true, &mg);
	if (cs.len)
		fprintf(out, " runs with context switches beyond the batch's norm: %s\n", cs.buf);
	if (mg.len)
		fprintf(out, " runs with CPU migrations beyond the batch's norm: %s\n", mg.buf);
	strbuf_release(&cs);
	strbuf_release(&mg);
	batch_fault_summary(b, faults, sizeof(faults));
	if (*faults)
		fprintf(out, " %s\n", faults);
	if (b->interrupted)
		fprintf(out, " interrupted: these are the runs measured before the signal\n");
	else if (!b->finished)
		fprintf(out, " the batch did not finish (no end record): these are the runs it wrote\n");
}

static void render_csv(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o)
{
	/* perf's -x order: value, unit, event, variance (sem %), running time,
	 * running percentage; then ours: sd %, runs counted */
	for (size_t e = 0; e < b->nevents; e++) {
		struct ev_sum s;
		struct strbuf line = STRBUF_INIT;
		ev_summarize(b, e, &s);
		if (s.counted)
			strbuf_addf(&line, "%.*f", *b->events[e].unit ? 2 : 0, s.s.mean);
		else
			strbuf_addstr(&line, s.not_supported ? "<not supported>" : "<not counted>");
		strbuf_addch(&line, o->sep);
		strbuf_add_csv(&line, b->events[e].unit, o->sep);
		strbuf_addch(&line, o->sep);
		strbuf_add_csv(&line, b->events[e].name, o->sep);
		strbuf_addch(&line, o->sep);
		if (s.counted)
			strbuf_addf(&line, "%.2f%%", pct(s.s.sem, s.s.mean));
		strbuf_addch(&line, o->sep);
		double running = 0;
		size_t nr = 0;
		for (size_t i = 0; i < b->nruns; i++)
			if (run_used(&b->runs[i])) {
				running += b->runs[i].running[e];
				nr++;
			}
		/* perf prints the counter's running time per run */
		strbuf_addf(&line, "%.0f%c%.2f%c", nr ? running / (double)nr : 0.0, o->sep, s.counted ? s.running_pct : 0.0, o->sep);
		if (s.counted)
			strbuf_addf(&line, "%.2f%%", pct(s.s.sd, s.s.mean));
		strbuf_addf(&line, "%c%zu", o->sep, s.counted);
		fprintf(out, "%s\n", line.buf);
		strbuf_release(&line);
		free(s.v);
	}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct lace_summary *s, const double *v)
{
	json_t *o = json_object(), *vals = json_array();

	json_object_set_new(o, "mean", num(s->mean));
	json_object_set_new(o, "stddev", num(s->sd));
	json_object_set_new(o, "sem", num(s->sem));
	json_object_set_new(o, "min", num(s->min));
	json_object_set_new(o, "median", num(s->median));
	json_object_set_new(o, "max", num(s->max));
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(vals, json_real(v[i]));
	json_object_set_new(o, "values", vals);
	return o;
}

json_t *stat_json(const struct lace_batch *b)
{
	json_t *o = json_object(), *evs = json_array(), *failed = json_array();
	char faults[512];

	json_object_set_new(o, "command", json_string(b->command ? b->command : ""));
	json_object_set_new(o, "runs", json_integer((json_int_t)batch_count_ok(b, false)));
	json_object_set_new(o, "backend", json_string(b->backend ? b->backend : ""));
	json_object_set_new(o, "machine", json_string(b->machine ? b->machine : ""));
	for (size_t e = 0; e < b->nevents; e++) {
		struct ev_sum s;
		ev_summarize(b, e, &s);
		json_t *j = summary_json(&s.s, s.v);
		json_object_set_new(j, "name", json_string(b->events[e].name));
		json_object_set_new(j, "unit", json_string(b->events[e].unit));
		json_object_set_new(j, "status", json_string(ev_status(&s)));
		json_object_set_new(j, "simulated", json_boolean(b->events[e].simulated));
		json_object_set_new(j, "counted_runs", json_integer((json_int_t)s.counted));
		json_object_set_new(j, "running_pct", num(s.counted ? s.running_pct : NAN));
		json_array_append_new(evs, j);
		free(s.v);
	}
	json_object_set_new(o, "events", evs);
	const char *names[3] = { "elapsed", "user", "sys" };
	for (int w = 0; w < 3; w++) {
		double *v = xcalloc(b->nruns ? b->nruns : 1, sizeof(double));
		size_t n = 0;
		struct lace_summary s;
		for (size_t i = 0; i < b->nruns; i++)
			if (run_used(&b->runs[i]))
				v[n++] = w == 0 ? b->runs[i].elapsed_s : w == 1 ? b->runs[i].user_s
										: b->runs[i].sys_s;
		stats_summary(v, n, &s);
		json_object_set_new(o, names[w], summary_json(&s, v));
		free(v);
	}
	size_t total = 0;
	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (r->warmup)
			continue;
		total++;
		if (r->fault != LACE_FAULT_NONE)
			json_array_append_new(failed, json_pack("{s:i,s:s,s:s}", "run", r->round + 1, "fault",
								run_fault_name(r->fault), "message",
								r->fault_msg));
	}
	json_object_set_new(o, "total_runs", json_integer((json_int_t)total));
	json_object_set_new(o, "failed_runs", failed);
	batch_fault_summary(b, faults, sizeof(faults));
	json_object_set_new(o, "fault_summary", json_string(faults));
	struct strbuf cs = STRBUF_INIT, mg = STRBUF_INIT;
	flag_outliers(b, false, &cs);
	flag_outliers(b, true, &mg);
	json_object_set_new(o, "flagged_ctx_switches", json_string(cs.buf));
	json_object_set_new(o, "flagged_migrations", json_string(mg.buf));
	strbuf_release(&cs);
	strbuf_release(&mg);
	json_object_set_new(o, "finished", json_boolean(b->finished));
	json_object_set_new(o, "interrupted", json_boolean(b->interrupted));
	return o;
}

static void render_md(FILE *out, const struct lace_batch *b)
{
	char faults[512];

	fprintf(out, "**`%s`** — %zu runs, %s, %s\n\n", b->command ? b->command : "", batch_count_ok(b, false),
		b->backend ? b->backend : "", b->machine ? b->machine : "");
	fputs("| event | mean | ± SE of mean | σ (run to run) |\n|---|---:|---:|---:|\n", out);
	for (size_t e = 0; e < b->nevents; e++) {
		struct ev_sum s;
		ev_summarize(b, e, &s);
		if (!s.counted)
			fprintf(out, "| %s | %s | | |\n", b->events[e].name,
				s.not_supported ? "&lt;not supported&gt;" : "&lt;not counted&gt;");
		else
			fprintf(out, "| %s%s | %.*f %s | %.2f%% | %.2f%% |\n", b->events[e].name,
				b->events[e].simulated ? " (sim)" : "", *b->events[e].unit ? 2 : 0,
				s.s.mean, b->events[e].unit, pct(s.s.sem, s.s.mean), pct(s.s.sd, s.s.mean));
		free(s.v);
	}
	batch_fault_summary(b, faults, sizeof(faults));
	if (*faults)
		fprintf(out, "\n%s\n", faults);
}

void stat_render(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o)
{
	switch (o->fmt) {
	case LACE_FMT_CSV:
		render_csv(out, b, o);
		break;
	case LACE_FMT_JSON: {
		json_t *j = stat_json(b);
		json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
		fputc('\n', out);
		json_decref(j);
		break;
	}
	case LACE_FMT_MD:
		render_md(out, b);
		break;
	default:
		render_text(out, b, o);
	}
}
