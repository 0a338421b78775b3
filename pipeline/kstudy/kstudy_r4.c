/* Reading 4 of lace study --kernel: x86-64 entry code in .entry.text or in
 * .text, under hackbench: its jobs (kstudy_r4_design.c judges them).
 *
 * The placement design (design.md, "Same execution"; pipeline/placement.h
 * is the same design for lace ab and lace check): two builds booted are
 * two executions, and one build is one draw of its incidental layout, so
 *   - E executions are recorded (lace stat --record), round robin from
 *     baseline, entry-align-8, entry-in-text and entry-align-4k, each
 *     kernel's boots with their own timing perturbation (--qemu-perturb);
 *   - each is replayed through K virtual layout pairs of every build
 *     (lace replay --virtual K: draw k lays every build out alike), once
 *     on each CPU profile (--cpu-profile), with fresh draws per execution;
 *   - the controls: A vs A (the recorded build's draws against draws of
 *     another seed), the negative control (entry-align-4k), the positive
 *     one (conflict-N edits: N hot functions in one L1i set, and the real
 *     build of N = 16), and the family's own checks on baseline's first
 *     execution: 1,000 draws of the relink family (where baseline and
 *     the real relinks rank) and 500 of the function family (where
 *     baseline does), every real relink and three reordered builds
 *     against their virtual layouts.
 * Every replay is a job of the stage after the boots, so a plan spreads
 * them over machines like the boots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/vlayout.h"
#include "pipeline/kstudy/kstudy_priv.h"
#include "pipeline/kstudy/kstudy_r4_design.h"
#include "pipeline/kstudy/kstudy_stat.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

#define PHASE "r4_entry_text"
#define REPLAY_EVENTS "instructions,L1-icache-load-misses,iTLB-load-misses"

const char *const kstudy_r4_kernels[KSTUDY_R4_NKERNELS] = {
	"x86_64-baseline", "x86_64-entry-align-8", "x86_64-entry-in-text", "x86_64-entry-align-4k",
};
const char *const kstudy_r4_profiles[KSTUDY_R4_NPROFILES] = { "skylake-client", "nehalem" };
const unsigned kstudy_r4_conflicts[KSTUDY_R4_NCONFLICTS] = { 4, 8, 12, 16 };

static void workload(struct ks *s, const char **g, const char **l)
{
	*g = s->o->quick ? "2" : "4";
	*l = s->o->quick ? "10" : "20";
}

/* The design's sizes: given, or the defaults (--quick: a smoke run).
 * Why 64 draws on 8 executions: the layouts, not the executions, set the
 * reach.  Replayed through the same draws, executions recorded from all
 * four kernels at six perturbations gave the seed pair's effect with an
 * sd of 0.2% between them, while one draw's cell spreads by an sd of
 * ~5.3% (doc/study.md, "Which level is scarce, measured"); and a draw
 * of the four builds costs ~0.36 s of replay against ~6.5 s a boot.
 * 64 draws put the smallest detectable effect under 1% (0.94% in the
 * committed run, 3.83% at 8 draws).  The second profile and the
 * positive controls keep 8: the first is judged at its own (reported)
 * reach, the second's effects are tens of percent. */
static void sizes(const struct ks *s, json_t *d)
{
	const struct kstudy_opts *o = s->o;
	unsigned E = o->executions ? o->executions : o->quick ? 4 : 8;
	unsigned K = o->draws ? o->draws : o->quick ? 4 : 64;
	unsigned K8 = K < 8 ? K : 8;

	json_object_set_new(d, "executions", json_integer(E));
	json_object_set_new(d, "draws", json_integer(K));
	json_object_set_new(d, "draws_second_profile", json_integer(K8));
	json_object_set_new(d, "draws_positive", json_integer(K8));
	json_object_set_new(d, "draws_same", json_integer(K8));
	/* the relinks rank among >= 1,000 draws of their (relink) family;
	 * baseline's rank in the function family is one number, for which
	 * 500 draws resolve p to 0.002 at half the replays (a quarter of
	 * the study's work went to the two families' 2,000) */
	json_object_set_new(d, "family_draws", json_integer(o->family_draws ? o->family_draws :
							     o->quick ? 200 : 1000));
	json_object_set_new(d, "family_draws_function", json_integer(o->family_draws ? o->family_draws :
								      o->quick ? 200 : 500));
}

