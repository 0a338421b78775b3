/* Reading 4 of lace study --kernel: x86-64 entry code in .entry.text or in
 * .text, under hackbench (design.md, "Same execution, two noises").
 *
 * Two builds boot into two executions (under -icount a binary that moves
 * moves when the timer interrupts land), so a placement is judged on one
 * execution replayed through every build's addresses:
 *   - one boot of baseline records its code stream (lace stat --record);
 *   - lace replay feeds it through baseline, the variants and baseline's
 *     relinks (placement noise: relinks move what the variants move);
 *   - perturbed boots of baseline (--qemu-perturb: the same code, another
 *     execution) give the execution's own spread, and one live boot of
 *     each variant shows what comparing two executions would have said.
 * A pair's same-execution difference is ranked among the relinks'
 * differences from baseline (two-sided; stats_rank_p), every pair x
 * event Holm-adjusted together (stats_holm). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats/stats.h"
#include "pipeline/kstudy/kstudy_priv.h"
#include "pipeline/kstudy/kstudy_stat.h"
#include "util/array.h"
#include "util/json.h"
#include "util/strvec.h"
#include "util/xalloc.h"

#define PHASE "r4_entry_text"
#define BASE "x86_64-baseline"
/* perturbed boots of baseline besides the recorded one (acceptance: >= 5) */
#define R4_PERTURBED 5
/* layouts per replay job: the jobs run side by side (-j, a plan) */
#define R4_REPLAY_CHUNK 6

/* the variants, in the order the report gives them: the seed's own pair
 * (the kprobes patch put the entry code in .entry.text with ALIGN(8))
 * comes first */
static const char *const variants[] = { "entry-align-8", "entry-in-text", "entry-align-4k" };

/* the pairs judged: the seed's (with/without the patch), then each
 * variant against baseline; entry-align-4k is the negative control (every
 * code address congruent mod 4096 with baseline's: its L1i misses must
 * equal baseline's exactly) */
static const struct { const char *a, *b, *why; } pairs[] = {
	{ "x86_64-entry-align-8", "x86_64-entry-in-text", "the seed's pair: the patch's .entry.text "
	  "(ALIGN(8)) vs the entry code in .text" },
	{ BASE, "x86_64-entry-in-text", "the entry code moved into .text" },
	{ BASE, "x86_64-entry-align-8", "the entry text aligned to 8, not 4 KiB" },
	{ BASE, "x86_64-entry-align-4k", "negative control: the same addresses mod 4096" },
};

/* the events a verdict is given for: misses, kernel and user (the one
 * front-end model lets kernel placement move the user side's too) */
static const char *const miss_events[] = { "L1-icache-load-misses:k", "iTLB-load-misses:k",
					   "L1-icache-load-misses:u", "iTLB-load-misses:u" };

static void workload(struct ks *s, const char **g, const char **l)
{
	*g = s->o->quick ? "2" : "4";
	*l = s->o->quick ? "10" : "20";
}

static struct kjob *boot(struct ks *s, json_t *dest, const char *kernel, const char *label,
			 const char *const *opts)
{
	const char *g, *l;
	char what[200];

	workload(s, &g, &l);
	snprintf(what, sizeof(what), "%s: hackbench -g %s -f 5 -l %s%s", kernel, g, l, label);
	json_object_set_new(dest, "kernel", json_string(kernel));
	json_object_set_new(dest, "events", json_object());
	return ks_stat(s, dest, PHASE, what, kernel, X86_EVENTS, NULL, opts,
		       (const char *[]){ s->hackbench, "-g", g, "-f", "5", "-l", l, NULL }, FILL_R4_LIVE);
}

