/* Reading 4's part of the kernel study's reports (kstudy_r4.h): every
 * number in its tables is one that kstudy_r4.c stored in results.json. */
#include "pipeline/kstudy/kstudy_r4.h"

#include <math.h>
#include <string.h>

#include "pipeline/svgplot.h"
#include "util/array.h"
#include "util/json.h"
#include "util/xalloc.h"

static const char *js(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void num(struct strbuf *sb, double v, int decimals)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else if (!decimals && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.*f", decimals, v);
}

static double ev(const json_t *o, const char *e)
{
	return lace_json_get_num(json_object_get(o, "events"), e);
}

static const char *short_name(const char *k)
{
	return strncmp(k, "x86_64-", 7) ? k : k + 7;
}

static void table_layouts(struct strbuf *sb, const json_t *r4)
{
	static const char *const cols[] = { "instructions:k", "L1-icache-load-misses:k",
					    "iTLB-load-misses:k", "L1-icache-load-misses:u",
					    "iTLB-load-misses:u" };
	size_t i;
	json_t *o;

	strbuf_addstr(sb, "| layout |");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		strbuf_addf(sb, " %s |", cols[c]);
	strbuf_addstr(sb, " L1i MPKI (k) | carried approximately |\n|---|");
	for (size_t c = 0; c < ARRAY_SIZE(cols) + 2; c++)
		strbuf_addstr(sb, "---:|");
	strbuf_addch(sb, '\n');
	json_array_foreach(json_object_get(r4, "layouts"), i, o) {
		strbuf_addf(sb, "| `%s` |", short_name(js(o, "kernel")));
		if (json_object_get(o, "not_measured")) {
			strbuf_addf(sb, " not measured: %s |||||||\n", js(o, "not_measured"));
			continue;
		}
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			strbuf_addch(sb, ' ');
			num(sb, ev(o, cols[c]), 0);
			strbuf_addstr(sb, " |");
		}
		strbuf_addch(sb, ' ');
		num(sb, lace_json_get_num(json_object_get(o, "mpki"), "L1-icache-load-misses:k"), 2);
		strbuf_addstr(sb, " | ");
		num(sb, lace_json_get_num(json_object_get(o, "carried"), "approximate"), 0);
		strbuf_addstr(sb, " |\n");
	}
}

static void table_tests(struct strbuf *sb, const json_t *r4)
{
	size_t i;
	json_t *t;

	strbuf_addstr(sb, "| A -> B | event | A | B | B - A | MPKI A | MPKI B | relinks above / below "
			  "| p | Holm p | execution sd |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	json_array_foreach(json_object_get(r4, "tests"), i, t) {
		strbuf_addf(sb, "| `%s` -> `%s` | %s | ", short_name(js(t, "a")), short_name(js(t, "b")),
			    js(t, "event"));
		static const struct { const char *k; int dec; } c[] = {
			{ "a_count", 0 }, { "b_count", 0 }, { "difference", 0 }, { "a_mpki", 2 },
			{ "b_mpki", 2 } };
		for (size_t k = 0; k < ARRAY_SIZE(c); k++) {
			num(sb, lace_json_get_num(t, c[k].k), c[k].dec);
			strbuf_addstr(sb, " | ");
		}
		strbuf_addf(sb, "%lld / %lld | ", (long long)json_integer_value(json_object_get(t, "relinks_above")),
			    (long long)json_integer_value(json_object_get(t, "relinks_below")));
		num(sb, lace_json_get_num(t, "p"), 2);
		strbuf_addstr(sb, " | ");
		num(sb, lace_json_get_num(t, "p_holm"), 2);
		strbuf_addstr(sb, " | ");
		num(sb, lace_json_get_num(t, "execution_sd"), 0);
		strbuf_addstr(sb, " |\n");
	}
}

