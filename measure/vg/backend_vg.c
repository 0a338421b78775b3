/* The simulator backend (measure/backend.h): runs the workload under the
 * lace-vg Valgrind tool with the geometry of a CPU profile and turns the
 * per-process result files into counts.
 *
 * The tool folder is found next to lace: $LACE_VG_LIB, <lace dir>/vg (the
 * build tree), <lace dir>/../vg (unit tests in build/tests),
 * <lace dir>/../lib/lace/vg (installed).  Its launcher (lace-valgrind)
 * starts the tool without VALGRIND_LIB, so the workload sees the
 * environment it sees under cachegrind and the counts are cachegrind's.
 * Without the tool `--backend sim` says the simulator is not built. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "measure/backend.h"
#include "measure/runner.h"
#include "measure/cpu_profile.h"
#include "measure/model_results.h"
#include "measure/replay/record_file.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/paths.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

#define VG_TOOL_FILE "lace-vg-amd64-linux"
#define VG_TIME_FILE "vgpreload_lace-vg-time-amd64-linux.so"

/* help lines wrap at 80 columns under the usage's help column (26) */
const struct lace_backend_option vg_backend_options[] = {
	/* the model options, which --backend qemu takes too */
	{ "cpu-profile", 1, "NAME", "simulated CPU: skylake-client (default), nehalem,\n"
				     "golden-cove, zen3, power9, or a .conf path (also\n"
				     "--backend qemu); NAME,NAME...: several in one run,\n"
				     "each event but instructions as EVENT@NAME" },
	{ "l1i", 1, "SIZE,WAYS,LINE", "override the L1i geometry (e.g. 32768,8,64)" },
	{ "itlb", 1, "ENTRIES,WAYS", "override the iTLB (e.g. 64,4)" },
	{ "stlb", 1, "ENTRIES,WAYS", "override the second-level TLB, or 0 for none" },
	{ "page-size", 1, "SIZE", "override the page size: 4096, 2M ..." },
	{ "fetch-block", 1, "N", "override the fetch block size: 16, 32 or 64" },
	{ "per-function", 0, NULL, "print the hottest functions (also --backend qemu)" },
	{ "top", 1, "N", "with --per-function: how many functions (default 20)" },
	{ "hot-out", 1, "FILE", "write the hot set (name weight per line) for\n"
				 "'lace diff --hot'" },
	{ "window", 0, NULL, "count only inside the workload's measurement window\n"
			     "(measure/lace_window.h marks), not its start-up" },
	{ "virtual-clock", 0, NULL, "give the workload a clock of 1 ns per simulated\n"
				    "instruction, so that programs printing their own\n"
				    "timings count the same in every run" },
	{ "record", 1, "FILE", "record the executed code to FILE, for 'lace replay'\n"
			       "(doc/record-format.md)" },
	{ NULL, 0, NULL, NULL },
};

struct vg_priv {
	char profile_name[PATH_MAX];   /* --cpu-profile: NAME[,NAME...] */
	char *ovr_l1i, *ovr_itlb, *ovr_stlb, *ovr_page, *ovr_fetch;
	struct sim_profiles ps;        /* --cpu-profile's, overrides applied */
	int *event_prof;      /* per event: the profile counting it (spec->profile) */
	bool per_function;
	bool window;          /* counts of the marked windows, not whole runs */
	bool virtual_clock;   /* preload vgpreload_time: same counts for self-timing programs */
	long top;
	char *hot_out;
	char *record;         /* --record FILE */
	char vgdir[PATH_MAX];
	char describe[256];
	int *event_idx;       /* per event of the batch: sim_event_index or -1 */
	size_t nevents;
};

/* The VALGRIND_LIB folder holding the tool; false when not built. */
static bool tool_dir_find(char *out, size_t len)
{
	const char *env = getenv("LACE_VG_LIB");
	const char *exe = paths_exe_dir();
	char path[PATH_MAX];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		snprintf(path, sizeof(path), "%s/" VG_TOOL_FILE, out);
		return fs_is_file(path);
	}
	if (!exe)
		return false;
	/* build tree, build/tests (unit tests), installed */
	const char *rel[] = { "vg", "../vg", "../lib/lace/vg" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(out, len, "%s/%s", exe, rel[i]);
		snprintf(path, sizeof(path), "%s/" VG_TOOL_FILE, out);
		if (fs_is_file(path))
			return true;
	}
	return false;
}

