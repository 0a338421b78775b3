/* Reading 4 of lace study in its reports (study_r4.h): every number is
 * one that study_analysis.c stored in results.json's "q4_placement", said
 * in the kernel study's reading 4's words (pipeline/kstudy/
 * kstudy_r4_report.c), the effects and verdicts through
 * pipeline/placement_render.h as every report of the design. */
#include "pipeline/study_r4.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/placement_render.h"
#include "pipeline/svgplot.h"
#include "util/json.h"
#include "util/xalloc.h"

static const char *js(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static double jnum(const json_t *o, const char *k)
{
	return lace_json_get_num(o, k);
}

static long long jint(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static void num(struct strbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, fmt, v);
}

static bool withheld(const json_t *q)
{
	return !json_is_true(json_object_get(json_object_get(q, "controls"), "ok"));
}

static void verdict(struct strbuf *sb, const json_t *t, bool held)
{
	if (!json_is_true(json_object_get(t, "primary")))
		strbuf_addstr(sb, "(estimate)");
	else if (held)
		strbuf_addstr(sb, "withheld: the controls failed");
	else if (json_object_get(t, "error"))
		strbuf_addf(sb, "no verdict possible: %s", js(t, "error"));
	else
		placement_render_verdict(sb, t);
}

/* the short names of the primaries in prose */
static const char *short_event(const char *ev)
{
	return !strcmp(ev, "L1-icache-load-misses") ? "L1i misses" :
	       !strcmp(ev, "iTLB-load-misses") ? "iTLB misses" : ev;
}

static const json_t *executions(const json_t *q)
{
	return json_object_get(q, "executions");
}

/* the first execution's reason a variant was not measured, or NULL */
static const char *not_measured(const json_t *q, const char *variant)
{
	const json_t *r = json_object_get(json_object_get(json_array_get(executions(q), 0), "replays"),
					  variant);

	return json_string_value(json_object_get(r, "not_measured"));
}

/* the size of the Holm family the verdicts were adjusted in */
static long long holm_family(const json_t *q)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(q, "verdicts"), i, t)
		if (json_object_get(t, "holm_family"))
			return jint(t, "holm_family");
	return 0;
}

static void design(struct strbuf *sb, const json_t *q)
{
	const json_t *d = json_object_get(q, "design");

	strbuf_addf(sb, "`%s` (lace's hackbench, simulated). One build is one draw of its incidental "
			"layout, so a placement is judged on **recorded executions replayed through "
			"virtual layouts of both builds** (`lace ab --same-execution`'s design, as the "
			"kernel study's reading 4): %lld executions of baseline recorded (`lace stat "
			"--backend sim --record`; execution e with an environment %lld·e characters larger, "
			"`%s`), each replayed (`lace replay --virtual K`) through %lld paired draws of the "
			"%s family of baseline and of each variant (draw k of both laid out by the same "
			"draw; without a link map the family puts each region's functions in another "
			"order), fresh per execution. The effect is the mean over executions and layouts "
			"of ln(variant/baseline), as a percentage; the test is the t test on the "
			"executions' means (df E-1) with a sign-flip p beside it; the primary events (L1i "
			"and iTLB misses) are Holm-adjusted over every variant measured (%lld tests), the "
			"loads are estimates, and instructions, the recorded ones in every replay, are no "
			"test. Verdicts: "
			"slower/faster at Holm p <= %g, equivalent when TOST puts the effect inside "
			"+-%g%%, otherwise \"no verdict possible\" when the smallest detectable effect "
			"exceeds the margin, else inconclusive. A layout of which more than %g%% of the "
			"executed instructions could only be carried approximately (code a variant adds "
			"or changes) is refused by `lace replay` and shown as not measured, with its "
			"reason.\n\n",
		    js(q, "workload"), jint(d, "executions"), jint(d, "perturbation_step"), js(d, "perturbation"),
		    jint(d, "draws"), js(d, "family"), holm_family(q), jnum(d, "alpha"), jnum(d, "margin_percent"),
		    jnum(q, "max_approx_pct"));
}