static unsigned dz(const json_t *r, const char *k)
{
	return (unsigned)json_integer_value(json_object_get(json_object_get(r, "design"), k));
}

void kstudy_r4_queue_boots(struct ks *s)
{
	json_t *r = json_object(), *ex = json_array(), *d = json_object();
	const char *g, *l;

	workload(s, &g, &l);
	json_object_set_new(s->res, PHASE, r);
	json_object_set_new(r, "workload", json_pack("[s,s,s,s,s,s,s]", "hackbench", "-g", g, "-f", "5",
						     "-l", l));
	sizes(s, d);
	json_object_set_new(d, "family", json_string("function"));
	json_object_set_new(d, "primaries", json_pack("[s,s]", "L1-icache-load-misses:k",
						      "iTLB-load-misses:k"));
	json_object_set_new(d, "alpha", json_real(0.05));
	json_object_set_new(d, "margin_percent", json_real(1.0));
	json_object_set_new(r, "design", d);
	json_object_set_new(r, "executions", ex);

	for (unsigned e = 0; e < dz(r, "executions"); e++) {
		const char *kernel = kstudy_r4_kernels[e % KSTUDY_R4_NKERNELS];
		unsigned perturb = e / KSTUDY_R4_NKERNELS;
		json_t *o = json_pack("{s:i,s:s,s:i,s:o}", "execution", (int)e, "kernel", kernel,
				      "perturbation", (int)perturb, "events", json_object());
		char what[200], n[16];

		json_array_append_new(ex, o);
		snprintf(what, sizeof(what), "%s: hackbench -g %s -f 5 -l %s (execution %u, recorded)",
			 kernel, g, l, e);
		snprintf(n, sizeof(n), "%u", perturb);
		struct kjob *j = ks_stat(s, o, PHASE, what, kernel, X86_EVENTS, NULL,
					 perturb ? (const char *[]){ "--qemu-perturb", n, NULL } : NULL,
					 (const char *[]){ s->hackbench, "-g", g, "-f", "5", "-l", l, NULL },
					 FILL_R4_LIVE);
		if (j) {
			char *path = kjob_output(j, "hackbench.lrec");

			/* before "--": an option of lace stat (the path is the
			 * job's own output, known once the job is) */
			strvec_insert_before(&j->argv, "--", (const char *const[]){ "--record", path, NULL });
			json_object_set_new(o, "recording", json_string(path));
			free(path);
		}
	}

	/* what moved between the two builds, as lace diff says it */
	char a[PATH_MAX], b[PATH_MAX];
	json_t *df = json_object();

	ks_kernel_path(s, a, sizeof(a), kstudy_r4_kernels[0], "vmlinux");
	ks_kernel_path(s, b, sizeof(b), "x86_64-entry-in-text", "vmlinux");
	json_object_set_new(r, "diff", df);
	if (!ks_have(s, a) || !ks_have(s, b)) {
		ks_not_measured(df, "x86_64 baseline or entry-in-text not built");
		return;
	}
	struct kjob *j = ks_job(s, PHASE, "lace diff baseline entry-in-text", true, FILL_DIFF, df);
	j->ok_exit = 1;   /* findings: lace diff's answer, not a failure */
	strvec_push(&j->argv, "diff");
	kjob_input(j, a);
	kjob_input(j, b);
}

/* ---- the replays --------------------------------------------------------- */

/* A replay job of recording rec (an execution of kernel own): its rows go
 * to dest[key] (kstudy_r4_fill); the caller adds layouts and options. */
