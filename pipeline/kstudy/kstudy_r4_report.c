/* Reading 4's part of the kernel study's reports (kstudy_r4.h): every
 * number in its tables is one that kstudy_r4_design.c stored in
 * results.json. */
#include "pipeline/kstudy/kstudy_r4.h"

#include <math.h>
#include <string.h>

#include "measure/stats/placement.h"
#include "pipeline/kstudy/kstudy_r4_design.h"
#include "pipeline/placement_render.h"
#include "pipeline/svgplot.h"
#include "util/array.h"
#include "util/json.h"
#include "util/xalloc.h"

#define L1K "L1-icache-load-misses:k"

static const char *js(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static double jnum(const json_t *o, const char *k)
{
	return lace_json_get_num(o, k);
}

static const char *short_name(const char *k)
{
	return strncmp(k, "x86_64-", 7) ? k : k + 7;
}

static void num(struct strbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, fmt, v);
}

static void verdict(struct strbuf *sb, const json_t *t, bool withheld)
{
	const char *v = js(t, "verdict");

	if (!json_is_true(json_object_get(t, "primary")) && json_object_get(t, "primary")) {
		strbuf_addstr(sb, "(estimate)");
		return;
	}
	if (withheld) {
		strbuf_addstr(sb, "withheld: the controls failed");
		return;
	}
	strbuf_addstr(sb, v);
	if (!strcmp(v, "no verdict possible"))
		strbuf_addf(sb, ": smallest detectable effect %.2f%%", jnum(t, "mde_percent"));
	else if (!strcmp(v, "equivalent"))
		strbuf_addstr(sb, " within +-1%");
}

static void table_verdicts(struct strbuf *sb, const json_t *r4, bool withheld)
{
	size_t i;
	json_t *t;

	strbuf_addstr(sb, "| profile | A -> B | event | A (mean) | B (mean) | effect [95% CI] | p | Holm p | "
			  "sign-flip p | Shapiro-Wilk p | smallest detectable | verdict |\n"
			  "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
	json_array_foreach(json_object_get(r4, "verdicts"), i, t) {
		strbuf_addf(sb, "| %s | `%s` -> `%s` | `%s` | ", js(t, "profile"), short_name(js(t, "a")),
			    short_name(js(t, "b")), js(t, "event"));
		num(sb, jnum(t, "a_mean"), "%.0f");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "b_mean"), "%.0f");
		strbuf_addstr(sb, " | ");
		placement_render_effect(sb, t);
		strbuf_addstr(sb, " | ");
		placement_render_stats_cells(sb, t);
		verdict(sb, t, withheld);
		strbuf_addstr(sb, " |\n");
	}
}

static const json_t *find_verdict(const json_t *r4, const char *profile, const char *a, const char *b,
				  const char *ev)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(r4, "verdicts"), i, t)
		if (!strcmp(js(t, "profile"), profile) && !strcmp(js(t, "a"), a) && !strcmp(js(t, "b"), b) &&
		    !strcmp(js(t, "event"), ev))
			return t;
	return NULL;
}

static const char *ok_word(const json_t *c, const char *k)
{
	return json_is_true(json_object_get(c, k)) ? "holds" : "FAILS";
}

/* a positive control's doses, one row each: the event's effect and its
 * tests (holm: which doses share a Holm family) */
static void dose_table(struct strbuf *sb, const json_t *pos, const char *event, const char *holm)
{
	size_t i;
	json_t *t;

	strbuf_addf(sb, "| N | %s: effect [95%% CI] | p | Holm p (%s) | sign-flip p | Shapiro-Wilk p | "
			"smallest detectable | verdict |\n|---:|---|---:|---:|---:|---:|---:|---|\n",
		    event, holm);
	json_array_foreach(json_object_get(pos, "doses"), i, t) {
		strbuf_addf(sb, "| %lld | ", (long long)json_integer_value(json_object_get(t, "n")));
		placement_render_effect(sb, t);
		strbuf_addstr(sb, " | ");
		placement_render_stats_cells(sb, t);
		strbuf_addf(sb, "%s |\n", js(t, "verdict"));
	}
	strbuf_addch(sb, '\n');
}

