/* lace study: report.md, report.html and the terminal summary, rendered
 * from results.json alone (so `lace study --report-only` can redo them).
 * Every sentence with a number is computed from the results; the readings
 * compare each difference with the layout noise floor measured in the same
 * study. */
#include "pipeline/study.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/study_r4.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const events[] = {
	"instructions", "L1-icache-loads", "L1-icache-load-misses", "iTLB-loads", "iTLB-load-misses",
};
#define NEV (ARRAY_SIZE(events))

static const char *js(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double ev_mean(const json_t *row, const char *ev)
{
	return lace_json_get_num(json_object_get(json_object_get(row, "events"), ev), "mean");
}

static void num(struct strbuf *sb, double v)
{
	if (isnan(v))
		strbuf_addstr(sb, "n/a");
	else if (fabs(v) >= 100 || v == floor(v))
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.3g", v);
}

static void pct(struct strbuf *sb, double a, double b)
{
	if (isnan(a) || isnan(b) || a == 0)
		strbuf_addstr(sb, "n/a");
	else
		strbuf_addf(sb, "%+.2f%%", (b - a) / a * 100);
}

static const json_t *row_by(const json_t *w, const char *config)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(w, "rows"), i, r)
		if (!strcmp(js(r, "config"), config))
			return r;
	return NULL;
}

static double floor_pct(const json_t *w, const char *ev)
{
	return lace_json_get_num(json_object_get(json_object_get(w, "noise_floor"), ev), "floor_pct");
}

static bool simulated(const json_t *res)
{
	return !strcmp(js(json_object_get(res, "backend"), "used"), "sim");
}

/* counts of each workload's measurement window, not of whole runs (older
 * results have no such key: whole runs) */
static bool windowed(const json_t *res)
{
	return json_is_true(json_object_get(json_object_get(res, "backend"), "window"));
}

/* "+x.xx%, beyond / within the layout noise floor of ±f.ff%": the change
 * and the floor as printed, and the word decided on those printed values,
 * so the sentence agrees with its own numbers (t_study_report checks). */
static void vs_floor(struct strbuf *sb, double a, double b, double fl)
{
	pct(sb, a, b);
	if (isnan(a) || isnan(b) || a == 0 || isnan(fl)) {
		strbuf_addstr(sb, " (no noise floor measured)");
		return;
	}
	double d = round(fabs(b - a) / a * 100 * 100) / 100, f = round(fl * 100) / 100;
	strbuf_addf(sb, ", %s the layout noise floor of ±%.2f%%", d > f ? "beyond" : "within", fl);
}

/* ---- sections, shared by Markdown and HTML (Markdown tables are kept
 * simple enough to convert line by line) ---------------------------------- */