/* were the executions other executions, and does one depend on the build? */
static void executions_said(struct strbuf *sb, const json_t *q)
{
	const json_t *c = json_object_get(q, "executions_check"), *ev = json_object_get(c, "events");
	static const char *const shown[] = { "instructions", "L1-icache-load-misses", "iTLB-load-misses" };
	long long n = jint(c, "measured"), nl = jint(q, "live_compared"), eq = jint(q, "live_equal");

	strbuf_addstr(sb, "**The executions.** ");
	if (json_is_true(json_object_get(c, "identical"))) {
		strbuf_addf(sb, "The %lld recordings gave identical counts (", n);
		for (size_t i = 0; i < 3; i++)
			strbuf_addf(sb, "%s%s %.0f", i ? ", " : "", shown[i], jnum(json_object_get(ev, shown[i]), "min"));
		strbuf_addstr(sb, "): the simulator runs each process alone on caches of its own, with no "
				  "interrupts and no clock but the instruction count, so the environment's "
				  "size changes no executed instruction. The executions are replicas: the "
				  "variance between executions is 0, and the verdicts below are about this "
				  "one execution, averaged over layouts; they say nothing of run-to-run noise "
				  "on hardware. ");
	} else {
		strbuf_addf(sb, "The %lld recordings differ (", n);
		for (size_t i = 0; i < 3; i++)
			strbuf_addf(sb, "%s%s %.0f to %.0f", i ? ", " : "", shown[i],
				    jnum(json_object_get(ev, shown[i]), "min"), jnum(json_object_get(ev, shown[i]), "max"));
		strbuf_addstr(sb, "): other executions of the same code. ");
	}
	if (jint(c, "replay_equal") == jint(c, "replay_compared") && jint(c, "replay_compared"))
		strbuf_addf(sb, "Replayed through its own build, each recording gives its recorded run's "
				"counts exactly (%lld of %lld). ", jint(c, "replay_equal"), jint(c, "replay_compared"));
	else
		strbuf_addf(sb, "**%lld of %lld recordings replayed through their own build differ from "
				"their live counts (a replay bug).** ",
			    jint(c, "replay_compared") - jint(c, "replay_equal"), jint(c, "replay_compared"));
	if (nl && eq == nl) {
		strbuf_addf(sb, "Each variant was also run live, its own execution: %lld of %lld gave "
				"exactly the counts of the first execution replayed through it as built, so "
				"the execution does not depend on the build either, and every execution is "
				"recorded on baseline (a variant's recording would be the same execution "
				"under the variant's addresses).\n\n", eq, nl);
	} else if (nl) {
		size_t i;
		json_t *v;

		strbuf_addf(sb, "Each variant was also run live, its own execution: %lld of %lld gave other "
				"counts than the first execution replayed through it (", nl - eq, nl);
		json_array_foreach(json_object_get(q, "live_differ"), i, v)
			strbuf_addf(sb, "%s`%s`", i ? ", " : "", json_string_value(v));
		strbuf_addstr(sb, "), so comparing two builds' runs would mix an execution effect into "
				  "the placement's; the verdicts compare the same executions.\n\n");
	} else {
		strbuf_addstr(sb, "\n\n");
	}
}