static void table_executions(struct strbuf *sb, const json_t *r4)
{
	static const char *const cols[] = { "instructions:k", "L1-icache-load-misses:k",
					    "iTLB-load-misses:k", "L1-icache-load-misses:u",
					    "iTLB-load-misses:u" };
	const json_t *sp = json_object_get(r4, "execution_spread");
	size_t i;
	json_t *o;

	strbuf_addstr(sb, "| boot |");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		strbuf_addf(sb, " %s |", cols[c]);
	strbuf_addstr(sb, "\n|---|");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		strbuf_addstr(sb, "---:|");
	strbuf_addch(sb, '\n');
	for (int part = 0; part < 2; part++)
		json_array_foreach(json_object_get(r4, part ? "live" : "executions"), i, o) {
			if (part)
				strbuf_addf(sb, "| `%s`, live |", short_name(js(o, "kernel")));
			else
				strbuf_addf(sb, "| baseline, perturbation %lld%s |",
					    (long long)json_integer_value(json_object_get(o, "perturbation")),
					    i ? "" : " (recorded)");
			if (json_object_get(o, "not_measured")) {
				strbuf_addf(sb, " not measured: %s |||||\n", js(o, "not_measured"));
				continue;
			}
			for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
				strbuf_addch(sb, ' ');
				num(sb, ev(o, cols[c]), 0);
				strbuf_addstr(sb, " |");
			}
			strbuf_addch(sb, '\n');
		}
	static const char *const st[] = { "mean", "sd", "min", "max", "sd_percent" };
	for (size_t k = 0; k < ARRAY_SIZE(st); k++) {
		strbuf_addf(sb, "| baseline's boots: %s |", !strcmp(st[k], "sd_percent") ? "sd %" : st[k]);
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			strbuf_addch(sb, ' ');
			num(sb, lace_json_get_num(json_object_get(sp, cols[c]), st[k]),
			    !strcmp(st[k], "sd_percent") ? 2 : 0);
			strbuf_addstr(sb, " |");
		}
		strbuf_addch(sb, '\n');
	}
}

static const json_t *test_of(const json_t *r4, const char *a, const char *b, const char *e)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(r4, "tests"), i, t)
		if (!strcmp(js(t, "a"), a) && !strcmp(js(t, "b"), b) && !strcmp(js(t, "event"), e))
			return t;
	return NULL;
}

/* the seed pair's sentence, and the negative control's, from the numbers */
static void findings(struct strbuf *sb, const json_t *r4)
{
	const json_t *t = test_of(r4, "x86_64-entry-align-8", "x86_64-entry-in-text", "L1-icache-load-misses:k");
	const json_t *c = test_of(r4, "x86_64-baseline", "x86_64-entry-align-4k", "L1-icache-load-misses:k");
	const json_t *sp = json_object_get(json_object_get(r4, "execution_spread"), "L1-icache-load-misses:k");
	size_t i, nsig = 0;
	json_t *x;

	json_array_foreach(json_object_get(r4, "tests"), i, x)
		nsig += lace_json_get_num(x, "p_holm") < 0.05;
	if (t && isfinite(lace_json_get_num(t, "difference")))
		strbuf_addf(sb, "The seed's pair on one execution: kernel L1i misses %.0f with the entry code "
				"in `.entry.text` (ALIGN(8)), %.0f in `.text`, a difference of %+.0f "
				"(%+.2f%%), with %lld of the %lld relinks' differences above it and %lld below "
				"(two-sided rank p %.2f, Holm %.2f). ",
			    lace_json_get_num(t, "a_count"), lace_json_get_num(t, "b_count"),
			    lace_json_get_num(t, "difference"),
			    100.0 * lace_json_get_num(t, "difference") / lace_json_get_num(t, "a_count"),
			    (long long)json_integer_value(json_object_get(t, "relinks_above")),
			    (long long)json_integer_value(json_object_get(t, "relinks")),
			    (long long)json_integer_value(json_object_get(t, "relinks_below")),
			    lace_json_get_num(t, "p"), lace_json_get_num(t, "p_holm"));
	if (sp && t)
		strbuf_addf(sb, "Baseline's own executions (%lld boots) spread its kernel L1i misses by an sd "
				"of %.0f (%.2f%%): two boots of two builds differ by that much with no "
				"placement change at all. ",
			    (long long)json_integer_value(json_object_get(sp, "boots")),
			    lace_json_get_num(sp, "sd"), lace_json_get_num(sp, "sd_percent"));
	if (c)
		strbuf_addf(sb, "Negative control: `entry-align-4k` replayed from baseline's execution has "
				"%.0f kernel L1i misses against baseline's %.0f (%s). ",
			    lace_json_get_num(c, "b_count"), lace_json_get_num(c, "a_count"),
			    lace_json_get_num(c, "difference") == 0 ? "equal, as they must be: every code "
			    "address is congruent mod 4096, and the L1i set index is address bits 6-11"
			    : "NOT equal: the replay or the build is wrong");
	if (json_object_get(r4, "replay_equals_live"))
		strbuf_addf(sb, "Replaying the recording through baseline itself gives the recorded boot's "
				"counts %s. ", json_is_true(json_object_get(r4, "replay_equals_live"))
				? "exactly" : "NOT exactly (a replay bug)");
	strbuf_addf(sb, "%zu of the %lld tests have a Holm-adjusted p below 0.05.",
		    nsig, (long long)json_integer_value(json_object_get(r4, "holm_tests")));
}