/* the iTLB version of the positive control (kstudy_r4_design.c) */
static void positive_itlb(struct strbuf *sb, const json_t *r4)
{
	const json_t *c = json_object_get(r4, "controls"), *pos = json_object_get(r4, "positive_itlb");

	if (json_object_get(r4, "positive_itlb_not_measured")) {
		strbuf_addf(sb, "- Positive control, iTLB: not measured: %s.\n",
			    js(r4, "positive_itlb_not_measured"));
		return;
	}
	if (!pos)
		return;
	strbuf_addf(sb, "- Positive control, iTLB (%s): the same N hot functions each at the start of a "
			"2 MiB page of its own (`kernel/layouts/spread-16.edit`), so that from N = 8 on they "
			"and baseline's own hot pages need more than Skylake's %lld large-page iTLB entries; "
			"slower from N = 8 on: %s, monotone: %s (N = 4 carries no claim: the edit also moves "
			"the text behind the functions).\n\n",
		    ok_word(c, "positive_itlb"), (long long)json_integer_value(json_object_get(pos, "entries")),
		    json_is_true(json_object_get(pos, "slower_above_entries")) ? "yes" : "NO",
		    json_is_true(json_object_get(pos, "monotone")) ? "yes" : "NO");
	dose_table(sb, pos, "kernel iTLB misses", "N >= 8; N = 4");
}

static void controls(struct strbuf *sb, const json_t *r4)
{
	const json_t *c = json_object_get(r4, "controls"), *pos = json_object_get(r4, "positive");
	const json_t *neg = find_verdict(r4, kstudy_r4_profiles[0], "x86_64-baseline", "x86_64-entry-align-4k", L1K);
	size_t i;
	json_t *t;

	strbuf_addf(sb, "**The controls** (judged before any verdict; %s).\n\n",
		    json_is_true(json_object_get(c, "ok")) ? "all hold" :
		    "**they do not all hold: no verdict is given below**");
	if (neg)
		strbuf_addf(sb, "- Negative control (%s): `entry-align-4k` against baseline, every address "
				"the same modulo 4096: %lld of %lld cells with equal kernel L1i misses, %s.\n",
			    ok_word(c, "negative"), (long long)json_integer_value(json_object_get(neg, "cells_equal")),
			    (long long)json_integer_value(json_object_get(neg, "cells")), js(neg, "verdict"));
	strbuf_addf(sb, "- A vs A (%s): each execution's build against itself, two independent draws per "
			"cell (the same design, E and K):", ok_word(c, "aa"));
	json_array_foreach(json_object_get(json_object_get(r4, "aa"), "events"), i, t) {
		strbuf_addf(sb, "%s `%s` ", i ? ";" : "", js(t, "event"));
		placement_render_effect(sb, t);
		strbuf_addf(sb, ", %s", js(t, "verdict"));
	}
	strbuf_addstr(sb, ".\n");
	if (json_object_get(r4, "positive_not_measured")) {
		strbuf_addf(sb, "- Positive control: not measured: %s.\n", js(r4, "positive_not_measured"));
	} else if (pos) {
		strbuf_addf(sb, "- Positive control, dose-response (%s): N hot kernel functions (lace replay "
				"--hot --hot-by entries --write-edit, `kernel/layouts/conflict-16.edit`) at one offset modulo "
				"4 KiB, so their first lines share one L1i set of Skylake's %lld ways; "
				"slower above the ways: %s, monotone: %s, within the smallest detectable effect "
				"below them: %s; the real build of N = 16 (`baseline-conflict-16`) against its "
				"virtual edit: %lld of %lld counts equal.\n\n",
			    ok_word(c, "positive"), (long long)json_integer_value(json_object_get(pos, "ways")),
			    json_is_true(json_object_get(pos, "slower_above_ways")) ? "yes" : "NO",
			    json_is_true(json_object_get(pos, "monotone")) ? "yes" : "NO",
			    json_is_true(json_object_get(pos, "within_mde_below_ways")) ? "yes" : "no",
			    (long long)json_integer_value(json_object_get(pos, "real_equal")),
			    (long long)json_integer_value(json_object_get(pos, "real_compared")));
		dose_table(sb, pos, "kernel L1i misses", "above the ways; below");
	}
	positive_itlb(sb, r4);
	strbuf_addstr(sb, "- Power, shown: a known effect added to the seed pair's own noise (its "
			  "per-execution means about their mean, signs flipped at random: what the null "
			  "would give), detected when the t test's p <= 0.05 in its direction, over 200 "
			  "trials each:");
	json_array_foreach(json_object_get(r4, "power"), i, t)
		strbuf_addf(sb, "%s %s (%+.2f%%): %lld of %lld trials", i ? ";" : "", js(t, "rung"),
			    jnum(t, "effect_percent"), (long long)json_integer_value(json_object_get(t, "detected")),
			    (long long)json_integer_value(json_object_get(t, "trials")));
	strbuf_addstr(sb, ".\n\n");
}