static void controls(struct strbuf *sb, const json_t *q)
{
	const json_t *c = json_object_get(q, "controls"), *fc = json_object_get(q, "family_checks");
	bool remarkable = false;
	size_t i;
	json_t *t;

	strbuf_addf(sb, "**The controls** (judged before any verdict; %s).\n\n",
		    json_is_true(json_object_get(c, "ok")) ? "they hold" :
		    "**A vs A fails: no verdict is given below**");
	strbuf_addf(sb, "- A vs A (%s): baseline against itself, two independent draws per cell (draw "
			"2k-1 against 2k, of a seed of its own; the same E and K):",
		    json_is_true(json_object_get(c, "aa")) ? "holds" : "FAILS");
	json_array_foreach(json_object_get(json_object_get(q, "aa"), "events"), i, t) {
		strbuf_addf(sb, "%s `%s` ", i ? ";" : "", js(t, "event"));
		placement_render_effect(sb, t);
		strbuf_addstr(sb, ", ");
		placement_render_verdict(sb, t);
	}
	strbuf_addf(sb, ".\n- The family (reported whatever it is: a family whose draws cannot give the "
			"build measured is not its layout noise): baseline as built, the first execution, "
			"among %lld draws of its %s family:", jint(json_object_get(q, "design"), "family_draws"),
		    js(json_object_get(q, "design"), "family"));
	json_array_foreach(json_object_get(fc, "baseline_ranks"), i, t) {
		const json_t *rk = json_object_get(t, "rank");

		strbuf_addf(sb, "%s `%s` %.0f, %lld draws below it and %lld above (range %.0f-%.0f; "
				"two-sided rank p %.2g)", i ? ";" : "", js(t, "event"), jnum(rk, "value"),
			    jint(rk, "below"), jint(rk, "above"), jnum(rk, "min"), jnum(rk, "max"), jnum(rk, "p"));
		remarkable |= jnum(rk, "p") <= jnum(json_object_get(q, "design"), "alpha");
	}
	if (json_array_size(json_object_get(fc, "baseline_ranks")))
		strbuf_addstr(sb, remarkable ?
			      ". Where that p is at most 0.05, baseline's own link is not a typical draw of "
			      "its family (laid out without a link map, from the functions alone): that "
			      "event's verdicts are about the family's layouts, not about this link.\n" :
			      ". Baseline's own link is an unremarkable draw of its family.\n");
	else
		strbuf_addstr(sb, " not measured.\n");
	if (json_array_size(json_object_get(fc, "randomized")))
		strbuf_addstr(sb, "- The randomized builds (`lace build --shuffle`: every input section in "
				  "a random order, 0-112 bytes of padding before each), the first execution "
				  "replayed through each as built:");
	json_array_foreach(json_object_get(fc, "randomized"), i, t) {
		const json_t *rk = json_object_get(t, "baseline_among_them");

		strbuf_addf(sb, "%s `%s`: their mean %+.0f from baseline's, baseline with %lld of the %lld "
				"below it and %lld above (two-sided rank p %.2g); their quantiles among the "
				"family's draws: Kolmogorov-Smirnov D %.3f against uniform, p %.2g "
				"(asymptotic)", i ? ";" : "", js(t, "event"), jnum(t, "mean_minus_baseline"),
			    jint(rk, "below"), jint(t, "builds"), jint(rk, "above"), jnum(rk, "p"), jnum(t, "ks_D"),
			    jnum(t, "ks_p"));
	}
	if (json_array_size(json_object_get(fc, "randomized")))
		strbuf_addstr(sb, ". A small p says the randomized builds are not draws of the family "
				  "that judges the variants.\n");
	strbuf_addch(sb, '\n');
}

static void table_verdicts(struct strbuf *sb, const json_t *q)
{
	bool held = withheld(q);
	const char *last = "";
	size_t i;
	json_t *t;

	strbuf_addstr(sb, "**The verdicts:**\n\n| variant | event | baseline (mean) | variant (mean) | effect "
			  "[95% CI] | p | Holm p | sign-flip p | Shapiro-Wilk p | smallest detectable | "
			  "verdict |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
	json_array_foreach(json_object_get(q, "verdicts"), i, t) {
		const char *v = js(t, "variant"), *why = not_measured(q, v);

		if (why) {
			if (strcmp(v, last))
				strbuf_addf(sb, "| %s | not measured: %s | | | | | | | | | |\n", v, why);
			last = v;
			continue;
		}
		strbuf_addf(sb, "| %s | %s | ", v, js(t, "event"));
		num(sb, jnum(t, "a_mean"), "%.0f");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "b_mean"), "%.0f");
		strbuf_addstr(sb, " | ");
		placement_render_effect(sb, t);
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "p"), "%.3g");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "p_holm"), "%.3g");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "p_signflip"), "%.3g");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "normality_p"), "%.2f");
		strbuf_addstr(sb, " | ");
		num(sb, jnum(t, "mde_percent"), "%.2f%%");
		strbuf_addstr(sb, " | ");
		verdict(sb, t, held);
		strbuf_addstr(sb, " |\n");
	}
	strbuf_addch(sb, '\n');
}