void kstudy_r4_queue_boots(struct ks *s)
{
	json_t *r = json_object(), *ex = json_array(), *live = json_array();
	const char *g, *l;

	workload(s, &g, &l);
	json_object_set_new(s->res, PHASE, r);
	json_object_set_new(r, "workload", json_pack("[s,s,s,s,s,s,s]", "hackbench", "-g", g, "-f", "5",
						     "-l", l));
	json_object_set_new(r, "recorded_on", json_string(BASE));
	json_object_set_new(r, "executions", ex);
	json_object_set_new(r, "live", live);

	/* the recorded execution, perturbation 0: its live counts are also
	 * the first of baseline's executions */
	json_t *rec = json_pack("{s:i}", "perturbation", 0);
	json_array_append_new(ex, rec);
	struct kjob *j = boot(s, rec, BASE, " (recorded)", NULL);
	if (j) {
		char *path = kjob_output(j, "hackbench.lrec");

		/* before "--": an option of lace stat (the path is the job's
		 * own output, known once the job is) */
		strvec_insert_before(&j->argv, "--", (const char *const[]){ "--record", path, NULL });
		json_object_set_new(r, "recording", json_string(path));
		free(path);
	}
	for (int k = 1; k <= R4_PERTURBED; k++) {
		json_t *e = json_pack("{s:i}", "perturbation", k);
		char n[16], label[48];

		snprintf(n, sizeof(n), "%d", k);
		snprintf(label, sizeof(label), " (perturbation %d)", k);
		json_array_append_new(ex, e);
		boot(s, e, BASE, label, (const char *[]){ "--qemu-perturb", n, NULL });
	}
	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		json_t *o = json_object();
		char name[64];

		snprintf(name, sizeof(name), "x86_64-%s", variants[v]);
		json_array_append_new(live, o);
		boot(s, o, name, "", NULL);
	}

	/* what moved between the two builds, as lace diff says it */
	char a[PATH_MAX], b[PATH_MAX];
	json_t *d = json_object();

	ks_kernel_path(s, a, sizeof(a), BASE, "vmlinux");
	ks_kernel_path(s, b, sizeof(b), "x86_64-entry-in-text", "vmlinux");
	json_object_set_new(r, "diff", d);
	if (!ks_have(s, a) || !ks_have(s, b)) {
		ks_not_measured(d, "x86_64 baseline or entry-in-text not built");
		return;
	}
	j = ks_job(s, PHASE, "lace diff baseline entry-in-text", true, FILL_DIFF, d);
	j->ok_exit = 1;   /* findings: lace diff's answer, not a failure */
	strvec_push(&j->argv, "diff");
	kjob_input(j, a);
	kjob_input(j, b);
}

void kstudy_r4_queue_replays(struct ks *s)
{
	json_t *r = json_object_get(s->res, PHASE), *lays = json_array();
	const char *rec = json_string_value(json_object_get(r, "recording"));
	struct strvec names = STRVEC_INIT;
	char base[PATH_MAX];

	json_object_set_new(r, "layouts", lays);
	strvec_push(&names, BASE);
	for (size_t v = 0; v < ARRAY_SIZE(variants); v++)
		strvec_pushf(&names, "x86_64-%s", variants[v]);
	for (unsigned k = 1; k <= s->o->shuffle; k++)
		strvec_pushf(&names, BASE "-shuffle-%u", k);
	ks_kernel_path(s, base, sizeof(base), BASE, "vmlinux");
	for (size_t i = 0; i < names.nr; i++) {
		json_t *o = json_object();
		char vm[PATH_MAX];

		json_object_set_new(o, "kernel", json_string(names.v[i]));
		json_object_set_new(o, "shuffle", json_boolean(strstr(names.v[i], "shuffle") != NULL));
		json_object_set_new(o, "events", json_object());
		json_array_append_new(lays, o);
		ks_kernel_path(s, vm, sizeof(vm), names.v[i], "vmlinux");
		if (!ks_have(s, vm))
			ks_not_measured(o, "%s: not built (lace build kernel x86_64)", vm);
		else if (!rec || !ks_have(s, base))
			ks_not_measured(o, "baseline's boot was not recorded (not built)");
	}
	/* a job per chunk of the layouts that can be replayed, in order: its
	 * arg is the first one's index (a plan names the files by content,
	 * so the output's layout names cannot be matched back) */
	for (size_t i = 0; i < names.nr;) {
		struct kjob *j = NULL;
		size_t n = 0;

		for (; i < names.nr && n < R4_REPLAY_CHUNK; i++) {
			char vm[PATH_MAX], first[24];

			if (json_object_get(json_array_get(lays, i), "not_measured")) {
				if (n)
					break;
				continue;
			}
			if (!j) {
				char what[160];

				snprintf(what, sizeof(what), "lace replay: %s and the next layouts", names.v[i]);
				j = ks_job(s, PHASE, what, true, FILL_R4_REPLAY, r);
				snprintf(first, sizeof(first), "%zu", i);
				j->arg = xstrdup(first);
				strvec_pushv(&j->argv, (const char *[]){ "replay", "--json", "-e",
					"instructions,L1-icache-load-misses,iTLB-load-misses", "--base", NULL });
				kjob_input(j, base);
			}
			ks_kernel_path(s, vm, sizeof(vm), names.v[i], "vmlinux");
			strvec_push(&j->argv, "--layout");
			kjob_input(j, vm);
			n++;
		}
		if (j)
			strvec_push(&j->argv, rec);
	}
	json_object_set_new(r, "relinks", json_integer(s->o->shuffle));
	strvec_clear(&names);
}