static void family(struct strbuf *sb, const json_t *r4)
{
	const json_t *f = json_object_get(r4, "family_checks"), *ks = json_object_get(f, "relink_ranks_ks");
	size_t i;
	json_t *t;

	strbuf_addf(sb, "**The family.** %lld/%lld relinks and %lld/%lld reordered builds reproduced "
			"exactly by virtual layouts (every event, kernel and user side, of baseline's first "
			"execution replayed through the real build and through its virtual layout: the "
			"relink's pad vector, or the draw its order was made from).",
		    (long long)json_integer_value(json_object_get(f, "relinks_exact")),
		    (long long)json_integer_value(json_object_get(f, "relinks_total")),
		    (long long)json_integer_value(json_object_get(f, "reorders_exact")),
		    (long long)json_integer_value(json_object_get(f, "reorders_total")));
	json_array_foreach(json_object_get(f, "baseline_ranks"), i, t) {
		const json_t *rk = json_object_get(t, "rank");
		strbuf_addf(sb, " Baseline as built among %lld draws of the %s family, `%s`: %.0f, %lld draws "
				"below it and %lld above (range %.0f-%.0f; two-sided rank p %.2f).",
			    (long long)json_integer_value(json_object_get(rk, "draws")), js(t, "family"),
			    js(rk, "event"), jnum(rk, "value"),
			    (long long)json_integer_value(json_object_get(rk, "below")),
			    (long long)json_integer_value(json_object_get(rk, "above")), jnum(rk, "min"),
			    jnum(rk, "max"), jnum(rk, "p"));
	}
	if (ks)
		strbuf_addf(sb, " The real relinks' quantiles among the relink family's draws (kernel L1i): "
				"Kolmogorov-Smirnov D %.3f against uniform, p %.2f (asymptotic).", jnum(ks, "D"),
			    jnum(ks, "p"));
	strbuf_addstr(sb, " Verdicts use the function family: it moves functions relative to each "
			  "other, as a placement change or another link order does; the relink family "
			  "moves four regions rigidly.\n\n");
}

static void executions(struct strbuf *sb, const json_t *r4)
{
	static const char *const cols[] = { "instructions:k", L1K, "iTLB-load-misses:k",
					    "L1-icache-load-misses:u", "iTLB-load-misses:u" };
	size_t i;
	json_t *o;

	strbuf_addstr(sb, "**The executions** (live, each boot recorded):\n\n| execution | kernel | "
			  "perturbation |");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		strbuf_addf(sb, " %s |", cols[c]);
	strbuf_addstr(sb, "\n|---:|---|---:|");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		strbuf_addstr(sb, "---:|");
	strbuf_addch(sb, '\n');
	json_array_foreach(json_object_get(r4, "executions"), i, o) {
		strbuf_addf(sb, "| %zu | `%s` | %lld |", i, short_name(js(o, "kernel")),
			    (long long)json_integer_value(json_object_get(o, "perturbation")));
		if (json_object_get(o, "not_measured")) {
			strbuf_addf(sb, " not measured: %s |||||\n", js(o, "not_measured"));
			continue;
		}
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			strbuf_addch(sb, ' ');
			num(sb, jnum(json_object_get(o, "events"), cols[c]), "%.0f");
			strbuf_addstr(sb, " |");
		}
		strbuf_addch(sb, '\n');
	}
}