void kstudy_r4_section(struct strbuf *sb, const json_t *res)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text"), *k;
	size_t i;

	strbuf_addstr(sb, "## 4. x86-64 entry code in `.entry.text` or in `.text`: hackbench\n\n`");
	json_array_foreach(json_object_get(r4, "workload"), i, k)
		strbuf_addf(sb, "%s%s", i ? " " : "", json_string_value(k));
	strbuf_addf(sb, "` (lace's hackbench). Two builds boot into two executions: under `-icount` a "
			"binary that moves changes when the timer interrupts land, and the kernel then runs "
			"other code. So each placement is judged on **one execution**: a boot of `%s`, "
			"recorded (`lace stat --record`), replayed (`lace replay`) through every build's "
			"addresses, function by function. `shuffle-K` are relinks of baseline padded where "
			"the variants move code and data (the text after the head code, the entry text, "
			"the start of rodata and data): placement noise, replayed, not booted.\n\n"
			"**Same execution, every layout** (replayed):\n\n",
		    js(r4, "recorded_on"));
	table_layouts(sb, r4);
	strbuf_addstr(sb, "\n**The verdicts.** For each pair A -> B and event, the same-execution difference "
			  "B - A is ranked among the relinks' differences from baseline (relink - baseline): "
			  "under the null that B's placement is one more meaningless one, they are "
			  "exchangeable. Two-sided, as no direction was declared before measuring: "
			  "p = min(1, 2 min(P+, P-)), P+ = (1 + #relinks >= x) / (n + 1), "
			  "P- = (1 + #relinks <= x) / (n + 1), ties counted against the pair; every "
			  "pair x event is Holm-adjusted together. With n relinks no p below 2/(n+1) "
			  "exists (n >= 39 for 0.05 before adjustment). MPKI: misses per 1,000 "
			  "instructions of the same side. Execution sd: the sd of the event over "
			  "baseline's perturbed boots (below).\n\n");
	table_tests(sb, r4);
	strbuf_addstr(sb, "\n**Execution noise**, measured apart: baseline booted with timing "
			  "perturbations that change no code (`--qemu-perturb K` pads the kernel command "
			  "line by K characters), and one live boot of each variant: what comparing two "
			  "executions would have said.\n\n");
	table_executions(sb, r4);
	strbuf_addstr(sb, "\n**What the numbers show.** ");
	findings(sb, r4);
	strbuf_addstr(sb, "\n\n**What the emulation cannot show.** Time and the front end's real "
			  "structures: the uop cache, the branch predictor, prefetchers and the hardware "
			  "page walker are not modelled; the kernel's text is modelled with the profile's "
			  "4 KiB pages, not the 2 MiB pages Linux maps it with.\n\n");
}

void kstudy_r4_figure(struct strbuf *html, const json_t *res)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text");
	size_t n = 0, i;
	json_t *c;
	struct svgplot_bar *bars = xcalloc(json_array_size(json_object_get(r4, "layouts")) + 1, sizeof(*bars));
	double lo = INFINITY, hi = -INFINITY;

	json_array_foreach(json_object_get(r4, "layouts"), i, c) {
		double v = ev(c, "L1-icache-load-misses:k");

		if (!isnan(v) && (json_is_true(json_object_get(c, "shuffle")) ||
				  !strcmp(js(c, "kernel"), "x86_64-baseline"))) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		bars[n++] = (struct svgplot_bar){ short_name(js(c, "kernel")), v, NULL };
	}
	strbuf_addstr(html, "<figure>\n");
	svgplot_bars(html, &(struct svgplot){ "hackbench, one execution replayed: kernel L1i misses (x86-64)",
					      "misses", bars, n, isfinite(lo) ? lo : NAN,
					      isfinite(hi) ? hi : NAN, "baseline and its randomized relinks" });
	strbuf_addstr(html, "<figcaption>Reading 4: the band is the range of baseline's layouts.</figcaption>"
			    "</figure>\n");
	free(bars);
}

void kstudy_r4_summary(const json_t *res, FILE *f)
{
	const json_t *r4 = json_object_get(res, "r4_entry_text");
	size_t i;
	json_t *t;

	fprintf(f, "\n  hackbench on x86-64, one execution replayed through each layout (%lld relinks):\n",
		(long long)json_integer_value(json_object_get(r4, "relinks")));
	fprintf(f, "    %-34s %-24s %10s %10s %9s %7s %7s\n", "A -> B", "event", "A", "B", "B - A", "p",
		"Holm p");
	json_array_foreach(json_object_get(r4, "tests"), i, t) {
		char pair[80];

		snprintf(pair, sizeof(pair), "%s -> %s", short_name(js(t, "a")), short_name(js(t, "b")));
		fprintf(f, "    %-34s %-24s %10.0f %10.0f %+9.0f %7.2f %7.2f\n", pair, js(t, "event"),
			lace_json_get_num(t, "a_count"), lace_json_get_num(t, "b_count"),
			lace_json_get_num(t, "difference"), lace_json_get_num(t, "p"),
			lace_json_get_num(t, "p_holm"));
	}
}