static struct kjob *replay_job(struct ks *s, json_t *dest, const char *key, const char *what,
			       const char *rec, const char *own)
{
	char vm[PATH_MAX];
	struct kjob *j = ks_job(s, PHASE, what, true, FILL_R4_REPLAY, dest);

	j->arg = xstrdup(key);
	strvec_pushv(&j->argv, (const char *[]){ "replay", "--json", "-e", REPLAY_EVENTS, "--base", NULL });
	ks_kernel_path(s, vm, sizeof(vm), own, "vmlinux");
	kjob_input(j, vm);
	(void)rec;
	return j;
}

static void layout_arg(struct ks *s, struct kjob *j, const char *kernel)
{
	char vm[PATH_MAX];

	ks_kernel_path(s, vm, sizeof(vm), kernel, "vmlinux");
	strvec_push(&j->argv, "--layout");
	kjob_input(j, vm);
}

static void num_arg(struct kjob *j, const char *opt, unsigned long long v)
{
	strvec_push(&j->argv, opt);
	strvec_pushf(&j->argv, "%llu", v);
}

/* each execution's draws have their own seed; A vs A's draws another */
static unsigned long long exec_seed(unsigned e, bool aa)
{
	return 1000 + 2ull * e + aa;
}

/* conflict-N.edit, spread-N.edit: the first N units of the committed
 * kernel/layouts/conflict-16.edit or spread-16.edit
 * (picked from a recording by lace replay --hot --write-edit), written
 * into the plan folder; 0, or -1 with why */
static int write_edits(struct ks *s, const char *name, char paths[][PATH_MAX], char *why,
		       size_t wlen)
{
	char src[PATH_MAX], dir[PATH_MAX];
	struct vl_edit e;

	if (!s->o->src) {
		snprintf(why, wlen, "lace's sources are not known (kernel/layouts/%s-16.edit)", name);
		return -1;
	}
	snprintf(src, sizeof(src), "%.3000s/kernel/layouts/%s-16.edit", s->o->src, name);
	snprintf(dir, sizeof(dir), "%.3000s/r4-edits", s->o->plan_dir);
	if (vl_edit_load(src, &e) || fs_mkdir_p(dir, 0755)) {
		snprintf(why, wlen, "%s", lace_error_msg());
		return -1;
	}
	/* absolute: a job runs in the plan folder, not where lace was started */
	char *abs = realpath(dir, NULL);
	if (abs) {
		snprintf(dir, sizeof(dir), "%.3000s", abs);
		free(abs);
	}
	int rc = 0;
	for (size_t c = 0; c < KSTUDY_R4_NCONFLICTS && !rc; c++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "# the first %u units of kernel/layouts/%s-16.edit\nedit %llu\n",
			    kstudy_r4_conflicts[c], name, (unsigned long long)e.align);
		for (size_t i = 0; i < kstudy_r4_conflicts[c] && i < e.n; i++)
			strbuf_addf(&sb, "%s %llu\n", e.keys[i], (unsigned long long)e.offsets[i]);
		snprintf(paths[c], PATH_MAX, "%.3000s/%s-%u.edit", dir, name, kstudy_r4_conflicts[c]);
		if ((rc = fs_write_file(paths[c], sb.buf, sb.len)))
			snprintf(why, wlen, "%s", lace_error_msg());
		strbuf_release(&sb);
	}
	vl_edit_free(&e);
	return rc ? -1 : 0;
}

/* a positive control's replay of execution e: the recorded build, the
 * extra layouts (NULL or one kernel), then the doses' edits, on Skylake */
static struct kjob *positive_job(struct ks *s, json_t *dest, const char *key, const char *what,
				 const char *rec, const char *own, const char *extra,
				 char edits[][PATH_MAX], unsigned K, size_t e)
{
	struct kjob *j = replay_job(s, dest, key, what, rec, own);

	if (extra)
		layout_arg(s, j, extra);
	for (size_t c = 0; c < KSTUDY_R4_NCONFLICTS; c++) {
		strvec_push(&j->argv, "--edit");
		kjob_input(j, edits[c]);
	}
	strvec_pushv(&j->argv, (const char *[]){ "--cpu-profile", kstudy_r4_profiles[0], NULL });
	num_arg(j, "--virtual", K);
	num_arg(j, "--seed", exec_seed((unsigned)e, false));
	strvec_push(&j->argv, rec);
	return j;
}