/* the executions through the same draws: how far they differ by themselves */
static void same_draws(struct strbuf *sb, const json_t *r4)
{
	const json_t *sd = json_object_get(r4, "same_draws"), *v;
	size_t i;

	if (!isfinite(jnum(sd, "sd_percent")))
		return;
	strbuf_addf(sb, "\n**The executions, held to the same layouts.** The first execution of each "
			"kernel replayed through the same %.0f draws (execution 0's first ones): the seed "
			"pair's effect on kernel L1i misses", jnum(sd, "draws"));
	json_array_foreach(json_object_get(sd, "effects_percent"), i, v) {
		strbuf_addf(sb, "%s execution %lld ", i ? "," : "",
			    (long long)json_integer_value(json_array_get(json_object_get(sd, "executions"), i)));
		if (json_is_number(v))
			strbuf_addf(sb, "%+.2f%%", json_number_value(v));
		else
			strbuf_addstr(sb, "not measured");
	}
	double K = jnum(json_object_get(r4, "design"), "draws");
	strbuf_addf(sb, ": an sd of %.2f%% between the executions, against %.2f%% between one "
			"execution's draws, so in the design's per-execution means (%.0f draws each) the "
			"executions put about %.2f%% and the layouts %.2f%%.\n",
		    jnum(sd, "sd_percent"), jnum(sd, "cell_sd_percent"), K, jnum(sd, "sd_percent"),
		    jnum(sd, "cell_sd_percent") / sqrt(K));
}

/* the seed's question, in numbers */
static void seed_answer(struct strbuf *sb, const json_t *r4, bool withheld)
{
	const json_t *live = json_object_get(r4, "live");
	double a = jnum(json_object_get(live, KSTUDY_R4_SEED_A), "mean");
	double b = jnum(json_object_get(live, KSTUDY_R4_SEED_B), "mean");

	strbuf_addstr(sb, "\n**The seed's question.** The kprobes thread measured kernel L1i misses "
			  "6.13% lower with the entry code in `.entry.text` than without (perf stat -r "
			  "100/500 on one build of each, real hardware): a difference between two binaries, "
			  "each one draw of its incidental layout. Here, per core:");
	for (size_t p = 0; p < KSTUDY_R4_NPROFILES; p++) {
		const json_t *t = find_verdict(r4, kstudy_r4_profiles[p], KSTUDY_R4_SEED_A,
					       KSTUDY_R4_SEED_B, L1K);
		if (!t)
			continue;
		strbuf_addf(sb, " on %s, moving the entry code into `.text` changes kernel L1i misses by ",
			    kstudy_r4_profiles[p]);
		placement_render_effect(sb, t);
		strbuf_addf(sb, " over %.0f executions x %.0f layout pairs (", jnum(t, "executions"),
			    jnum(t, "draws_per_execution"));
		verdict(sb, t, withheld);
		strbuf_addstr(sb, ");");
	}
	if (isfinite(a) && isfinite(b) && a > 0)
		strbuf_addf(sb, " the live boots of the two builds, compared as the thread compared them, "
				"differ by %+.2f%% (entry-in-text against entry-align-8, each kernel's own "
				"boots), which is what two executions and two layouts say together.",
			    100.0 * (b - a) / a);
	strbuf_addstr(sb, " A cross-build difference of 6% is the size that one layout draw per build "
			  "produces (the spread of the function family's draws is shown above); the "
			  "placement's own effect is the interval above, and a verdict about it needs the "
			  "design, not two binaries.\n");
}

/* The design's reach for the seed pair: its variance components, its
 * smallest detectable effect, and which level sets it (the one whose
 * share of a mean's variance is larger), so the next design knows what
 * to buy. */
