/* `lace stat` output: perf stat's table, CSV, JSON and Markdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "measure/events.h"
#include "measure/stats/render.h"
#include "util/array.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/error.h"
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
	out->v = xcalloc(b->nruns, sizeof(double));
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

/* perf's value column: clocks with 2 decimals, counts whole; but a count
 * whose mean is below 1 (0.4 context switches per run) keeps decimals
 * instead of rounding to a misleading 0. */
static void value_format(char *buf, size_t len, double v, bool integral)
{
	if (!integral)
		snprintf(buf, len, "%.2f", v);
	else if (v != 0 && fabs(v) < 1)
		snprintf(buf, len, fabs(v) >= 0.01 ? "%.2f" : "%.2g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

/* counts, and nanoseconds (duration_time), print whole, as perf does;
 * msec clocks keep 2 decimals */
static bool unit_integral(const char *unit)
{
	return !*unit || !strcmp(unit, "ns");
}

bool render_elapsed_simulated(const struct lace_batch *b)
{
	/* a native run happens unless every event is the simulator's
	 * (measure/backend.c: backend_set_run) */
	if (!b->nevents)
		return false;
	for (size_t e = 0; e < b->nevents; e++)
		if (!b->events[e].simulated)
			return false;
	return true;
}

/* Derived metrics perf prints in its "#" column, from the means: */
enum metric_role { M_NONE, M_CLOCK, M_CYCLES, M_INSNS, M_L1I_MISSES, M_ITLB_MISSES };

struct ev_metric {
	const char *unit; /* NULL: none */
	double value;
	int decimals;
};

/* What an event is, by perf's type/config (so aliases and modifiers
 * count: l1i-load-misses, cycles:u); only names that may be one of the
 * events above are parsed. */
static enum metric_role metric_role(const char *name, bool *excl_user, bool *excl_kernel)
{
	static const char *const prefixes[] = { "cycles", "cpu-cycles", "instructions", "task-clock",
						"cpu-clock", "L1-icache", "l1-i", "l1i", "L1-instruction",
						"iTLB", "i-tlb", "Instruction-TLB" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncasecmp(name, prefixes[i], strlen(prefixes[i])))
			break;
	if (i == ARRAY_SIZE(prefixes))
		return M_NONE;
	struct lace_event_spec spec;
	enum metric_role role = M_NONE;
	if (event_parse_one(&spec, name) == 0) {
		const uint64_t miss = (uint64_t)PERF_COUNT_HW_CACHE_OP_READ << 8 |
				      (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
		*excl_user = spec.exclude_user;
		*excl_kernel = spec.exclude_kernel;
		if (spec.type == PERF_TYPE_SOFTWARE && (spec.config == PERF_COUNT_SW_TASK_CLOCK ||
							 spec.config == PERF_COUNT_SW_CPU_CLOCK))
			role = M_CLOCK;
		else if (spec.type == PERF_TYPE_HARDWARE && spec.config == PERF_COUNT_HW_CPU_CYCLES)
			role = M_CYCLES;
		else if (spec.type == PERF_TYPE_HARDWARE && spec.config == PERF_COUNT_HW_INSTRUCTIONS)
			role = M_INSNS;
		else if (spec.type == PERF_TYPE_HW_CACHE && spec.config == (PERF_COUNT_HW_CACHE_L1I | miss))
			role = M_L1I_MISSES;
		else if (spec.type == PERF_TYPE_HW_CACHE && spec.config == (PERF_COUNT_HW_CACHE_ITLB | miss))
			role = M_ITLB_MISSES;
	}
	event_spec_release(&spec);
	lace_error_clear();
	return role;
}

/* Per event: perf's derived metric from the batch means.  A ratio needs
 * both events counted, with the same modifiers and by the same backend
 * (a simulated instruction count over native cycles is no IPC):
 *   task-clock / cpu-clock   CPUs utilized = msec / elapsed msec (native)
 *   instructions             insn per cycle = instructions / cycles
 *   L1-icache-load-misses    L1i MPKI = misses per 1000 instructions
 *   iTLB-load-misses         iTLB MPKI = misses per 1000 instructions */
static void metrics_compute(const struct lace_batch *b, const struct ev_sum *sums, double elapsed_mean,
			    struct ev_metric *m)
{
	enum metric_role *role = xcalloc(b->nevents, sizeof(*role));
	bool *xu = xcalloc(b->nevents, sizeof(bool));
	bool *xk = xcalloc(b->nevents, sizeof(bool));

	for (size_t e = 0; e < b->nevents; e++) {
		m[e].unit = NULL;
		role[e] = sums[e].counted ? metric_role(b->events[e].name, &xu[e], &xk[e]) : M_NONE;
	}
	for (size_t e = 0; e < b->nevents; e++) {
		enum metric_role want = role[e] == M_INSNS ? M_CYCLES
				      : role[e] == M_L1I_MISSES || role[e] == M_ITLB_MISSES ? M_INSNS
											   : M_NONE;
		if (role[e] == M_CLOCK && !b->events[e].simulated && elapsed_mean > 0) {
			m[e] = (struct ev_metric){ "CPUs utilized",
						   sums[e].s.mean / (elapsed_mean * 1e3), 3 };
			continue;
		}
		if (want == M_NONE)
			continue;
		size_t d;
		for (d = 0; d < b->nevents; d++)
			if (role[d] == want && xu[d] == xu[e] && xk[d] == xk[e] &&
			    b->events[d].simulated == b->events[e].simulated && sums[d].s.mean > 0)
				break;
		if (d == b->nevents)
			continue;
		double ratio = sums[e].s.mean / sums[d].s.mean;
		if (role[e] == M_INSNS)
			m[e] = (struct ev_metric){ "insn per cycle", ratio, 2 };
		else
			m[e] = (struct ev_metric){ role[e] == M_L1I_MISSES ? "L1i MPKI" : "iTLB MPKI",
						   1000 * ratio, 2 };
	}
	free(role);
	free(xu);
	free(xk);
}

/* Runs whose context switches (or migrations) are far beyond the batch's
 * norm: Tukey's far-out fence (above Q3 + 3 x IQR), and at least 1.5 x the
 * median and 2 more than it, so a heavy-tailed batch (hackbench's context
 * switches) flags only its real outliers. */
static void flag_outliers(const struct lace_batch *b, bool migrations, struct strbuf *runs_out)
{
	double *sorted = xcalloc(b->nruns, sizeof(double));
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
	double *v = xcalloc(b->nruns, sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (run_used(r))
			v[n++] = which == 0 ? r->elapsed_s : which == 1 ? r->user_s : r->sys_s;
	}
	stats_summary(v, n, s);
	free(v);
}

static struct ev_sum *sums_compute(const struct lace_batch *b)
{
	struct ev_sum *s = xcalloc(b->nevents, sizeof(*s));

	for (size_t e = 0; e < b->nevents; e++)
		ev_summarize(b, e, &s[e]);
	return s;
}

static void sums_free(struct ev_sum *s, size_t n)
{
	for (size_t e = 0; e < n; e++)
		free(s[e].v);
	free(s);
}

/* The metrics of a batch (elapsed: the mean wall time of its good runs). */
static struct ev_metric *batch_metrics(const struct lace_batch *b, const struct ev_sum *sums)
{
	struct ev_metric *m = xcalloc(b->nevents, sizeof(*m));
	struct lace_summary el;

	time_summary(b, 0, &el);
	metrics_compute(b, sums, el.n ? el.mean : NAN, m);
	return m;
}

static const char *elapsed_source(const struct lace_batch *b, size_t runs)
{
	/* the full-system backend (measure/qemu/backend_qemu.c) boots a guest */
	const char *under = b->backend && strstr(b->backend, "qemu (") ? "QEMU (boot included)"
								       : "valgrind";
	static char buf[160];
	bool any_sim = false;

	for (size_t e = 0; e < b->nevents; e++)
		any_sim |= b->events[e].simulated;
	if (render_elapsed_simulated(b))
		snprintf(buf, sizeof(buf), "wall clock of the simulator's run%s under %s, not native time",
			 runs == 1 ? "" : "s", under);
	else if (any_sim)
		snprintf(buf, sizeof(buf), "wall clock of the native run%s; simulated events come from %s under %s",
			 runs == 1 ? "" : "s", runs == 1 ? "a separate run" : "separate runs", under);
	else
		return runs == 1 ? "wall clock of the native run" : "wall clock of the native runs";
	return buf;
}

static void render_text(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o)
{
	size_t used = batch_count_ok(b, false);
	char faults[512];
	struct ev_sum *sums = sums_compute(b);
	struct ev_metric *m = batch_metrics(b, sums);
	bool any_metric = false, any_noise = false;

	for (size_t e = 0; e < b->nevents; e++)
		any_metric |= m[e].unit != NULL;
	fprintf(out, "\n Performance counter stats for '%s' (%zu run%s, %s):\n\n", b->command ? b->command : "",
		used, used == 1 ? "" : "s", b->backend ? b->backend : "perf_event");
	for (size_t e = 0; e < b->nevents; e++) {
		const struct ev_sum *s = &sums[e];
		const struct lace_batch_event *ev = &b->events[e];
		char label[160], val[64];
		snprintf(label, sizeof(label), "%s%s", ev->name, ev->simulated ? " [sim]" : "");
		if (!s->counted) {
			fprintf(out, "  %18s      %-28s\n",
				s->not_supported ? "<not supported>" : "<not counted>", label);
			continue;
		}
		bool integral = unit_integral(ev->unit);
		struct strbuf row = STRBUF_INIT;
		value_format(val, sizeof(val), s->s.mean, integral);
		strbuf_addf(&row, "  %18s %-5s %-28s", val, ev->unit, label);
		/* perf's "#" column: the derived metric, blank where none */
		if (m[e].unit)
			strbuf_addf(&row, "  # %8.*f %-15s", m[e].decimals, m[e].value, m[e].unit);
		else if (any_metric)
			strbuf_addf(&row, "%28s", "");
		/* one value has no spread: no ( +- ), as perf -r 1 */
		if (s->s.n > 1) {
			strbuf_addf(&row, "  ( +- %5.2f%% )  sd %6.2f%%", pct(s->s.sem, s->s.mean),
				    pct(s->s.sd, s->s.mean));
			any_noise = true;
		}
		if (s->running_pct < 99.995)
			strbuf_addf(&row, "  (%.2f%%)", s->running_pct);
		if (s->not_counted || s->not_supported)
			strbuf_addf(&row, "  [counted in %zu of %zu runs]", s->counted,
				    s->counted + s->not_counted + s->not_supported);
		strbuf_rtrim(&row);
		fprintf(out, "%s\n", row.buf);
		strbuf_release(&row);
		if (o->verbose && s->s.n > 1) {
			char mn[64], md[64], mx[64];
			value_format(mn, sizeof(mn), s->s.min, integral);
			value_format(md, sizeof(md), s->s.median, integral);
			value_format(mx, sizeof(mx), s->s.max, integral);
			fprintf(out, "  %18s       min %s  median %s  max %s\n", "", mn, md, mx);
		}
	}
	struct lace_summary el, us, sy;
	time_summary(b, 0, &el);
	time_summary(b, 1, &us);
	time_summary(b, 2, &sy);
	if (el.n > 1) {
		fprintf(out, "\n  %14.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )  sd %6.2f%%\n",
			el.mean, el.sem, pct(el.sem, el.mean), pct(el.sd, el.mean));
		if (o->verbose)
			fprintf(out, "  %14s       min %.6f  median %.6f  max %.6f\n", "", el.min, el.median,
				el.max);
		any_noise = true;
	} else if (el.n) {
		fprintf(out, "\n  %17.9f seconds time elapsed\n", el.mean);
	}
	if (el.n) {
		fprintf(out, "  (elapsed: %s)\n", elapsed_source(b, el.n));
		fprintf(out, "\n  %14.6f seconds user\n  %14.6f seconds sys\n", us.mean, sy.mean);
	}
	if (any_noise)
		fputs("\n ( +- x% ): standard error of the mean; sd: run-to-run standard deviation, both relative to the mean.\n",
		      out);
	else
		fputc('\n', out);
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
	free(m);
	sums_free(sums, b->nevents);
}

/* perf prints the variance column only when it repeats the command
 * (-r N, N > 1); the batch's requested repeat count says so, else its runs. */
static bool batch_repeated(const struct lace_batch *b)
{
	json_t *r = b->header ? json_object_get(b->header, "repeat") : NULL;
	size_t runs = 0;

	if (json_is_integer(r))
		return json_integer_value(r) > 1;
	for (size_t i = 0; i < b->nruns; i++)
		runs += !b->runs[i].warmup;
	return runs > 1;
}

static void render_csv(FILE *out, const struct lace_batch *b, const struct lace_render_opts *o)
{
	/* perf stat -x's columns (perf 6.1, tools/perf/util/stat-display.c):
	 * value, unit, event, [variance: "x.xx%" SE of the mean, only with
	 * -r N > 1], run time (ns), percentage of time running, metric value,
	 * metric unit; then lace's own: sd %, runs counted */
	const char *sep = !o->sep ? "," : !strcmp(o->sep, "\\t") ? "\t" : o->sep;
	bool noise = batch_repeated(b);
	struct ev_sum *sums = sums_compute(b);
	struct ev_metric *m = batch_metrics(b, sums);

	for (size_t e = 0; e < b->nevents; e++) {
		const struct ev_sum *s = &sums[e];
		struct strbuf line = STRBUF_INIT;
		char val[64];
		if (s->counted) {
			value_format(val, sizeof(val), s->s.mean, unit_integral(b->events[e].unit));
			strbuf_addstr(&line, val);
		} else {
			strbuf_addstr(&line, s->not_supported ? "<not supported>" : "<not counted>");
		}
		strbuf_addstr(&line, sep);
		/* perf quotes nothing; a field holding the separator (a
		 * pmu/a=1,b=2/ event with -x,), a quote or a line break is
		 * quoted as RFC 4180 does */
		strbuf_add_csv_sep(&line, b->events[e].unit, sep);
		strbuf_addstr(&line, sep);
		strbuf_add_csv_sep(&line, b->events[e].name, sep);
		if (noise)
			strbuf_addf(&line, "%s%.2f%%", sep, s->counted ? pct(s->s.sem, s->s.mean) : 0.0);
		double running = 0, enabled = 0;
		size_t nr = 0;
		for (size_t i = 0; i < b->nruns; i++)
			if (run_used(&b->runs[i])) {
				running += b->runs[i].running[e];
				enabled += b->runs[i].enabled[e];
				nr++;
			}
		/* perf: the counter's running time (per run), and 100 % unless
		 * running < enabled (a counter never opened ran 0 of 0: 100) */
		double run_pct = s->counted ? s->running_pct : running == enabled ? 100.0
								  : pct(running, enabled);
		strbuf_addf(&line, "%s%.0f%s%.2f%s", sep, nr ? running / (double)nr : 0.0, sep, run_pct, sep);
		if (m[e].unit)
			strbuf_addf(&line, "%.*f%s%s", m[e].decimals, m[e].value, sep, m[e].unit);
		else
			strbuf_addstr(&line, sep);
		strbuf_addstr(&line, sep);
		if (s->counted)
			strbuf_addf(&line, "%.2f%%", pct(s->s.sd, s->s.mean));
		strbuf_addf(&line, "%s%zu", sep, s->counted);
		fprintf(out, "%s\n", line.buf);
		strbuf_release(&line);
	}
	free(m);
	sums_free(sums, b->nevents);
}

static json_t *summary_json(const struct lace_summary *s, const double *v)
{
	json_t *o = json_object(), *vals = json_array();

	json_object_set_new(o, "mean", lace_json_real(s->mean));
	json_object_set_new(o, "stddev", lace_json_real(s->sd));
	json_object_set_new(o, "sem", lace_json_real(s->sem));
	json_object_set_new(o, "min", lace_json_real(s->min));
	json_object_set_new(o, "median", lace_json_real(s->median));
	json_object_set_new(o, "max", lace_json_real(s->max));
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(vals, json_real(v[i]));
	json_object_set_new(o, "values", vals);
	return o;
}

json_t *stat_json(const struct lace_batch *b)
{
	json_t *o = json_schema_object("lace-stat"), *evs = json_array(), *failed = json_array();
	char faults[512];

	json_object_set_new(o, "command", lace_json_string(b->command ? b->command : ""));
	json_object_set_new(o, "runs", json_integer((json_int_t)batch_count_ok(b, false)));
	json_object_set_new(o, "backend", json_string(b->backend ? b->backend : ""));
	json_object_set_new(o, "machine", lace_json_string(b->machine ? b->machine : ""));
	struct ev_sum *sums = sums_compute(b);
	struct ev_metric *m = batch_metrics(b, sums);
	for (size_t e = 0; e < b->nevents; e++) {
		const struct ev_sum *s = &sums[e];
		json_t *j = summary_json(&s->s, s->v);
		json_object_set_new(j, "name", lace_json_string(b->events[e].name));
		json_object_set_new(j, "unit", json_string(b->events[e].unit));
		json_object_set_new(j, "status", json_string(ev_status(s)));
		json_object_set_new(j, "simulated", json_boolean(b->events[e].simulated));
		json_object_set_new(j, "counted_runs", json_integer((json_int_t)s->counted));
		json_object_set_new(j, "running_pct", lace_json_real(s->counted ? s->running_pct : NAN));
		json_object_set_new(j, "metric_value", m[e].unit ? lace_json_real(m[e].value) : json_null());
		json_object_set_new(j, "metric_unit", json_string(m[e].unit ? m[e].unit : ""));
		json_array_append_new(evs, j);
	}
	free(m);
	sums_free(sums, b->nevents);
	json_object_set_new(o, "events", evs);
	json_object_set_new(o, "elapsed_source",
			    json_string(render_elapsed_simulated(b) ? "simulator" : "native"));
	const char *names[3] = { "elapsed", "user", "sys" };
	for (int w = 0; w < 3; w++) {
		double *v = xcalloc(b->nruns, sizeof(double));
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
	struct strbuf hd = STRBUF_INIT, nm = STRBUF_INIT;

	strbuf_addstr(&hd, "**");
	strbuf_add_md_code(&hd, b->command ? b->command : "", 0);
	strbuf_addf(&hd, "** — %zu runs, %s, ", batch_count_ok(b, false), b->backend ? b->backend : "");
	strbuf_add_md(&hd, b->machine ? b->machine : "");
	fprintf(out, "%s\n\n", hd.buf);
	strbuf_release(&hd);
	fputs("| event | mean | ± SE of mean | σ (run to run) | metric |\n|---|---:|---:|---:|---:|\n", out);
	struct ev_sum *sums = sums_compute(b);
	struct ev_metric *m = batch_metrics(b, sums);
	for (size_t e = 0; e < b->nevents; e++) {
		const struct ev_sum *s = &sums[e];
		char val[64], met[64] = "";
		strbuf_reset(&nm);
		strbuf_add_md(&nm, b->events[e].name);
		if (!s->counted) {
			fprintf(out, "| %s | %s | | | |\n", nm.buf,
				s->not_supported ? "&lt;not supported&gt;" : "&lt;not counted&gt;");
			continue;
		}
		value_format(val, sizeof(val), s->s.mean, unit_integral(b->events[e].unit));
		if (m[e].unit)
			snprintf(met, sizeof(met), "%.*f %s", m[e].decimals, m[e].value, m[e].unit);
		if (s->s.n > 1)
			fprintf(out, "| %s%s | %s %s | %.2f%% | %.2f%% | %s |\n", nm.buf,
				b->events[e].simulated ? " (sim)" : "", val, b->events[e].unit,
				pct(s->s.sem, s->s.mean), pct(s->s.sd, s->s.mean), met);
		else
			fprintf(out, "| %s%s | %s %s | | | %s |\n", nm.buf,
				b->events[e].simulated ? " (sim)" : "", val, b->events[e].unit, met);
	}
	strbuf_release(&nm);
	free(m);
	sums_free(sums, b->nevents);
	struct lace_summary el;
	time_summary(b, 0, &el);
	if (el.n)
		fprintf(out, "\nelapsed: %.6f s per run (%s)\n", el.mean, elapsed_source(b, el.n));
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
		if (o->nbackend_data) {
			json_t *a = json_array();
			for (size_t k = 0; k < o->nbackend_data; k++)
				json_array_append(a, o->backend_data[k]);
			json_object_set_new(j, "backend_data", a);
		}
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