/* The command that starts the tool, into prog; true when it needs
 * VALGRIND_LIB (valgrind's own launcher: $LACE_VALGRIND, or a tool folder
 * without lace's launcher), which the client then sees too. */
static bool valgrind_prog(const struct vg_priv *p, char *prog, size_t len)
{
	const char *env = getenv("LACE_VALGRIND");

	if (env && *env) {
		snprintf(prog, len, "%s", env);
		return true;
	}
	snprintf(prog, len, "%s/lace-valgrind", p->vgdir);
	if (!access(prog, X_OK))
		return false;
	snprintf(prog, len, "valgrind");
	return true;
}

/* The overrides, in a fixed order whatever the order on the command line. */
static int profile_override(struct vg_priv *p, struct sim_profile *out)
{
	int err = 0;

	if (!err && p->ovr_l1i)
		err = sim_profile_set_l1i(out, p->ovr_l1i);
	if (!err && p->ovr_itlb)
		err = sim_profile_set_itlb(out, p->ovr_itlb);
	if (!err && p->ovr_stlb)
		err = sim_profile_set_stlb(out, p->ovr_stlb);
	if (!err && p->ovr_page)
		err = sim_profile_set_page(out, p->ovr_page);
	if (!err && p->ovr_fetch)
		err = sim_profile_set_fetch_block(out, p->ovr_fetch);
	if (!err)
		err = sim_profile_check(out);
	return err;
}

/* Load the profiles (--cpu-profile A,B: B is modelled beside A) and apply
 * the overrides to each. */
static int profile_resolve(struct vg_priv *p)
{
	int err = sim_profiles_load(&p->ps, p->profile_name);

	if (!err)
		err = profile_override(p, &p->ps.prof);
	for (size_t i = 0; !err && i < p->ps.nmore; i++)
		err = profile_override(p, &p->ps.more[i]);
	return err;
}

static bool vg_supports(struct lace_backend *be, const struct lace_event_spec *ev,
			 const char **why)
{
	if (sim_event_index(ev->base) < 0) {
		*why = "the simulator does not model it";
		return false;
	}
	if (ev->exclude_user) {
		*why = "the simulator sees user space only";
		return false;
	}
	return true;
}

static int vg_prepare(struct lace_backend *be, struct lace_event_spec *evs, size_t nevents)
{
	struct vg_priv *p = be->priv;
	int err;

	if (vg_backend_unavailable())
		return lace_error_set(ENOTSUP, "%s", vg_backend_unavailable());
	tool_dir_find(p->vgdir, sizeof(p->vgdir));
	err = profile_resolve(p);
	if (err)
		return err;
	free(p->event_idx);
	free(p->event_prof);
	p->event_idx = xcalloc(nevents, sizeof(*p->event_idx));
	p->event_prof = xcalloc(nevents, sizeof(*p->event_prof));
	p->nevents = nevents;
	for (size_t i = 0; i < nevents; i++) {
		p->event_idx[i] = evs[i].backend == be ? sim_event_index(evs[i].base) : -1;
		p->event_prof[i] = evs[i].backend == be ? evs[i].profile : 0;
	}
	return 0;
}

static json_t *totals_json(const struct sim_totals *t)
{
	json_t *o = json_object();

	for (int i = 0; sim_event_names[i]; i++)
		json_object_set_new(o, sim_event_names[i], json_integer((json_int_t)sim_totals_get(t, i)));
	return o;
}

static json_t *geometry_json(const struct sim_config *c)
{
	return json_pack("{s:{s:I,s:i,s:i},s:{s:i,s:i},s:{s:i,s:i},s:I,s:i}",
			 "l1i", "size", (json_int_t)c->l1i_size, "ways", (int)c->l1i_ways,
			 "line", (int)c->l1i_line,
			 "itlb", "entries", (int)c->itlb_entries, "ways", (int)c->itlb_ways,
			 "stlb", "entries", (int)c->stlb_entries, "ways", (int)c->stlb_ways,
			 "page", (json_int_t)c->page, "fetch_block", (int)c->fetch_block);
}