static void events_from_stat(json_t *ev, const json_t *stat)
{
	char evs[] = X86_EVENTS;

	for (char *e = strtok(evs, ","); e; e = strtok(NULL, ","))
		json_object_set_new(ev, e, lace_json_real(kstudy_stat_event(stat, e)));
}

/* one replayed layout: "kernel" and "user" counts as EVENT:k / EVENT:u */
static void events_from_replay(json_t *o, const json_t *lay)
{
	static const char *const side[][2] = { { "kernel", ":k" }, { "user", ":u" } };
	json_t *ev = json_object_get(o, "events");

	for (size_t i = 0; i < ARRAY_SIZE(side); i++) {
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(lay, side[i][0]), k, v) {
			char name[96];

			snprintf(name, sizeof(name), "%s%s", k, side[i][1]);
			json_object_set_new(ev, name, lace_json_real(lace_json_num(v)));
		}
	}
	json_object_set(o, "carried", json_object_get(lay, "carried"));
}

void kstudy_r4_fill(struct ks *s, const struct kjob *jb)
{
	char why[512];
	json_t *j = ks_record(s, jb, true, why, sizeof(why));

	if (jb->fill == FILL_R4_LIVE) {
		if (!j) {
			ks_not_measured(jb->dest, "%s", why);
			return;
		}
		json_object_set_new(jb->dest, "command", json_integer(ks_last_command(s)));
		events_from_stat(json_object_get(jb->dest, "events"), j);
		return;
	}
	/* a replay job: its layouts after "recorded", from index arg on */
	json_t *lays = json_object_get(jb->dest, "layouts"), *lay;
	size_t first = (size_t)strtoul(jb->arg ? jb->arg : "0", NULL, 10), i, k = first;

	json_array_foreach(json_object_get(j, "layouts"), i, lay) {
		if (!i)
			continue;
		while (json_object_get(json_array_get(lays, k), "not_measured"))
			k++;
		json_t *o = json_array_get(lays, k++);
		if (!o)
			break;
		json_object_set_new(o, "command", json_integer(ks_last_command(s)));
		events_from_replay(o, lay);
	}
	if (j)
		return;
	/* the job failed: why, for each of its layouts */
	size_t left = 0;

	for (size_t a = 0; a < jb->argv.nr; a++)
		left += !strcmp(jb->argv.v[a], "--layout");
	for (size_t n = first; n < json_array_size(lays) && left; n++) {
		json_t *o = json_array_get(lays, n);

		if (json_object_get(o, "not_measured"))
			continue;
		ks_not_measured(o, "%s", why);
		left--;
	}
}

/* ---- the verdicts -------------------------------------------------------- */

static const json_t *layout_of(const json_t *r, const char *kernel)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(r, "layouts"), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "kernel")) ?: "", kernel))
			return json_object_get(o, "not_measured") ? NULL : o;
	return NULL;
}

static double ev(const json_t *o, const char *e)
{
	return o ? lace_json_get_num(json_object_get(o, "events"), e) : NAN;
}

/* misses per 1,000 instructions of the same side */
static double mpki(const json_t *o, const char *e)
{
	char ins[32];

	snprintf(ins, sizeof(ins), "instructions%s", strrchr(e, ':'));
	return 1000.0 * ev(o, e) / ev(o, ins);
}

/* The execution's own spread: baseline's boots, recorded and perturbed. */
static void spread(json_t *r)
{
	json_t *out = json_object(), *e0 = json_array_get(json_object_get(r, "executions"), 0);
	const char *name;
	json_t *v;

	json_object_set_new(r, "execution_spread", out);
	json_object_foreach(json_object_get(e0, "events"), name, v) {
		double x[R4_PERTURBED + 1];
		size_t n = 0, i;
		json_t *e;
		struct lace_summary sm;

		json_array_foreach(json_object_get(r, "executions"), i, e)
			if (n < ARRAY_SIZE(x) && !isnan(ev(e, name)) && !json_object_get(e, "not_measured"))
				x[n++] = ev(e, name);
		stats_summary(x, n, &sm);
		json_t *o = json_pack("{s:i}", "boots", (int)n);
		json_object_set_new(o, "mean", lace_json_real(sm.mean));
		json_object_set_new(o, "sd", lace_json_real(n > 1 ? sm.sd : NAN));
		json_object_set_new(o, "min", lace_json_real(sm.min));
		json_object_set_new(o, "max", lace_json_real(sm.max));
		json_object_set_new(o, "sd_percent", lace_json_real(n > 1 ? 100.0 * sm.sd / sm.mean : NAN));
		json_object_set_new(out, name, o);
	}
}