/* the variance components, per primary event over the variants */
static void reach(struct strbuf *sb, const json_t *q)
{
	const json_t *d = json_object_get(q, "design");
	size_t i, k;
	json_t *p, *t;

	strbuf_addstr(sb, "**The design's reach** (variance components of the nested design, over the "
			  "variants):");
	json_array_foreach(json_object_get(d, "primaries"), k, p) {
		double w[2] = { INFINITY, -INFINITY }, b[2] = { INFINITY, -INFINITY }, m[2] = { INFINITY, -INFINITY };

		json_array_foreach(json_object_get(q, "verdicts"), i, t) {
			if (strcmp(js(t, "event"), json_string_value(p)) || isnan(jnum(t, "mde_percent")))
				continue;
			double x[3] = { 100 * sqrt(jnum(t, "var_within")), 100 * sqrt(jnum(t, "var_between")),
					jnum(t, "mde_percent") };
			double *r[3] = { w, b, m };
			for (int j = 0; j < 3; j++) {
				r[j][0] = fmin(r[j][0], x[j]);
				r[j][1] = fmax(r[j][1], x[j]);
			}
		}
		if (!isfinite(m[0]))
			continue;
		strbuf_addf(sb, "%s for %s the layouts spread a cell by an sd of %.2f%%-%.2f%%, the "
				"executions the effect by %.2f%%-%.2f%% beyond that, and %lld executions x "
				"%lld draws detect %.2f%%-%.2f%%", k ? ";" : "", short_event(json_string_value(p)),
			    w[0], w[1], b[0], b[1], jint(d, "executions"), jint(d, "draws"), m[0], m[1]);
	}
	if (json_is_true(json_object_get(json_object_get(q, "executions_check"), "identical")))
		strbuf_addstr(sb, ". The executions being replicas, what the components put between "
				  "them is chance, and more draws per execution buy what more executions "
				  "would");
	strbuf_addstr(sb, ".\n\n");
}