static json_t *fn_json(const struct sim_fn_result *f)
{
	json_t *o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "name", f->name,
			      "instructions", (json_int_t)f->s.instructions,
			      "calls", (json_int_t)f->s.calls,
			      "l1i_misses", (json_int_t)f->s.l1i_misses,
			      "itlb_misses", (json_int_t)f->s.itlb_misses,
			      "stlb_misses", (json_int_t)f->s.stlb_misses);
	json_object_set_new(o, "instructions_per_call",
			    f->s.calls ? json_real((double)f->s.instructions / (double)f->s.calls)
				       : json_null());
	json_object_set_new(o, "inclusive_instructions", json_integer((json_int_t)f->inclusive));
	json_object_set_new(o, "path_length",
			    f->s.calls ? json_real((double)f->inclusive / (double)f->s.calls)
				       : json_null());
	return o;
}

static json_t *results_json(struct vg_priv *p, const struct sim_results *r)
{
	json_t *o = json_object(), *procs = json_array();

	json_object_set_new(o, "simulator", json_string("lace-vg"));
	json_object_set_new(o, "profile", json_string(p->ps.prof.name));
	json_object_set_new(o, "geometry", geometry_json(&p->ps.prof.cfg));
	json_object_set_new(o, "totals", totals_json(&r->total));
	if (r->window_procs)
		json_object_set_new(o, "window", totals_json(&r->window));
	if (p->ps.nmore) {
		/* the other profiles' (the functions are the first's) */
		json_t *more = json_array();

		for (size_t k = 0; k < p->ps.nmore && k < r->nmore; k++) {
			json_t *m = json_pack("{s:s,s:o,s:o}", "profile", p->ps.more[k].name,
					      "geometry", geometry_json(&p->ps.more[k].cfg),
					      "totals", totals_json(&r->more_total[k]));
			if (r->window_procs)
				json_object_set_new(m, "window", totals_json(&r->more_window[k]));
			json_array_append_new(more, m);
		}
		json_object_set_new(o, "other_profiles", more);
	}
	json_object_set_new(o, "counted", json_string(p->window ? "window" : "whole run"));
	json_object_set_new(o, "virtual_clock", json_boolean(p->virtual_clock));
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct sim_proc *sp = &r->procs[i];
		json_t *j = json_pack("{s:i,s:i,s:i,s:s,s:s}", "pid", (int)sp->pid, "ppid",
				      (int)sp->ppid, "image", sp->image, "exe", sp->exe, "end",
				      sp->end);
		json_object_set_new(j, "counts", totals_json(&sp->t));
		if (sp->windows) {
			json_object_set_new(j, "windows", json_integer(sp->windows));
			json_object_set_new(j, "window", totals_json(&sp->window));
		}
		if (sp->forked_from) {
			json_object_set_new(j, "forked_from", json_integer(sp->forked_from));
			json_object_set_new(j, "inherited", totals_json(&sp->inherited));
		}
		json_array_append_new(procs, j);
	}
	json_object_set_new(o, "processes", procs);
	if (p->per_function) {
		json_t *fns = json_array();
		size_t n = r->nfns < (size_t)p->top ? r->nfns : (size_t)p->top;
		for (size_t i = 0; i < n; i++)
			json_array_append_new(fns, fn_json(&r->fns[i]));
		json_object_set_new(o, "functions", fns);
	}
	return o;
}

/* The hot set: the functions that together run 99% of the instructions,
 * weighted by their share of instructions (`lace diff --hot` reads it). */