/* the relinks' differences from baseline for event e (NaNs left out) */
static size_t relink_diffs(const json_t *r, const char *e, double *d, size_t cap)
{
	const json_t *base = layout_of(r, BASE);
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(json_object_get(r, "layouts"), i, o) {
		double v = ev(o, e) - ev(base, e);

		if (json_is_true(json_object_get(o, "shuffle")) && !json_object_get(o, "not_measured") &&
		    !isnan(v) && n < cap)
			d[n++] = v;
	}
	return n;
}

void kstudy_r4_finish(struct ks *s)
{
	json_t *r = json_object_get(s->res, PHASE), *tests = json_array();
	size_t nl = json_array_size(json_object_get(r, "layouts")), nt = 0;
	enum { NT = ARRAY_SIZE(pairs) * ARRAY_SIZE(miss_events) };
	double p[NT], adj[NT], *d = xcalloc(nl + 1, sizeof(*d));

	if (!r)
		return free(d);
	spread(r);
	/* own-build replay = the recorded boot's live counts, exactly */
	const json_t *rec = json_array_get(json_object_get(r, "executions"), 0), *base = layout_of(r, BASE);
	if (base && !json_object_get(rec, "not_measured")) {
		bool same = true;
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(rec, "events"), k, v)
			same &= json_number_value(v) == ev(base, k);
		json_object_set_new(r, "replay_equals_live", json_boolean(same));
	}
	/* each layout's MPKI, stored: the report's tables quote stored numbers */
	size_t li;
	json_t *lo;
	json_array_foreach(json_object_get(r, "layouts"), li, lo) {
		json_t *m = json_object();

		for (size_t e = 0; e < ARRAY_SIZE(miss_events); e++)
			json_object_set_new(m, miss_events[e], lace_json_real(mpki(lo, miss_events[e])));
		json_object_set_new(lo, "mpki", m);
	}
	json_object_set_new(r, "tests", tests);
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		for (size_t m = 0; m < ARRAY_SIZE(miss_events); m++) {
			const json_t *a = layout_of(r, pairs[i].a), *b = layout_of(r, pairs[i].b);
			const char *e = miss_events[m];
			size_t n = relink_diffs(r, e, d, nl);
			double x = ev(b, e) - ev(a, e);
			struct lace_rank rk;
			double sd = lace_json_get_num(json_object_get(json_object_get(r, "execution_spread"),
								      e), "sd");

			p[nt] = stats_rank_p(x, d, n, LACE_ALT_TWO_SIDED, &rk);
			json_t *t = json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i}", "a", pairs[i].a, "b",
					      pairs[i].b, "why", pairs[i].why, "event", e, "relinks",
					      (int)rk.n, "relinks_above", (int)rk.above, "relinks_below",
					      (int)rk.below);
			json_object_set_new(t, "a_count", lace_json_real(ev(a, e)));
			json_object_set_new(t, "b_count", lace_json_real(ev(b, e)));
			json_object_set_new(t, "difference", lace_json_real(x));
			json_object_set_new(t, "a_mpki", lace_json_real(mpki(a, e)));
			json_object_set_new(t, "b_mpki", lace_json_real(mpki(b, e)));
			json_object_set_new(t, "p", lace_json_real(p[nt]));
			json_object_set_new(t, "min_p", lace_json_real(rk.n ? fmin(1.0, 2.0 / ((double)rk.n + 1))
									  : NAN));
			json_object_set_new(t, "execution_sd", lace_json_real(sd));
			json_array_append_new(tests, t);
			nt++;
		}
	stats_holm(p, nt, adj);
	for (size_t t = 0; t < nt; t++)
		json_object_set_new(json_array_get(tests, t), "p_holm", lace_json_real(adj[t]));
	json_object_set_new(r, "holm_tests", json_integer((json_int_t)nt));
	free(d);
}