static void family_jobs(struct ks *s, json_t *f, const char *fam, const char *pp, const char *rec,
			unsigned R)
{
	unsigned n = 0;

	for (unsigned c = 0; n < R; c++) {
		unsigned k = R - n < KSTUDY_R4_FAMILY_CHUNK ? R - n : KSTUDY_R4_FAMILY_CHUNK;
		char key[32], what[96];

		snprintf(key, sizeof(key), "%s-%u", fam, c);
		snprintf(what, sizeof(what), "lace replay: baseline's %s-family draws, part %u", fam, c + 1);
		struct kjob *j = replay_job(s, f, key, what, rec, kstudy_r4_kernels[0]);
		if (pp)
			strvec_pushv(&j->argv, (const char *[]){ "--family", "relink", "--pad-points", pp, NULL });
		num_arg(j, "--virtual", k);
		num_arg(j, "--seed", 77 + c);
		strvec_push(&j->argv, rec);
		n += k;
	}
}

static void queue_family(struct ks *s, json_t *r, const char *rec)
{
	json_t *f = json_object();
	const char *base = kstudy_r4_kernels[0];
	char pp[256] = "";
	struct kjob *j;

	json_object_set_new(r, "family", f);
	json_object_set_new(f, "relinks", json_integer(s->o->shuffle));
	/* draws of each family: baseline's rank among them; in chunks, each
	 * a job (its own seed), so they spread over the cores and machines */
	family_jobs(s, f, "function", NULL, rec, dz(r, "family_draws_function"));
	if (s->o->src) {
		char conf[PATH_MAX];
		FILE *fp;

		snprintf(conf, sizeof(conf), "%.3000s/kernel/kernel.conf", s->o->src);
		if ((fp = fopen(conf, "r"))) {
			char line[512];
			while (fgets(line, sizeof(line), fp))
				if (sscanf(line, "virtual_pads = %255s", pp) == 1)
					break;
			fclose(fp);
		}
	}
	if (!pp[0]) {
		ks_not_measured(f, "no virtual_pads in kernel/kernel.conf: the relink family is not drawn");
		return;
	}
	json_object_set_new(f, "pad_points", json_string(pp));
	family_jobs(s, f, "relink", pp, rec, dz(r, "family_draws"));
	/* every real relink, and its pad vector as a virtual layout */
	struct kjob *jr = NULL, *jp = NULL;
	json_t *names = json_array();
	json_object_set_new(f, "relink_names", names);
	for (unsigned k = 1; k <= s->o->shuffle; k++) {
		char name[64], vm[PATH_MAX], man[PATH_MAX];

		snprintf(name, sizeof(name), "x86_64-baseline-shuffle-%u", k);
		ks_kernel_path(s, vm, sizeof(vm), name, "vmlinux");
		ks_kernel_path(s, man, sizeof(man), name, "manifest.json");
		if (!ks_have(s, vm) || !ks_have(s, man))
			continue;
		if (!jr) {
			jr = replay_job(s, f, "relinks_real", "lace replay: the real relinks", rec, base);
			jp = replay_job(s, f, "relinks_virtual", "lace replay: the relinks' pad vectors",
					rec, base);
			strvec_pushv(&jp->argv, (const char *[]){ "--pad-points", pp, NULL });
		}
		layout_arg(s, jr, name);
		/* its pads, read when the job runs (a plan's relinks are
		 * built by a job before it) */
		strvec_push(&jp->argv, "--pads-from");
		kjob_input(jp, man);
		json_array_append_new(names, json_string(name));
	}
	if (jr) {
		strvec_push(&jr->argv, rec);
		strvec_push(&jp->argv, rec);
	}
	/* three reordered builds of the main text against their draws */
	j = NULL;
	for (unsigned k = 1; k <= 3; k++) {
		char name[64], vm[PATH_MAX];

		snprintf(name, sizeof(name), "x86_64-baseline-reorder-%u", k);
		ks_kernel_path(s, vm, sizeof(vm), name, "vmlinux");
		if (!ks_have(s, vm))
			break;
		if (!j) {
			j = replay_job(s, f, "reorders", "lace replay: three reordered builds", rec, base);
			strvec_pushv(&j->argv, (const char *[]){ "--virtual", "3", "--seed", "7", "--permute",
								 ".text", NULL });
		}
		layout_arg(s, j, name);
	}
	if (j)
		strvec_push(&j->argv, rec);
}