static void md_events_table(struct strbuf *sb, const json_t *w, const char *const *cfgs,
			    size_t ncfg, bool with_floor)
{
	strbuf_addstr(sb, "| event |");
	for (size_t c = 0; c < ncfg; c++)
		strbuf_addf(sb, " %s |", cfgs[c]);
	if (ncfg > 1)
		strbuf_addf(sb, " %s vs %s |", cfgs[ncfg > 2 ? 1 : 1], cfgs[0]);
	if (with_floor)
		strbuf_addstr(sb, " layout noise floor |");
	strbuf_addstr(sb, "\n|---|");
	for (size_t c = 0; c < ncfg + (ncfg > 1) + with_floor; c++)
		strbuf_addstr(sb, "---:|");
	strbuf_addch(sb, '\n');
	for (size_t e = 0; e < NEV; e++) {
		const json_t *r0 = row_by(w, cfgs[0]);
		const json_t *st = json_object_get(json_object_get(r0, "events"), events[e]);
		if (!st)
			continue;
		strbuf_addf(sb, "| %s%s |", events[e],
			    json_is_true(json_object_get(st, "simulated")) ? " (sim)" : "");
		for (size_t c = 0; c < ncfg; c++) {
			strbuf_addch(sb, ' ');
			const json_t *r = row_by(w, cfgs[c]);
			const char *status = js(json_object_get(json_object_get(r, "events"), events[e]), "status");
			if (*status && strcmp(status, "counted"))
				strbuf_addf(sb, "<%s>", status);
			else
				num(sb, ev_mean(r, events[e]));
			strbuf_addstr(sb, " |");
		}
		if (ncfg > 1) {
			strbuf_addch(sb, ' ');
			pct(sb, ev_mean(row_by(w, cfgs[0]), events[e]), ev_mean(row_by(w, cfgs[1]), events[e]));
			strbuf_addstr(sb, " |");
		}
		if (with_floor) {
			double f = floor_pct(w, events[e]);
			if (isnan(f))
				strbuf_addstr(sb, " n/a |");
			else
				strbuf_addf(sb, " ±%.2f%% |", f);
		}
		strbuf_addch(sb, '\n');
	}
	/* time, natively */
	bool any_time = false;
	for (size_t c = 0; c < ncfg; c++)
		any_time |= json_object_get(row_by(w, cfgs[c]), "task_clock") != NULL;
	if (any_time) {
		strbuf_addstr(sb, "| task-clock, ms (native, ± SE of mean) |");
		for (size_t c = 0; c < ncfg; c++) {
			const json_t *t = json_object_get(row_by(w, cfgs[c]), "task_clock");
			/* lace stat reports task-clock in msec (its unit scale applied) */
			double m = lace_json_get_num(t, "mean"), se = lace_json_get_num(t, "sem");
			if (isnan(m))
				strbuf_addstr(sb, " n/a |");
			else
				strbuf_addf(sb, " %.2f ± %.2f |", m, se);
		}
		if (ncfg > 1) {
			strbuf_addch(sb, ' ');
			pct(sb, lace_json_get_num(json_object_get(row_by(w, cfgs[0]), "task_clock"), "mean"),
			    lace_json_get_num(json_object_get(row_by(w, cfgs[1]), "task_clock"), "mean"));
			strbuf_addstr(sb, " |");
		}
		if (with_floor)
			strbuf_addstr(sb, " |");
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

static double count_of(const json_t *row, const char *k)
{
	return lace_json_get_num(json_object_get(row, "counts"), k);
}

static const json_t *marginal_of(const json_t *w, const char *ev)
{
	return json_object_get(json_object_get(w, "marginal"), ev);
}

static void section_r1(struct strbuf *sb, const json_t *res)
{
	const json_t *q = json_object_get(res, "q1_tracepoint");
	const char *cfgs[] = { "no tracepoint", "disabled", "enabled" };
	size_t i;
	json_t *w;

	bool win = windowed(res);

	strbuf_addstr(sb, "## 1. What does a disabled tracepoint in the hash-fault path cost?\n\n");
	if (!q) {
		strbuf_addstr(sb, "Not measured.\n\n");
		return;
	}
	json_array_foreach(json_object_get(q, "workloads"), i, w) {
		strbuf_addf(sb, "### `%s`\n\n", js(w, "workload"));
		md_events_table(sb, w, cfgs, 3, true);
		const json_t *a = row_by(w, "no tracepoint"), *b = row_by(w, "disabled"),
			     *c = row_by(w, "enabled");
		for (size_t k = 0; k < 3; k++) {
			const json_t *r = k == 0 ? a : k == 1 ? b : c;
			if (json_object_get(r, "not_measured"))
				strbuf_addf(sb, "- %s: not measured: %s\n", cfgs[k], js(r, "not_measured"));
		}
		/* the marginal cost: slope over sizes, start-up apart */
		strbuf_addf(sb, "Marginal cost, from a straight-line fit of (disabled − no tracepoint) "
				"against hash faults over %lld sizes (`%s` ",
			    (long long)json_integer_value(json_object_get(marginal_of(w, "instructions"), "points")),
			    js(w, "size_option"));
		size_t k;
		json_t *p;
		json_array_foreach(json_object_get(w, "slope_points"), k, p)
			strbuf_addf(sb, "%s, ", js(p, "size"));
		strbuf_addf(sb, "and the size above); ± is the standard error of the fit:\n\n"
				"| event | per hash fault | %s (intercept) |\n|---|---:|---:|\n",
			    win ? "fixed per run" : "start-up");
		for (size_t e = 0; e < NEV; e++) {
			const json_t *m = marginal_of(w, events[e]);
			if (!m)
				continue;
			if (json_object_get(m, "not_measured")) {
				strbuf_addf(sb, "| %s | not measured: %s | |\n", events[e], js(m, "not_measured"));
				continue;
			}
			/* %.2g: an error far below the slope's last digit still shows */
			strbuf_addf(sb, "| %s | %.3f ± %.2g | %.0f ± %.0f |\n", events[e], lace_json_get_num(m, "per_fault"),
				    lace_json_get_num(m, "per_fault_se"), lace_json_get_num(m, "startup"), lace_json_get_num(m, "startup_se"));
		}
		strbuf_addch(sb, '\n');
		const json_t *mi = marginal_of(w, "instructions"), *ml = marginal_of(w, "L1-icache-load-misses");
		strbuf_addstr(sb, "**What the numbers show.** ");
		if (!isnan(lace_json_get_num(mi, "per_fault")))
			strbuf_addf(sb, win ? "The disabled tracepoint costs %.3f ± %.2g instructions per "
					      "hash fault (the slope) plus a fixed difference of %.0f ± %.0f "
					      "instructions per run inside the measurement window (the "
					      "intercept; start-up is not counted), so the ratio of the "
					      "windows is not a per-fault cost. "
					    : "The disabled tracepoint costs %.3f ± %.2g instructions per "
					      "hash fault (the slope) plus a fixed start-up difference of "
					      "%.0f ± %.0f instructions (the intercept), so the ratio of the "
					      "whole runs is not a per-fault cost. ",
				    lace_json_get_num(mi, "per_fault"), lace_json_get_num(mi, "per_fault_se"), lace_json_get_num(mi, "startup"),
				    lace_json_get_num(mi, "startup_se"));
		if (!isnan(lace_json_get_num(ml, "per_fault")))
			strbuf_addf(sb, "L1i misses: %.4f ± %.2g per hash fault, %.0f ± %.0f %s. ",
				    lace_json_get_num(ml, "per_fault"), lace_json_get_num(ml, "per_fault_se"), lace_json_get_num(ml, "startup"),
				    lace_json_get_num(ml, "startup_se"), win ? "per run" : "at start-up");
		strbuf_addstr(sb, "At the size of the table, disabled against no tracepoint:");
		for (size_t e = 0; e < NEV; e++) {
			strbuf_addf(sb, "%s %s ", e ? ";" : "", events[e]);
			vs_floor(sb, ev_mean(a, events[e]), ev_mean(b, events[e]), floor_pct(w, events[e]));
		}
		double ib = ev_mean(b, "instructions"), ic = ev_mean(c, "instructions");
		strbuf_addstr(sb, ". Enabling it changes instructions by ");
		pct(sb, ib, ic);
		double hits = count_of(c, "tp_hash_fault");
		if (!isnan(hits))
			strbuf_addf(sb, " for %.0f slow-path calls (the tracepoint's hit counter; no "
					"trace buffer is written)", hits);
		strbuf_addstr(sb, ". These are x86-64 instructions of lace's C model of the ppc64 "
				  "fault path, not the kernel's own code.");
		if (json_object_get(b, "task_clock"))
			strbuf_addstr(sb, " task-clock is native time on a shared machine: its "
					  "differences here, including between enabled and disabled, are "
					  "run-to-run noise unless far larger than the SE shown.");
		strbuf_addstr(sb, "\n\n");
	}
}

static void section_r2(struct strbuf *sb, const json_t *res)
{
	const json_t *q = json_object_get(res, "q2_old_ptes");
	const char *cfgs[] = { "young PTEs", "old PTEs" };
	size_t i;
	json_t *w;

	strbuf_addstr(sb, "## 2. PTEs created old (accessed bit clear) vs young\n\n");
	if (!q) {
		strbuf_addstr(sb, "Not measured.\n\n");
		return;
	}
	json_array_foreach(json_object_get(q, "workloads"), i, w) {
		const json_t *y = row_by(w, "young PTEs"), *o = row_by(w, "old PTEs");
		strbuf_addf(sb, "### `%s`\n\n", js(w, "workload"));
		strbuf_addstr(sb, "| model count | young PTEs | old PTEs | change |\n|---|---:|---:|---:|\n");
		const char *keys[] = { "hash_faults", "linux_faults", "accessed_faults", "inserts",
				       "evictions", "hpte_hits" };
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			double a = count_of(y, keys[k]), b = count_of(o, keys[k]);
			if (isnan(a) && isnan(b))
				continue;
			strbuf_addf(sb, "| %s | ", keys[k]);
			num(sb, a);
			strbuf_addstr(sb, " | ");
			num(sb, b);
			strbuf_addstr(sb, " | ");
			pct(sb, a, b);
			strbuf_addstr(sb, " |\n");
		}
		strbuf_addch(sb, '\n');
		md_events_table(sb, w, cfgs, 2, false);
		double fy = count_of(y, "hash_faults"), fo = count_of(o, "hash_faults");
		strbuf_addstr(sb, "**What the numbers show.** Old PTEs take ");
		if (!isnan(fy) && !isnan(fo))
			strbuf_addf(sb, "%.0f extra hash faults (%.0f → %.0f, ", fo - fy, fy, fo);
		pct(sb, fy, fo);
		strbuf_addstr(sb, !isnan(fy) ? ")" : "");
		strbuf_addstr(sb, ": in this model every first access to an old PTE takes a second "
				  "hash fault that sets the accessed bit in software. The accessed-bit "
				  "review thread measured x86 hardware (A-bit assists, page-walk durations), "
				  "which a user-space model cannot show. Instructions change ");
		pct(sb, ev_mean(y, "instructions"), ev_mean(o, "instructions"));
		strbuf_addstr(sb, ".\n\n");
	}
}

static void section_r3(struct strbuf *sb, const json_t *res)
{
	const json_t *q = json_object_get(res, "q3_path_length");
	size_t i;
	json_t *r;

	strbuf_addstr(sb, "## 3. Path length of the insert paths\n\n");
	if (!q) {
		strbuf_addstr(sb, "Not measured.\n\n");
		return;
	}
	strbuf_addstr(sb, "Instructions per call from the simulator's per-function attribution on "
			  "`faultbench`: **own** counts the function's own code, **path length** adds "
			  "everything it calls (the path length per invocation, as the 142 → 196 "
			  "instructions of the 4K insert's conversion to C were measured).\n\n");
	strbuf_addstr(sb, "| page size | function | calls | own instructions / call | path length / call |\n"
			  "|---|---|---:|---:|---:|\n");
	json_array_foreach(json_object_get(q, "rows"), i, r) {
		if (json_object_get(r, "not_measured")) {
			strbuf_addf(sb, "| %s | not measured: %s | | | |\n", js(r, "page_size"),
				    js(r, "not_measured"));
			continue;
		}
		const char *key;
		json_t *fn;
		json_object_foreach(json_object_get(r, "functions"), key, fn) {
			strbuf_addf(sb, "| %s | `%s` | ", js(r, "page_size"), key);
			num(sb, lace_json_get_num(fn, "calls"));
			const char *k2[] = { "instructions_per_call", "path_length" };
			for (int t = 0; t < 2; t++) {
				double v = lace_json_get_num(fn, k2[t]);
				if (isnan(v))
					strbuf_addstr(sb, " | n/a");
				else
					strbuf_addf(sb, t ? " | **%.1f**" : " | %.1f", v);
			}
			strbuf_addstr(sb, " |\n");
		}
	}
	strbuf_addch(sb, '\n');
	/* A caller whose path is shorter than its callee's did not make most of
	 * the callee's calls (the simulator charges a callee to the caller whose
	 * call entered it).  Say so where the numbers show it. */
	json_array_foreach(json_object_get(q, "rows"), i, r) {
		const json_t *f = json_object_get(r, "functions");
		const json_t *top = json_object_get(f, "hash_page_mm");
		const char *key;
		json_t *fn;
		json_object_foreach((json_t *)f, key, fn) {
			if (fn == top || strncmp(key, "__hash_page_", 12))
				continue;
			if (lace_json_get_num(top, "path_length") < lace_json_get_num(fn, "path_length"))
				strbuf_addf(sb, "With %s pages the path length of `hash_page_mm` (%.1f) "
						"is shorter than that of `%s` (%.1f): a path length counts "
						"only what a function calls itself, so in this run `%s` was "
						"mostly entered from another caller (the table lists the "
						"candidates measured, e.g. the preload after a Linux fault).\n\n",
					    js(r, "page_size"), lace_json_get_num(top, "path_length"), key,
					    lace_json_get_num(fn, "path_length"), key);
		}
	}
}

static void render_md(struct strbuf *sb, const json_t *res, bool html_figs)
{
	const json_t *be = json_object_get(res, "backend");
	const json_t *b = json_object_get(res, "build");
	strbuf_addstr(sb, "# lace study: does moving entry code, tracepoint slow paths and cold code "
			  "hurt icache/iTLB?\n\n");
	strbuf_addf(sb, "- lace %s; backend: **%s** (%s)\n", js(res, "lace_version"), js(be, "used"),
		    js(be, "why"));
	strbuf_addf(sb, "- variants: ");
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(b, "variants"), i, v)
		strbuf_addf(sb, "%s`%s`", i ? ", " : "", json_string_value(v));
	strbuf_addf(sb, "; %zu randomized-layout builds of baseline (seed %lld) give reading 1's "
			"layout noise floor and a check of reading 4's layout family\n",
		    json_array_size(json_object_get(b, "shuffles")),
		    (long long)json_integer_value(json_object_get(b, "shuffle_seed")));
	strbuf_addf(sb, "- the study took %.0f s%s\n\n", lace_json_get_num(res, "seconds"),
		    json_is_true(json_object_get(res, "quick")) ? " (--quick)" : "");
	if (simulated(res) && windowed(res))
		strbuf_addstr(sb, "Counts marked (sim) come from lace-vg, the simulator: deterministic, so one "
				  "run per build suffices and the noise that remains is the layout's own. "
				  "They count each workload's measurement window only (`lace stat --window`: "
				  "the part the workload times, its touch loop or its message passing), so "
				  "the dynamic loader, libc's start-up, the workload's set-up and its exit "
				  "are in no number; the caches are simulated all along, so a window starts "
				  "warm. Reading 3's per-function path lengths count whole runs.\n\n");
	else if (simulated(res))
		strbuf_addstr(sb, "Counts marked (sim) come from lace-vg, the simulator: deterministic, so one "
				  "run per build suffices and the noise that remains is the layout's own. "
				  "They count the whole run of each workload, start-up included (reading 1 "
				  "separates the two with a fit over sizes).\n\n");
	section_r1(sb, res);
	section_r2(sb, res);
	section_r3(sb, res);
	study_r4_section(sb, res);
	(void)html_figs;
}

