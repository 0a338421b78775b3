/* The lace-placement document (pipeline/placement.h) as text and as
 * Markdown: lace ab --same-execution prints the one, lace check and the
 * kernel study put the other in their reports. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/placement_render.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char *num(char *b, size_t n, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, fmt, v);
	return b;
}

/* "+1.17% [+0.40%, +1.94%]" */
void placement_render_effect(struct strbuf *sb, const json_t *e)
{
	char b[3][32];

	strbuf_addf(sb, "%s [%s, %s]", num(b[0], 32, lace_json_get_num(e, "effect_percent"), "%+.2f%%"),
		    num(b[1], 32, lace_json_get_num(e, "ci_low_percent"), "%+.2f%%"),
		    num(b[2], 32, lace_json_get_num(e, "ci_high_percent"), "%+.2f%%"));
}

/* the verdict as said: "no verdict possible: smallest detectable effect
 * 3.2%", or an estimate's "(estimate)" */
void placement_render_verdict(struct strbuf *sb, const json_t *e)
{
	const char *v = json_string_value(json_object_get(e, "verdict"));

	if (!v) {
		strbuf_addstr(sb, "(estimate)");
		return;
	}
	strbuf_addstr(sb, v);
	if (!strcmp(v, "no verdict possible") && isnan(lace_json_get_num(e, "mde_percent")))
		strbuf_addstr(sb, ": fewer than 2 executions");
	else if (!strcmp(v, "no verdict possible"))
		strbuf_addf(sb, ": smallest detectable effect %.2f%%", lace_json_get_num(e, "mde_percent"));
	else if (!strcmp(v, "equivalent"))
		strbuf_addf(sb, " within +-%g%%", lace_json_get_num(e, "margin_percent"));
}

static void design_text(struct strbuf *sb, const json_t *d)
{
	const json_t *des = json_object_get(d, "design"), *pilot = json_object_get(des, "pilot");
	long E = (long)lace_json_get_num(des, "executions"), K = (long)lace_json_get_num(des, "draws");

	strbuf_addf(sb, "%ld executions (%s), %ld virtual layout pairs each (family %s, seed %.0f)",
		    E, json_is_true(json_object_get(des, "b_boots")) ? "half of them B's boots" :
		    "all of them A's boots", K, json_string_value(json_object_get(des, "family")) ?: "",
		    lace_json_get_num(des, "seed"));
	if (json_is_true(json_object_get(des, "same_build")))
		strbuf_addstr(sb, "; A and B are one build, so each cell is two independent draws "
			      "of it (A vs A: a verdict of slower or faster would be a false one)");
	if (pilot && !json_object_get(pilot, "error"))
		strbuf_addf(sb, "; chosen from a pilot of %.0f x %.0f: between executions sd %.2f%%, "
			    "between layouts sd %.2f%% (%s), a boot %.1f s, a layout pair %.2f s, "
			    "for a smallest detectable effect of %.2g%%%s",
			    lace_json_get_num(pilot, "pilot_executions"), lace_json_get_num(pilot, "pilot_draws"),
			    100 * sqrt(lace_json_get_num(pilot, "var_between")),
			    100 * sqrt(lace_json_get_num(pilot, "var_within")),
			    json_string_value(json_object_get(pilot, "event")) ?: "",
			    lace_json_get_num(pilot, "boot_seconds"), lace_json_get_num(pilot, "draw_pair_seconds"),
			    lace_json_get_num(pilot, "target_percent"),
			    lace_json_get_num(pilot, "budget_seconds") > 0 ? " within the budget" : "");
}

static void table_text(FILE *f, const json_t *events)
{
	size_t i;
	json_t *e;

	fprintf(f, "%-26s %12s %12s  %-28s %8s %8s %9s %7s %8s  %s\n", "event", "A (mean)", "B (mean)",
		"effect [95% CI]", "p", "Holm", "sign-flip", "SW p", "MDE", "verdict");
	json_array_foreach(events, i, e) {
		struct strbuf ef = STRBUF_INIT, v = STRBUF_INIT;
		char b[6][32];

		placement_render_effect(&ef, e);
		placement_render_verdict(&v, e);
		fprintf(f, "%-26s %12.0f %12.0f  %-28s %8s %8s %9s %7s %8s  %s\n",
			json_string_value(json_object_get(e, "event")), lace_json_get_num(e, "a_mean"),
			lace_json_get_num(e, "b_mean"), ef.buf, num(b[0], 32, lace_json_get_num(e, "p"), "%.3g"),
			num(b[1], 32, lace_json_get_num(e, "p_holm"), "%.3g"),
			num(b[2], 32, lace_json_get_num(e, "p_signflip"), "%.3g"),
			num(b[3], 32, lace_json_get_num(e, "normality_p"), "%.2f"),
			num(b[4], 32, lace_json_get_num(e, "mde_percent"), "%.2f%%"), v.buf);
		strbuf_release(&ef);
		strbuf_release(&v);
	}
}