static void reach(struct strbuf *sb, const json_t *sp)
{
	double vw = jnum(sp, "var_within"), vb = jnum(sp, "var_between");
	double K = jnum(sp, "draws_per_execution");
	const json_t *e1 = json_object_get(sp, "executions_for_1pct");
	const json_t *e2 = json_object_get(sp, "executions_for_1pct_many_draws");

	strbuf_addf(sb, "\n**The design's reach.** For the seed pair's kernel L1i misses the layouts "
			"spread a cell by an sd of %.2f%% and the executions the effect itself by %.2f%% "
			"(variance components of the nested design); with %.0f executions x %.0f draws "
			"its smallest detectable effect is %.2f%%. ",
		    100 * sqrt(vw), 100 * sqrt(vb), jnum(sp, "executions"), K, jnum(sp, "mde_percent"));
	if (json_is_integer(e1))
		strbuf_addf(sb, "An effect of 1%% takes about %lld executions at %.0f draws each",
			    (long long)json_integer_value(e1), K);
	else
		strbuf_addf(sb, "No number of executions at %.0f draws each reaches an effect of 1%%", K);
	if (json_is_integer(e2))
		strbuf_addf(sb, ", and %lld with unlimited draws", (long long)json_integer_value(e2));
	strbuf_addstr(sb, vw / K > vb ?
		      ": the layouts, not the executions, set the reach, and a draw (a replay) costs a "
		      "fraction of a boot.\n" :
		      ": the executions, not the layouts, set the reach (a boot each).\n");
}

void kstudy_r4_section(struct strbuf *sb, const json_t *res)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text"), *d = json_object_get(r4, "design"), *k;
	bool withheld = !json_is_true(json_object_get(json_object_get(r4, "controls"), "ok"));
	size_t i;

	strbuf_addstr(sb, "## 4. x86-64 entry code in `.entry.text` or in `.text`: hackbench\n\n`");
	json_array_foreach(json_object_get(r4, "workload"), i, k)
		strbuf_addf(sb, "%s%s", i ? " " : "", json_string_value(k));
	strbuf_addf(sb, "` (lace's hackbench). Two builds boot into two executions, and one build is one "
			"draw of its incidental layout, so a placement is judged on **recorded executions "
			"replayed through virtual layouts of both builds** (`lace ab --same-execution`'s "
			"design): %.0f executions recorded round robin from baseline, entry-align-8, "
			"entry-in-text and entry-align-4k (each kernel's boots with their own timing "
			"perturbation), each replayed through %.0f paired draws of the %s family (%.0f on the "
			"second profile), fresh per execution. The effect is the mean over executions and "
			"layouts of ln(B/A), as a percentage; the test is the t test on the executions' "
			"means (df E-1) with a sign-flip p beside it; the primary events (kernel L1i and iTLB "
			"misses) are Holm-adjusted over every pair and profile, the user side is an estimate. "
			"Verdicts: slower/faster at Holm p <= 0.05, equivalent when TOST puts the effect "
			"inside +-%.0f%%, otherwise \"no verdict possible\" when the smallest detectable "
			"effect exceeds the margin.\n\n",
		    jnum(d, "executions"), jnum(d, "draws"), js(d, "family"), jnum(d, "draws_second_profile"),
		    jnum(d, "margin_percent"));
	controls(sb, r4);
	strbuf_addstr(sb, "**The verdicts** (skylake-client: Skylake, 8-way 32 KiB L1i, kernel text in "
			  "2 MiB pages with 8 large-page iTLB entries; nehalem: the seed's Core i7-920, "
			  "4-way L1i, 7 large-page entries):\n\n");
	table_verdicts(sb, r4, withheld);
	const json_t *sp = find_verdict(r4, kstudy_r4_profiles[0], KSTUDY_R4_SEED_A,
					KSTUDY_R4_SEED_B, L1K);
	if (sp && isfinite(jnum(sp, "var_within")))
		reach(sb, sp);
	strbuf_addch(sb, '\n');
	family(sb, r4);
	executions(sb, r4);
	same_draws(sb, r4);
	seed_answer(sb, r4, withheld);
	strbuf_addstr(sb, "\n**What the emulation cannot show.** Time and the front end's other "
			  "structures: the uop cache, the branch predictor, prefetchers and the page walker "
			  "are not modelled.\n\n");
}

void kstudy_r4_figure(struct strbuf *html, const json_t *res)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text");
	size_t n = json_array_size(json_object_get(r4, "executions")), i;
	json_t *o;
	struct svgplot_bar *bars = xcalloc(n + 1, sizeof(*bars));
	char (*labels)[24] = xcalloc(n + 1, sizeof(*labels));