static int hot_write(const char *path, const struct sim_results *r)
{
	struct strbuf sb = STRBUF_INIT;
	double total = (double)r->total.instructions, acc = 0;

	strbuf_addstr(&sb, "# hot set from lace's simulator: function, share of instructions\n");
	for (size_t i = 0; i < r->nfns && total > 0 && acc < 0.99 * total; i++) {
		const struct sim_fn_result *fn = &r->fns[i];
		if (!strcmp(fn->name, "???") || strpbrk(fn->name, " \t#"))
			continue;
		acc += (double)fn->s.instructions;
		strbuf_addf(&sb, "%s %.6f\n", fn->name, (double)fn->s.instructions / total);
	}
	int rc = fs_write_file(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

static void fill_counts(struct vg_priv *p, const struct sim_results *r,
			struct lace_run_result *res)
{
	for (size_t i = 0; i < res->nevents && i < p->nevents; i++) {
		int idx = p->event_idx[i], k = p->event_prof[i];
		if (idx < 0 || (size_t)k > r->nmore)
			continue;
		const struct sim_totals *total =
			k ? (p->window ? &r->more_window[k - 1] : &r->more_total[k - 1])
			  : p->window ? &r->window : &r->total;
		uint64_t v = sim_totals_get(total, idx);
		res->counts[i].status = LACE_COUNT_OK;
		res->counts[i].raw = v;
		res->counts[i].value = (double)v;
		res->counts[i].time_enabled = res->counts[i].time_running =
			(uint64_t)(res->elapsed_s * 1e9);
	}
	res->procs = xcalloc(r->nprocs, sizeof(*res->procs));
	res->nprocs = r->nprocs;
	for (size_t k = 0; k < r->nprocs; k++) {
		struct lace_proc_result *pr = &res->procs[k];
		const char *base = strrchr(r->procs[k].exe, '/');
		pr->pid = r->procs[k].pid;
		snprintf(pr->comm, sizeof(pr->comm), "%.31s", base ? base + 1 : r->procs[k].exe);
		pr->values = xcalloc(res->nevents, sizeof(double));
		for (size_t i = 0; i < res->nevents; i++) {
			int idx = i < p->nevents ? p->event_idx[i] : -1;
			int m = i < p->nevents ? p->event_prof[i] : 0;
			const struct sim_proc *sp = &r->procs[k];

			if (idx < 0 || (size_t)m > sp->nmore) {
				pr->values[i] = NAN;
				continue;
			}
			pr->values[i] = (double)sim_totals_get(
				m ? (p->window ? &sp->more[m - 1].window : &sp->more[m - 1].t)
				  : p->window ? &sp->window : &sp->t, idx);
		}
	}
}

static int vg_run(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts,
		   struct lace_run_result *res)
{
	struct vg_priv *p = be->priv;
	const struct sim_config *c = &p->ps.prof.cfg;
	char dir[PATH_MAX], out[PATH_MAX + 32], envlib[PATH_MAX + 16], prog[PATH_MAX + 16];
	struct strbuf preload = STRBUF_INIT;
	char a_rec[PATH_MAX + 32];
	char a_l1i[96], a_itlb[64], a_stlb[64], a_page[48], a_fetch[48], a_prof[96];
	char *tmpdir;
	const char *env[3] = { NULL, NULL, NULL };
	size_t nenv = 0;
	struct sim_results r;
	struct lace_child child;
	struct strvec vargv = STRVEC_INIT;
	int err;

	if (!p->event_idx)
		return lace_error_set(EINVAL, "simulator: run before prepare");
	err = fs_temp_dir("lace-sim", &tmpdir);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s", tmpdir);
	free(tmpdir);
	snprintf(out, sizeof(out), "--lace-out=%s/r", dir);
	if (valgrind_prog(p, prog, sizeof(prog))) {
		snprintf(envlib, sizeof(envlib), "VALGRIND_LIB=%s", p->vgdir);
		env[nenv++] = envlib;
	}
	/* the virtual clock (vg/preload/vgpreload_time.c): programs that time
	 * themselves print the same numbers in every run.  Asked for, never
	 * by default: loading one more library costs the workload's start-up
	 * about 8,000 instructions that cachegrind does not count. */
	if (p->virtual_clock) {
		const char *old = getenv("LD_PRELOAD");
		strbuf_addf(&preload, "%s/" VG_TIME_FILE, p->vgdir);
		if (!fs_is_file(preload.buf)) {
			err = lace_error_set(ENOENT, "--virtual-clock: %s is not built", preload.buf);
			strbuf_release(&preload);
			fs_remove_tree(dir);
			return err;
		}
		strbuf_reset(&preload);
		strbuf_addf(&preload, "LD_PRELOAD=%s/" VG_TIME_FILE "%s%s", p->vgdir,
			    old && *old ? ":" : "", old && *old ? old : "");
		env[nenv++] = preload.buf;
	}
	snprintf(a_prof, sizeof(a_prof), "--lace-profile=%s", p->ps.prof.name);
	snprintf(a_l1i, sizeof(a_l1i), "--lace-l1i=%llu,%u,%u", (unsigned long long)c->l1i_size,
		 c->l1i_ways, c->l1i_line);
	snprintf(a_itlb, sizeof(a_itlb), "--lace-itlb=%u,%u", c->itlb_entries, c->itlb_ways);
	snprintf(a_stlb, sizeof(a_stlb), "--lace-stlb=%u,%u", c->stlb_entries, c->stlb_ways);
	snprintf(a_page, sizeof(a_page), "--lace-page=%llu", (unsigned long long)c->page);
	snprintf(a_fetch, sizeof(a_fetch), "--lace-fetch-block=%u", c->fetch_block);

	strvec_pushv(&vargv, (const char *[]){
		prog, "--tool=lace-vg", "-q",
		opts->follow_children ? "--trace-children=yes" : "--trace-children=no",
		out, a_prof, a_l1i, a_itlb, a_stlb, a_page, a_fetch,
		(p->per_function || p->hot_out) ? "--lace-per-function=yes" : "--lace-per-function=no",
		NULL });
	if (p->record) {
		snprintf(a_rec, sizeof(a_rec), "--lace-record=%s/rec", dir);
		strvec_push(&vargv, a_rec);
	}
	for (size_t k = 0; k < p->ps.nmore; k++) {
		const struct sim_config *m = &p->ps.more[k].cfg;

		strvec_pushf(&vargv, "--lace-more=%s:%llu,%u,%u:%u,%u:%u,%u:%llu:%u", p->ps.more[k].name,
			     (unsigned long long)m->l1i_size, m->l1i_ways, m->l1i_line,
			     m->itlb_entries, m->itlb_ways, m->stlb_entries, m->stlb_ways,
			     (unsigned long long)m->page, m->fetch_block);
	}
	strvec_pushv(&vargv, (const char **)argv);

	/* Address-space randomization would move the vDSO (whose code the
	 * client runs: clock_gettime) and with it the cache sets it maps to;
	 * the workload starts with it off so that runs are identical.  The
	 * personality is inherited at fork; lace's own is restored at once. */
	int persona = personality(0xffffffff);
	if (persona != -1)
		personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
	err = runner_start(&child, (char *const *)vargv.v, env, opts);
	if (persona != -1)
		personality((unsigned long)persona);
	if (!err)
		err = runner_run(&child, opts, res);
	strvec_clear(&vargv);
	strbuf_release(&preload);
	if (err) {
		fs_remove_tree(dir);
		return err;
	}

	err = sim_results_load(dir, "r", &r);
	if (err) {
		/* no (or a broken) result: a run that failed, not a backend
		 * failure, unless the workload itself exited cleanly */
		if (res->fault == LACE_FAULT_NONE) {
			res->fault = LACE_FAULT_START;
			snprintf(res->fault_msg, sizeof(res->fault_msg), "simulator: %.110s",
				 lace_error_msg());
		}
		fs_remove_tree(dir);
		return 0;
	}
	if (p->window && !r.window_procs && res->fault == LACE_FAULT_NONE) {
		/* counting everything instead would pass start-up off as the
		 * window: a failed run, said as such */
		res->fault = LACE_FAULT_START;
		snprintf(res->fault_msg, sizeof(res->fault_msg),
			 "--window: the workload marked no measurement window (measure/lace_window.h)");
	}
	if (p->record)
		err = record_pack(p->record, dir, "rec", "sim", p->ps.prof.name, &p->ps.prof.cfg,
				  p->window, NULL, NULL);
	fill_counts(p, &r, res);
	res->extra = results_json(p, &r);
	if (p->hot_out && !err)
		err = hot_write(p->hot_out, &r);
	sim_results_free(&r);
	fs_remove_tree(dir);
	return err;
}

static const char *vg_describe(struct lace_backend *be)
{
	struct vg_priv *p = be->priv;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "sim (%s", p->ps.prof.name[0] && !p->ps.nmore ? p->ps.prof.name : p->profile_name);
	if (p->ovr_l1i)
		strbuf_addf(&sb, ", l1i %s", p->ovr_l1i);
	if (p->ovr_itlb)
		strbuf_addf(&sb, ", itlb %s", p->ovr_itlb);
	if (p->ovr_stlb)
		strbuf_addf(&sb, ", stlb %s", p->ovr_stlb);
	if (p->ovr_page)
		strbuf_addf(&sb, ", page %s", p->ovr_page);
	if (p->ovr_fetch)
		strbuf_addf(&sb, ", fetch block %s", p->ovr_fetch);
	if (p->window)   /* saved results must say what was counted */
		strbuf_addstr(&sb, ", window only");
	if (p->virtual_clock)
		strbuf_addstr(&sb, ", virtual clock");
	strbuf_addch(&sb, ')');
	snprintf(p->describe, sizeof(p->describe), "%s", sb.buf);
	strbuf_release(&sb);
	return p->describe;
}

/* Check one override on its own (each names a whole unit, so it can be
 * judged before the profile is known): a bad value is a usage error now,
 * not a failed run later. */
static int set_override(char **slot, const char *value,
			int (*apply)(struct sim_profile *, const char *))
{
	struct sim_profile scratch;
	const struct sim_config *c = &scratch.cfg;
	int rc = 0;

	memset(&scratch, 0, sizeof(scratch));
	scratch.cfg.page = 4096;
	if (apply(&scratch, value))
		return -EINVAL;   /* message set by apply */
	if (apply == sim_profile_set_l1i)
		rc = sim_cache_geometry_check(c->l1i_size, c->l1i_ways, c->l1i_line);
	else if (apply == sim_profile_set_itlb)
		rc = sim_cache_geometry_check((uint64_t)c->itlb_entries * 4096, c->itlb_ways, 4096);
	else if (apply == sim_profile_set_stlb && c->stlb_entries)
		rc = sim_cache_geometry_check((uint64_t)c->stlb_entries * 4096, c->stlb_ways, 4096);
	else if (apply == sim_profile_set_page && (c->page < 4096 || (c->page & (c->page - 1))))
		return lace_error_set(EINVAL, "--page-size %s: a power of two of at least 4096", value);
	else if (apply == sim_profile_set_fetch_block &&
		 (c->fetch_block < 4 || (c->fetch_block & (c->fetch_block - 1))))
		return lace_error_set(EINVAL, "--fetch-block %s: a power of two (16, 32, 64)", value);
	if (rc)
		return lace_error_set(EINVAL, "--%s %s: %s",
				      apply == sim_profile_set_l1i ? "l1i"
				      : apply == sim_profile_set_itlb ? "itlb" : "stlb",
				      value, sim_cache_geometry_error(rc));
	free(*slot);
	*slot = xstrdup(value);
	return 0;
}

static int vg_set_option(struct lace_backend *be, const char *name, const char *value)
{
	struct vg_priv *p = be->priv;

	if (!strcmp(name, "cpu-profile")) {
		int err = sim_profiles_load(&p->ps, value ? value : "");

		if (!err)
			snprintf(p->profile_name, sizeof(p->profile_name), "%s", value);
		/* not -ENOENT: that would mean "not my option" */
		return err == -ENOENT ? -EINVAL : err;
	}
	if (!strcmp(name, "l1i"))
		return set_override(&p->ovr_l1i, value, sim_profile_set_l1i);
	if (!strcmp(name, "itlb"))
		return set_override(&p->ovr_itlb, value, sim_profile_set_itlb);
	if (!strcmp(name, "stlb"))
		return set_override(&p->ovr_stlb, value, sim_profile_set_stlb);
	if (!strcmp(name, "page-size"))
		return set_override(&p->ovr_page, value, sim_profile_set_page);
	if (!strcmp(name, "fetch-block"))
		return set_override(&p->ovr_fetch, value, sim_profile_set_fetch_block);
	if (!strcmp(name, "per-function")) {
		p->per_function = true;
		return 0;
	}
	if (!strcmp(name, "window")) {
		p->window = true;
		return 0;
	}
	if (!strcmp(name, "virtual-clock")) {
		p->virtual_clock = true;
		return 0;
	}
	if (!strcmp(name, "top"))
		return backend_option_long("top", value, 1, 100000, &p->top);
	if (!strcmp(name, "record")) {
		if (!value || !*value)
			return lace_error_set(EINVAL, "--record wants a file name");
		free(p->record);
		p->record = xstrdup(value);
		return 0;
	}
	if (!strcmp(name, "hot-out")) {
		if (!value || !*value)
			return lace_error_set(EINVAL, "--hot-out wants a file name");
		free(p->hot_out);
		p->hot_out = xstrdup(value);
		return 0;
	}
	return -ENOENT;
}

/* Per-function table after the summary.  Simulated counts do not vary
 * between runs of a deterministic program; the table is the last run's
 * and says whether every run agreed. */
static void vg_print_extra(struct lace_backend *be, FILE *out, json_t *const *extra,
			    size_t nruns)
{
	struct vg_priv *p = be->priv;
	json_t *last, *fns, *fn;
	size_t i, nvalid;
	bool same;

	if (!p->per_function)
		return;
	last = backend_extra_last(extra, nruns, "functions", "totals", &nvalid, &same);
	if (!last)
		return;
	fns = json_object_get(last, "functions");
	fprintf(out, "\n Hottest functions (simulated, %s; %s):\n\n",
		json_string_value(json_object_get(last, "profile")), backend_extra_agreement(nvalid, same));
	fprintf(out, " %14s %10s %12s %12s %10s %10s %10s  %s\n", "instructions", "calls",
		"instr/call", "path/call", "L1i-miss", "iTLB-miss", "STLB-miss", "function");
	json_array_foreach(fns, i, fn) {
		json_t *ipc = json_object_get(fn, "instructions_per_call");
		json_t *pl = json_object_get(fn, "path_length");
		char ipcs[32] = "-", pls[32] = "-";
		if (json_is_number(ipc))
			snprintf(ipcs, sizeof(ipcs), "%.1f", json_number_value(ipc));
		if (json_is_number(pl))
			snprintf(pls, sizeof(pls), "%.1f", json_number_value(pl));
		fprintf(out, " %14lld %10lld %12s %12s %10lld %10lld %10lld  %s\n",
			(long long)json_integer_value(json_object_get(fn, "instructions")),
			(long long)json_integer_value(json_object_get(fn, "calls")), ipcs, pls,
			(long long)json_integer_value(json_object_get(fn, "l1i_misses")),
			(long long)json_integer_value(json_object_get(fn, "itlb_misses")),
			(long long)json_integer_value(json_object_get(fn, "stlb_misses")),
			json_string_value(json_object_get(fn, "name")));
	}
}

static void vg_free(struct lace_backend *be)
{
	struct vg_priv *p = be->priv;

	free(p->ovr_l1i);
	free(p->ovr_itlb);
	free(p->ovr_stlb);
	free(p->ovr_page);
	free(p->ovr_fetch);
	free(p->hot_out);
	free(p->record);
	free(p->event_idx);
	free(p->event_prof);
	free(p);
	free(be);
}

/* Why the simulator cannot run here, with the remedy; NULL when it can.
 * The tool is built by plain `make` (measure/vg/module.mk) next to lace;
 * valgrind itself comes from Debian's valgrind package. */
const char *vg_backend_unavailable(void)
{
	static char why[PATH_MAX + 256];
	char dir[PATH_MAX];
	const char *env = getenv("LACE_VG_LIB");

	if (!tool_dir_find(dir, sizeof(dir))) {
		if (env && *env)
			snprintf(why, sizeof(why), "the simulator tool is not in LACE_VG_LIB=%s "
				 "(no " VG_TOOL_FILE " there)", env);
		else
			snprintf(why, sizeof(why), "the simulator tool " VG_TOOL_FILE " is not next to "
				 "this lace (%s/vg): run 'make' in lace's source tree, which builds it "
				 "(it needs Debian's valgrind package: 'make setup' as root)",
				 paths_exe_dir() ? paths_exe_dir() : "?");
		return why;
	}
	/* lace's launcher runs valgrind's core, and that comes with valgrind */
	const char *vg = getenv("LACE_VALGRIND");
	if (!vg || !*vg)
		vg = "valgrind";
	if (paths_find_program(vg, NULL)) {
		snprintf(why, sizeof(why), "the simulator needs valgrind (%s), which is not "
			 "installed: apt-get install valgrind", vg);
		return why;
	}
	return NULL;
}

static size_t vg_profiles(struct lace_backend *be, const char *const **names)
{
	struct vg_priv *p = be->priv;

	*names = p->ps.name_v;
	return p->ps.nnames;
}

/* NULL when the tool or valgrind is missing (vg_backend_unavailable says
 * which): `--backend auto` then leaves the events it cannot count as
 * <not supported> instead of failing the whole batch. */
static const struct lace_backend vg_ops = {
	.name = "sim", .supports = vg_supports, .prepare = vg_prepare, .run = vg_run,
	.describe = vg_describe, .set_option = vg_set_option, .profiles = vg_profiles,
	.print_extra = vg_print_extra,
	.free = vg_free,
};

struct lace_backend *vg_backend_new(void)
{
	if (vg_backend_unavailable())
		return NULL;

	struct vg_priv *p = xcalloc(1, sizeof(*p));

	snprintf(p->profile_name, sizeof(p->profile_name), "%s", SIM_PROFILE_DEFAULT);
	p->top = 20;
	return backend_new(&vg_ops, p);
}