void placement_render_text(FILE *f, const json_t *d)
{
	struct strbuf sb = STRBUF_INIT;
	const json_t *aa = json_object_get(d, "a_vs_a"), *cost = json_object_get(d, "cost");

	fprintf(f, "lace ab: B's placement against A's, on recorded executions replayed through "
		"virtual layouts of both\n");
	fprintf(f, "  A: %s (%s)\n", json_string_value(json_object_get(json_object_get(d, "a"), "boot")),
		json_string_value(json_object_get(json_object_get(d, "a"), "elf")));
	fprintf(f, "  B: %s (%s)\n", json_string_value(json_object_get(json_object_get(d, "b"), "boot")),
		json_string_value(json_object_get(json_object_get(d, "b"), "elf")));
	design_text(&sb, d);
	fprintf(f, "  design: %s\n", sb.buf);
	fprintf(f, "  effect: the mean over executions and layouts of ln(B/A), as a percentage; the "
		"t test on the executions' means (df E-1), Holm over the primary events\n");
	if (!json_is_true(json_object_get(d, "replay_equals_live")))
		fprintf(f, "  WARNING: an execution replayed through its own build differs from its "
			"live counts (a replay bug)\n");
	fputc('\n', f);
	table_text(f, json_object_get(d, "events"));
	if (aa) {
		fprintf(f, "\nA vs A (each execution through its own build, each cell two independent "
			"draws; must not be slower or faster):\n");
		table_text(f, json_object_get(aa, "events"));
	}
	const json_t *tr = json_object_get(d, "aa_trials");
	if (tr)
		fprintf(f, "\nA vs A trials: %.0f trials of %.0f executions x %.0f draw pairs, %.0f false "
			"verdicts (%.0f slower, %.0f faster): rate %.1f%% [%.1f%%, %.1f%%] (Clopper-Pearson "
			"95%%); %.0f trials with no verdict possible\n", lace_json_get_num(tr, "trials"),
			lace_json_get_num(tr, "executions"), lace_json_get_num(tr, "draws"),
			lace_json_get_num(tr, "false_verdicts"), lace_json_get_num(tr, "slower"),
			lace_json_get_num(tr, "faster"), 100 * lace_json_get_num(tr, "rate"),
			100 * lace_json_get_num(tr, "ci_low"), 100 * lace_json_get_num(tr, "ci_high"),
			lace_json_get_num(tr, "no_verdict_possible"));
	fprintf(f, "\ncost (not a result): boots %.1f s, replays %.1f s\n",
		lace_json_get_num(cost, "boot_seconds"), lace_json_get_num(cost, "replay_seconds"));
	strbuf_release(&sb);
}

static void table_md(struct strbuf *sb, const json_t *events)
{
	size_t i;
	json_t *e;

	strbuf_addstr(sb, "| event | A (mean) | B (mean) | effect [95% CI] | p | Holm p | sign-flip p "
			  "| Shapiro-Wilk p | smallest detectable | verdict |\n"
			  "|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
	json_array_foreach(events, i, e) {
		char b[6][32];

		strbuf_addf(sb, "| `%s` | %.0f | %.0f | ", json_string_value(json_object_get(e, "event")),
			    lace_json_get_num(e, "a_mean"), lace_json_get_num(e, "b_mean"));
		placement_render_effect(sb, e);
		strbuf_addf(sb, " | %s | %s | %s | %s | %s | ",
			    num(b[0], 32, lace_json_get_num(e, "p"), "%.3g"),
			    num(b[1], 32, lace_json_get_num(e, "p_holm"), "%.3g"),
			    num(b[2], 32, lace_json_get_num(e, "p_signflip"), "%.3g"),
			    num(b[3], 32, lace_json_get_num(e, "normality_p"), "%.2f"),
			    num(b[4], 32, lace_json_get_num(e, "mde_percent"), "%.2f%%"));
		placement_render_verdict(sb, e);
		strbuf_addstr(sb, " |\n");
	}
}

void placement_render_md(struct strbuf *sb, const json_t *d)
{
	const json_t *aa = json_object_get(d, "a_vs_a");

	strbuf_addstr(sb, "Design: ");
	design_text(sb, d);
	strbuf_addstr(sb, ".\n\n");
	table_md(sb, json_object_get(d, "events"));
	if (aa) {
		strbuf_addstr(sb, "\nA vs A (each execution through its own build, each cell two "
				  "independent draws: must not be slower or faster):\n\n");
		table_md(sb, json_object_get(aa, "events"));
	}
}