/* the executions' own spread: what two boots of two builds differ by
	 * with no placement question asked (the executions table's column) */
	json_array_foreach(json_object_get(r4, "executions"), i, o) {
		snprintf(labels[i], sizeof(labels[i]), "%zu", i);
		bars[i] = (struct svgplot_bar){ labels[i], json_object_get(o, "not_measured") ? NAN :
			jnum(json_object_get(o, "events"), L1K), short_name(js(o, "kernel")) };
	}
	strbuf_addstr(html, "<figure>\n");
	svgplot_bars(html, &(struct svgplot){ "hackbench, each recorded execution: kernel L1i misses (live)",
					      "misses", bars, n, NAN, NAN, NULL });
	strbuf_addstr(html, "<figcaption>Reading 4: every recorded boot, as the executions table gives "
			    "it. The builds' differences here mix the placement with the execution; "
			    "the verdicts replay each execution through both builds.</figcaption></figure>\n");
	free(bars);
	free(labels);
}

/* The summary's columns: profile, pair, event, effect, verdict. */
#define SUMMARY_COLS 5

/* The primary verdicts as the summary's rows under a header row, each
 * column but the last as wide as its widest cell (an event such as
 * "L1-icache-load-misses:k" is wider than a fixed column was). */
static void summary_table(FILE *f, const json_t *verdicts, bool withheld)
{
	static const char *const head[SUMMARY_COLS] = { "profile", "A -> B", "event",
							"effect [95% CI]", "verdict" };
	size_t nrows = json_array_size(verdicts) + 1, i, n = 1;
	struct strbuf (*rows)[SUMMARY_COLS] = xcalloc(nrows, sizeof(*rows));
	int w[SUMMARY_COLS - 1] = { 0 };
	json_t *t;

	for (i = 0; i < nrows; i++)
		for (size_t c = 0; c < SUMMARY_COLS; c++)
			strbuf_init(&rows[i][c], 0);
	for (size_t c = 0; c < SUMMARY_COLS; c++)
		strbuf_addstr(&rows[0][c], head[c]);
	json_array_foreach(verdicts, i, t) {
		struct strbuf *r = rows[n];

		if (!json_is_true(json_object_get(t, "primary")))
			continue;
		strbuf_addstr(&r[0], js(t, "profile"));
		strbuf_addf(&r[1], "%s -> %s", short_name(js(t, "a")), short_name(js(t, "b")));
		strbuf_addstr(&r[2], js(t, "event"));
		placement_render_effect(&r[3], t);
		verdict(&r[4], t, withheld);
		n++;
	}
	for (i = 0; i < n; i++)
		for (size_t c = 0; c + 1 < SUMMARY_COLS; c++)
			w[c] = rows[i][c].len > (size_t)w[c] ? (int)rows[i][c].len : w[c];
	for (i = 0; n > 1 && i < n; i++)
		fprintf(f, "    %-*s  %-*s  %-*s  %-*s  %s\n", w[0], rows[i][0].buf, w[1], rows[i][1].buf,
			w[2], rows[i][2].buf, w[3], rows[i][3].buf, rows[i][4].buf);
	for (i = 0; i < nrows; i++)
		for (size_t c = 0; c < SUMMARY_COLS; c++)
			strbuf_release(&rows[i][c]);
	free(rows);
}

void kstudy_r4_summary(const json_t *res, FILE *f)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text"), *fc = json_object_get(r4, "family_checks");
	bool withheld = !json_is_true(json_object_get(json_object_get(r4, "controls"), "ok"));

	fprintf(f, "\n  hackbench on x86-64: %.0f executions x %.0f virtual layout pairs; controls %s\n",
		jnum(json_object_get(r4, "design"), "executions"), jnum(json_object_get(r4, "design"), "draws"),
		withheld ? "FAILED (no verdicts)" : "hold");
	fprintf(f, "    %lld/%lld relinks and %lld/%lld reordered builds reproduced exactly by virtual layouts\n",
		(long long)json_integer_value(json_object_get(fc, "relinks_exact")),
		(long long)json_integer_value(json_object_get(fc, "relinks_total")),
		(long long)json_integer_value(json_object_get(fc, "reorders_exact")),
		(long long)json_integer_value(json_object_get(fc, "reorders_total")));
	summary_table(f, json_object_get(r4, "verdicts"), withheld);
}