/* Reading 4's charts (every build as built, the band of baseline's
 * family), then the layout maps. */
static void figures(struct strbuf *out, const json_t *res, const char *dir)
{
	strbuf_addstr(out, "<h2>Figures</h2>\n");
	study_r4_figures(out, res);
	/* the layout maps, inlined */
	const char *name;
	json_t *d;
	json_object_foreach(json_object_get(res, "layout"), name, d) {
		if (strstr(name, "shuffle") || !json_object_get(d, "svg"))
			continue;
		struct strbuf path = STRBUF_INIT, svg = STRBUF_INIT;
		strbuf_addf(&path, "%s/%s", dir, js(d, "svg"));
		if (strbuf_read_file(&svg, path.buf) == 0) {
			const char *start = strstr(svg.buf, "<svg");
			strbuf_addf(out, "<figure class=\"map\">\n%s\n<figcaption>Layout map, baseline (top) vs "
					 "%s (bottom): 4 KiB pages coloured by region, hot functions "
					 "marked, moved functions linked.</figcaption>\n</figure>\n",
				    start ? start : "", name);
		}
		strbuf_release(&svg);
		strbuf_release(&path);
	}
}

int study_write_reports(const json_t *res, const char *dir)
{
	struct strbuf md = STRBUF_INIT, body = STRBUF_INIT;
	int rc;

	render_md(&md, res, false);
	study_md_to_html(&body, md.buf);
	figures(&body, res, dir);
	rc = study_write_files(dir, "lace study", &md, &body, res);
	strbuf_release(&md);
	strbuf_release(&body);
	return rc;
}

void study_print_summary(const json_t *res, FILE *f)
{
	fprintf(f, "\nlace study (backend %s, %.0f s)\n\n", js(json_object_get(res, "backend"), "used"),
		lace_json_get_num(res, "seconds"));
	study_r4_summary(res, f);
}