/* A replay job (results under dest's key) of recording rec, whose own
 * kernel is own, through draws draws of seed seed of every build of
 * reading 4 on profile: the recording's own as recorded, each other
 * kernel as a --layout. */
static void every_build_job(struct ks *s, json_t *dest, const char *key, const char *what,
			    const char *rec, const char *own, const char *profile, unsigned draws,
			    unsigned long long seed)
{
	struct kjob *j = replay_job(s, dest, key, what, rec, own);

	for (size_t k = 0; k < KSTUDY_R4_NKERNELS; k++)
		if (strcmp(kstudy_r4_kernels[k], own))
			layout_arg(s, j, kstudy_r4_kernels[k]);
	strvec_pushv(&j->argv, (const char *[]){ "--cpu-profile", profile, NULL });
	num_arg(j, "--virtual", draws);
	num_arg(j, "--seed", seed);
	strvec_push(&j->argv, rec);
}

void kstudy_r4_queue_replays(struct ks *s)
{
	json_t *r = json_object_get(s->res, PHASE), *o;
	char edits[KSTUDY_R4_NCONFLICTS][PATH_MAX], spreads[KSTUDY_R4_NCONFLICTS][PATH_MAX];
	char why[512] = "";
	bool have_edits = !write_edits(s, "conflict", edits, why, sizeof(why));
	char real16[PATH_MAX];
	size_t e;

	if (!have_edits)
		json_object_set_new(r, "positive_not_measured", json_string(why));
	bool have_spreads = !write_edits(s, "spread", spreads, why, sizeof(why));
	if (!have_spreads)
		json_object_set_new(r, "positive_itlb_not_measured", json_string(why));
	ks_kernel_path(s, real16, sizeof(real16), "x86_64-baseline-conflict-16", "vmlinux");
	/* the family's checks, on the first execution (baseline's) */
	/* first: its jobs are the longest */
	o = json_array_get(json_object_get(r, "executions"), 0);
	if (o && json_string_value(json_object_get(o, "recording")))
		queue_family(s, r, json_string_value(json_object_get(o, "recording")));
	else
		json_object_set_new(r, "family", json_pack("{s:s}", "not_measured",
							   "baseline's first boot was not recorded"));
	json_array_foreach(json_object_get(r, "executions"), e, o) {
		const char *own = json_string_value(json_object_get(o, "kernel"));
		const char *rec = json_string_value(json_object_get(o, "recording"));
		char what[200], vm[PATH_MAX];
		bool ok = rec != NULL;

		for (size_t k = 0; k < KSTUDY_R4_NKERNELS && ok; k++) {
			ks_kernel_path(s, vm, sizeof(vm), kstudy_r4_kernels[k], "vmlinux");
			ok = ks_have(s, vm);
		}
		json_object_set_new(o, "replays", json_object());
		if (!ok) {
			ks_not_measured(json_object_get(o, "replays"), "%s", rec ? "a variant is not built" :
					"the boot was not recorded (not built)");
			continue;
		}
		json_t *dest = json_object_get(o, "replays");
		/* the pairs, on each profile: every variant's draws */
		for (size_t p = 0; p < KSTUDY_R4_NPROFILES; p++) {
			snprintf(what, sizeof(what), "lace replay: execution %zu, %s", e, kstudy_r4_profiles[p]);
			every_build_job(s, dest, kstudy_r4_profiles[p], what, rec, own, kstudy_r4_profiles[p],
					p ? dz(r, "draws_second_profile") : dz(r, "draws"),
					exec_seed((unsigned)e, false));
		}
		/* the executions held to the same layouts: the first
		 * execution of each other kernel through execution 0's first
		 * draws (draw k of a seed lays each build out alike whatever
		 * the recording), so what still differs between them is the
		 * execution's own */
		if (e > 0 && e < KSTUDY_R4_NKERNELS) {
			snprintf(what, sizeof(what), "lace replay: execution %zu, execution 0's draws", e);
			every_build_job(s, dest, "same_draws", what, rec, own, kstudy_r4_profiles[0],
					dz(r, "draws_same"), exec_seed(0, false));
		}
		/* A vs A: the recorded build's draws of another seed */
		snprintf(what, sizeof(what), "lace replay: execution %zu, A vs A", e);
		struct kjob *j = replay_job(s, dest, "aa", what, rec, own);
		strvec_pushv(&j->argv, (const char *[]){ "--cpu-profile", kstudy_r4_profiles[0], NULL });
		num_arg(j, "--virtual", dz(r, "draws"));
		num_arg(j, "--seed", exec_seed((unsigned)e, true));
		strvec_push(&j->argv, rec);
		/* the positive controls: the conflict edits (and on baseline's
		 * executions the real build of conflict-16, laid out by the same
		 * draws), and the spread edits (iTLB) */
		if (have_edits) {
			bool real = !strcmp(own, kstudy_r4_kernels[0]) && ks_have(s, real16);

			snprintf(what, sizeof(what), "lace replay: execution %zu, conflict-N", e);
			positive_job(s, dest, "positive", what, rec, own,
				     real ? "x86_64-baseline-conflict-16" : NULL, edits,
				     dz(r, "draws_positive"), e);
			json_object_set_new(o, "positive_real", json_boolean(real));
		}
		if (have_spreads) {
			snprintf(what, sizeof(what), "lace replay: execution %zu, spread-N", e);
			positive_job(s, dest, "positive_itlb", what, rec, own, NULL, spreads,
				     dz(r, "draws_positive"), e);
		}
	}
}