/* every build as built on the first execution: the chart's table */
static void table_built(struct strbuf *sb, const json_t *q)
{
	const json_t *d = json_object_get(q, "design"), *pr = json_object_get(d, "primaries");
	size_t i, k;
	json_t *b, *p;

	strbuf_addstr(sb, "**Every build as built** (the first execution replayed through each, no "
			  "draw: what comparing one layout of each build says; the quantile is among the "
			  "family's draws of baseline):\n\n| build |");
	json_array_foreach(pr, k, p)
		strbuf_addf(sb, " %s | quantile among the draws |", json_string_value(p));
	strbuf_addstr(sb, "\n|---|");
	for (k = 0; k < json_array_size(pr); k++)
		strbuf_addstr(sb, "---:|---:|");
	strbuf_addch(sb, '\n');
	json_array_foreach(json_object_get(json_object_get(q, "family_checks"), "as_built"), i, b) {
		strbuf_addf(sb, "| %s |", js(b, "build"));
		json_array_foreach(pr, k, p) {
			const json_t *e = json_object_get(json_object_get(b, "events"), json_string_value(p));
			strbuf_addch(sb, ' ');
			num(sb, jnum(e, "value"), "%.0f");
			strbuf_addstr(sb, " | ");
			num(sb, jnum(e, "quantile"), "%.3f");
			strbuf_addstr(sb, " |");
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

static void carried(struct strbuf *sb, const json_t *q)
{
	const json_t *reps = json_object_get(json_array_get(executions(q), 0), "replays");
	size_t i, n = 0;
	json_t *v;

	json_array_foreach(json_object_get(q, "variants"), i, v) {
		double a = jnum(json_object_get(reps, json_string_value(v)), "approximate_pct");
		if (isnan(a))
			continue;
		strbuf_addf(sb, "%s`%s` %.2f%%", n++ ? ", " : "Executed instructions carried over "
			    "approximately (not in both builds alike): ", json_string_value(v), a);
	}
	if (n)
		strbuf_addstr(sb, ".\n\n");
}

static void layout_table(struct strbuf *sb, const json_t *res)
{
	const char *name;
	json_t *d;

	strbuf_addstr(sb, "Layout (`lace diff` of hackbench, baseline → variant):\n\n"
			  "| variant | bloat-o-meter | functions changed region | hot lines | hot 4K pages | findings |\n"
			  "|---|---|---:|---|---|---|\n");
	json_object_foreach(json_object_get(res, "layout"), name, d) {
		if (strstr(name, "shuffle"))
			continue;
		if (json_object_get(d, "not_measured")) {
			strbuf_addf(sb, "| %s | not measured: %s | | | | |\n", name, js(d, "not_measured"));
			continue;
		}
		const json_t *hot = json_object_get(d, "hot");
		const json_t *ho = json_object_get(hot, "old"), *hn = json_object_get(hot, "new");
		strbuf_addf(sb, "| %s | `%s` | %.0f | %.0f → %.0f | %.0f → %.0f | ", name,
			    js(json_object_get(d, "bloat"), "line"), jnum(json_object_get(d, "summary"), "region"),
			    jnum(ho, "lines"), jnum(hn, "lines"), jnum(ho, "pages"), jnum(hn, "pages"));
		size_t k, nf = json_array_size(json_object_get(d, "findings"));
		json_t *f;
		if (!nf)
			strbuf_addstr(sb, "none");
		json_array_foreach(json_object_get(d, "findings"), k, f) {
			if (k == 3) {
				strbuf_addf(sb, " … %zu more", nf - 3);
				break;
			}
			strbuf_addf(sb, "%s%s `%s` (%s)", k ? "; " : "", js(f, "rule"), js(f, "subject"),
				    js(f, "severity"));
		}
		strbuf_addstr(sb, " |\n");
	}
	strbuf_addch(sb, '\n');
}

/* each variant's primaries in one sentence */
static void shows(struct strbuf *sb, const json_t *q)
{
	const char *last = "";
	bool held = withheld(q);
	size_t i;
	json_t *t;

	strbuf_addstr(sb, "**What the numbers show.**");
	json_array_foreach(json_object_get(q, "verdicts"), i, t) {
		const char *v = js(t, "variant");

		if (!json_is_true(json_object_get(t, "primary")))
			continue;
		if (strcmp(v, last))
			strbuf_addf(sb, "%s `%s`: ", *last ? "." : "", v);
		else
			strbuf_addstr(sb, "; ");
		last = v;
		if (not_measured(q, v)) {
			strbuf_addstr(sb, "not measured");
			continue;
		}
		strbuf_addf(sb, "%s ", short_event(js(t, "event")));
		placement_render_effect(sb, t);
		strbuf_addstr(sb, " (");
		verdict(sb, t, held);
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, *last ? ". " : " ");
	strbuf_addstr(sb, "One build of each, compared as built (the table of every build as built), "
			  "differs by the placement and by one layout draw per build; the verdicts "
			  "average the placement over the family's layouts instead. These are the "
			  "user-space workloads' own instructions, no kernel code.\n\n");
}

void study_r4_section(struct strbuf *sb, const json_t *res)
{
	const json_t *q = json_object_get(res, "q4_placement");

	strbuf_addstr(sb, "## 4. Entry text moved out, slow paths pushed cold\n\n");
	if (!q || !json_object_get(q, "design")) {
		strbuf_addstr(sb, "Not measured.\n\n");
		return;
	}
	design(sb, q);
	executions_said(sb, q);
	controls(sb, q);
	table_verdicts(sb, q);
	reach(sb, q);
	carried(sb, q);
	table_built(sb, q);
	layout_table(sb, res);
	shows(sb, q);
}

void study_r4_figures(struct strbuf *html, const json_t *res)
{
	const json_t *q = json_object_get(res, "q4_placement");
	const json_t *built = json_object_get(json_object_get(q, "family_checks"), "as_built");
	size_t n = json_array_size(built), i, k;
	json_t *p, *b;

	json_array_foreach(json_object_get(json_object_get(q, "design"), "primaries"), k, p) {
		const char *ev = json_string_value(p);
		struct svgplot_bar *bars = xcalloc(n + 1, sizeof(*bars));
		const json_t *band = NULL;
		char title[200], label[160];

		json_array_foreach(built, i, b) {
			const json_t *e = json_object_get(json_object_get(b, "events"), ev);
			bars[i] = (struct svgplot_bar){ js(b, "build"), jnum(e, "value"),
							strcmp(js(b, "kind"), "baseline") ? js(b, "kind") : NULL };
			band = band ? band : json_object_get(e, "band");
		}
		snprintf(title, sizeof(title), "%s: each build as built (%s, the first execution)", ev,
			 js(q, "workload"));
		snprintf(label, sizeof(label), "band: baseline and its %lld %s-family draws",
			 jint(json_object_get(q, "design"), "family_draws"), js(json_object_get(q, "design"), "family"));
		strbuf_addstr(html, "<figure>\n");
		svgplot_bars(html, &(struct svgplot){ title, "", bars, n, jnum(band, "low"), jnum(band, "high"),
						      label });
		strbuf_addf(html, "<figcaption>Reading 4: %s of every build as built, as the table of "
				  "builds gives it; the band spans baseline and its family's draws. One layout "
				  "of each build, compared so, mixes the placement with the draw; the verdicts "
				  "pair the draws.</figcaption></figure>\n", ev);
		free(bars);
	}
}

void study_r4_summary(const json_t *res, FILE *f)
{
	const json_t *q = json_object_get(res, "q4_placement"), *d = json_object_get(q, "design");
	bool held = withheld(q);
	size_t i;
	json_t *t;

	if (!d)
		return;
	fprintf(f, "  hackbench: %lld executions%s x %lld virtual layout pairs; controls %s\n",
		jint(d, "executions"),
		json_is_true(json_object_get(json_object_get(q, "executions_check"), "identical")) ?
		" (identical: replicas)" : "", jint(d, "draws"), held ? "FAILED (no verdicts)" : "hold");
	json_array_foreach(json_object_get(json_object_get(q, "family_checks"), "baseline_ranks"), i, t)
		fprintf(f, "  baseline as built among %lld family draws, %s: %lld below, %lld above (p %.2g)\n",
			jint(json_object_get(t, "rank"), "draws"), js(t, "event"),
			jint(json_object_get(t, "rank"), "below"), jint(json_object_get(t, "rank"), "above"),
			jnum(json_object_get(t, "rank"), "p"));
	fprintf(f, "\n  %-16s %-24s %-30s %8s  %s\n", "variant", "event", "effect [95% CI]", "Holm p", "verdict");
	const char *last = "";
	json_array_foreach(json_object_get(q, "verdicts"), i, t) {
		struct strbuf e = STRBUF_INIT, v = STRBUF_INIT;
		const char *why = not_measured(q, js(t, "variant"));
		char ph[16] = "-";

		if (!json_is_true(json_object_get(t, "primary")))
			continue;
		if (why) {
			if (strcmp(last, js(t, "variant")))
				fprintf(f, "  %-16s not measured: %s\n", js(t, "variant"), why);
			last = js(t, "variant");
			continue;
		}
		placement_render_effect(&e, t);
		verdict(&v, t, held);
		if (!isnan(jnum(t, "p_holm")))
			snprintf(ph, sizeof(ph), "%.3g", jnum(t, "p_holm"));
		fprintf(f, "  %-16s %-24s %-30s %8s  %s\n", js(t, "variant"), js(t, "event"), e.buf, ph, v.buf);
		strbuf_release(&e);
		strbuf_release(&v);
	}
}