/* ---- the jobs' results ------------------------------------------------------- */

/* a replay's rows, compact: per layout its name and "EVENT:k"/":u" counts */
static json_t *rows_of(const json_t *replay)
{
	static const char *const side[][2] = { { "kernel", ":k" }, { "user", ":u" } };
	json_t *rows = json_array(), *lay;
	size_t i;

	json_array_foreach(json_object_get(replay, "layouts"), i, lay) {
		json_t *o = json_object();

		for (size_t s = 0; s < ARRAY_SIZE(side); s++) {
			const char *k;
			json_t *v;

			json_object_foreach(json_object_get(lay, side[s][0]), k, v) {
				char name[96];

				snprintf(name, sizeof(name), "%s%s", k, side[s][1]);
				json_object_set_new(o, name, lace_json_real(lace_json_num(v)));
			}
		}
		json_object_set_new(o, "approx", lace_json_real(lace_json_get_num(
			json_object_get(lay, "carried"), "approximate")));
		json_array_append_new(rows, o);
	}
	return rows;
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
		json_t *ev = json_object_get(jb->dest, "events");
		char evs[] = X86_EVENTS;
		for (char *e = strtok(evs, ","); e; e = strtok(NULL, ","))
			json_object_set_new(ev, e, lace_json_real(kstudy_stat_event(j, e)));
		json_object_set_new(jb->dest, "command", json_integer(ks_last_command(s)));
		return;
	}
	if (!j) {
		json_object_set_new(jb->dest, jb->arg, json_pack("{s:s}", "not_measured", why));
		return;
	}
	json_object_set_new(jb->dest, jb->arg, json_pack("{s:I,s:o}", "command",
		(json_int_t)ks_last_command(s), "rows", rows_of(j)));
}

void kstudy_r4_finish(struct ks *s)
{
	json_t *r = json_object_get(s->res, PHASE);

	if (r)
		kstudy_r4_judge(r);
}
