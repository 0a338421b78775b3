/* lace study --kernel; see kstudy.h.  This file runs the steps: builds,
 * layout, the measurements of the four readings; kstudy_report.c writes
 * the reports from what they recorded. */
#include "pipeline/kstudy/kstudy.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/qemu/guest.h"
#include "pipeline/kstudy/kstudy_code.h"
#include "pipeline/kstudy/kstudy_jobs.h"
#include "pipeline/kstudy/kstudy_r4_design.h"
#include "pipeline/kstudy/kstudy_priv.h"
#include "pipeline/kstudy/kstudy_stat.h"
#include "pipeline/selfexec.h"
#include "pipeline/study.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/time.h"
#include "util/xalloc.h"

#define PATHS_64K "hash_page_mm,__hash_page_64K"
#define PATHS_4K "hash_page_mm,__hash_page_4K"
/* reading 2's 4 KiB-page workloads: pages of the file-backed read, and
 * execs of the shell loop; and the paths it quotes: the hash fault
 * (hash_page_mm, __hash_page_4K) and faultaround (filemap_map_pages, and
 * do_set_pte, which maps each page it finds) */
#define R2_FILE_PAGES 1024L
#define R2_EXECS 100
#define PATHS_R2 "hash_page_mm,__hash_page_4K,filemap_map_pages,do_set_pte"
/* a kernel file the plan's builds will make, or one that is there */
bool ks_have(struct ks *s, const char *p)
{
	return s->unbuilt || fs_is_file(p);
}

void ks_not_measured(json_t *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_set_new(o, "not_measured", json_string(buf));
}

struct kjob *ks_job(struct ks *s, const char *phase, const char *what, bool self, int fill,
			json_t *dest)
{
	struct kjob *j = kjobs_add(&s->q, s->stage, phase, what, self);

	j->fill = fill;
	j->dest = dest;
	return j;
}

/* A finished job into results.json's "commands": its command, exit
 * status, time and whole output; the parsed JSON output (borrowed from
 * the record) or NULL with *why set. */
json_t *ks_record(struct ks *s, const struct kjob *jb, bool want_json, char *why, size_t whylen)
{
	json_t *rec = json_object(), *args = json_array(), *j = NULL;
	json_error_t je;

	for (size_t i = 0; i < jb->argv.nr; i++)
		json_array_append_new(args, json_string(jb->argv.v[i]));
	json_object_set_new(rec, "what", json_string(jb->what));
	json_object_set_new(rec, "argv", args);
	json_array_append_new(s->commands, rec);
	why[0] = '\0';
	if (jb->exit < 0) {
		snprintf(why, whylen, "%s%s did not finish (no out/%s.rc)", jb->self ? "lace " : "",
			 jb->argv.nr ? jb->argv.v[0] : "?", jb->id);
		json_object_set_new(rec, "error", json_string(why));
		return NULL;
	}
	json_object_set_new(rec, "exit", json_integer(jb->exit));
	json_object_set_new(rec, "seconds", json_real(jb->seconds));
	json_object_set_new(rec, "stderr", json_string(jb->err.buf));
	if (want_json && jb->out.len && (j = json_loads(jb->out.buf, 0, &je)))
		json_object_set_new(rec, "output", j);
	else
		json_object_set_new(rec, "output", json_string(jb->out.buf));
	if (jb->exit != 0 || (want_json && !j)) {
		struct strbuf e = STRBUF_INIT, w = STRBUF_INIT, name = STRBUF_INIT;

		strbuf_addf(&name, "%s%s", jb->self ? "lace " : "", jb->argv.nr ? jb->argv.v[0] : "?");
		strbuf_addstr(&e, jb->err.buf);
		selfexec_explain_exit(jb->exit, &e, name.buf, &w);
		snprintf(why, whylen, "%.400s", w.buf);
		strbuf_release(&e);
		strbuf_release(&w);
		strbuf_release(&name);
		j = NULL;
	}
	return j;
}

json_int_t ks_last_command(struct ks *s)
{
	return (json_int_t)json_array_size(s->commands) - 1;
}

/* ---- steps ------------------------------------------------------------- */

void ks_kernel_path(struct ks *s, char *out, size_t len, const char *name, const char *file)
{
	snprintf(out, len, "%.3000s/%.500s/%.500s", s->kernels, name, file);
}

static void step_build(struct ks *s)
{
	static const struct {
		const char *what, *arch, *variants[3];
		bool shuffle;
	} builds[] = {
		{ "x86_64 variants", "x86_64", { NULL }, false },
		{ "x86_64 randomized relinks", "x86_64", { NULL }, true },
		{ "x86_64 placement controls", "x86_64", { NULL }, false },
		{ "ppc64le variants", "ppc64le", { NULL }, false },
		{ "ppc64le 4K-page baseline and old-ptes", "ppc64le-4k", { "baseline", "old-ptes", NULL },
		  false },
	};
	json_t *out = json_array();

	json_object_set_new(s->res, "builds", out);
	for (size_t i = 0; i < ARRAY_SIZE(builds); i++) {
		bool controls = strstr(builds[i].what, "controls") != NULL;
		if ((builds[i].shuffle && !s->o->shuffle) || (controls && !s->o->src))
			continue;
		json_t *b = json_object();
		/* one at a time: the builds share lace's build cache, and each
		 * uses every CPU itself */
		struct kjob *j = ks_job(s, "build", builds[i].what, true, FILL_BUILD, b);

		s->stage++;
		json_object_set_new(b, "what", json_string(builds[i].what));
		strvec_pushv(&j->argv, (const char *[]){ "build", "--kernel", builds[i].arch, "-o",
							  s->kernels, NULL });
		for (size_t v = 0; builds[i].variants[v]; v++)
			strvec_pushv(&j->argv, (const char *[]){ "--variant", builds[i].variants[v], NULL });
		if (builds[i].shuffle)
			strvec_pushf(&j->argv, "--shuffle=%u", s->o->shuffle);
		/* reading 4's positive control and three reordered builds,
		 * each a relink of baseline laid out by a file */
		static const char *const layouts[] = { "conflict-16.edit", "reorder-1.order",
						       "reorder-2.order", "reorder-3.order" };
		for (size_t l = 0; controls && l < ARRAY_SIZE(layouts); l++) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%.3000s/kernel/layouts/%s", s->o->src, layouts[l]);
			strvec_push(&j->argv, "--layout");
			kjob_input(j, path);
		}
		json_array_append_new(out, b);
	}
}

static void fill_build(struct ks *s, const struct kjob *j)
{
	char why[512];

	ks_record(s, j, false, why, sizeof(why));
	json_object_set_new(j->dest, "seconds", json_real(j->seconds));
	const char *sum = strstr(j->err.buf, "lace build: ");
	if (sum)
		json_object_set_new(j->dest, "summary", json_stringn(sum, strcspn(sum, "\n")));
	if (why[0])
		ks_not_measured(j->dest, "%s", why);
}

/* where the hash_fault tracepoint's jump sites and their targets sit in
 * each ppc64le kernel (lace layout --jumps), and whether the entry code is
 * inside .text in each x86 kernel (lace layout --regions) */
static void step_layout(struct ks *s)
{
	static const char *const ppc[] = { "ppc64le-baseline", "ppc64le-no-tracepoint",
					   "ppc64le-cold-slowpaths", "ppc64le-old-ptes" };
	json_t *lay = json_object();

	json_object_set_new(s->res, "layout", lay);
	for (size_t i = 0; i < ARRAY_SIZE(ppc); i++) {
		char vm[PATH_MAX];
		json_t *k = json_object();

		json_object_set_new(lay, ppc[i], k);
		ks_kernel_path(s, vm, sizeof(vm), ppc[i], "vmlinux");
		if (!ks_have(s, vm)) {
			ks_not_measured(k, "%s: not built", vm);
			continue;
		}
		json_object_set_new(k, "hash_fault_sites", json_array());
		struct kjob *j = ks_job(s, "layout", "jump sites", true, FILL_LAYOUT, k);
		strvec_pushv(&j->argv, (const char *[]){ "layout", "--jumps", "--json", "--no-dwarf", NULL });
		kjob_input(j, vm);
	}
}

static void fill_layout(struct ks *s, const struct kjob *jb)
{
	char why[512];
	/* borrowed: results.json's record of the command keeps it */
	json_t *lj = ks_record(s, jb, true, why, sizeof(why));
	json_t *sites = json_object_get(jb->dest, "hash_fault_sites"), *site;
	size_t ji;

	json_array_foreach(json_object_get(lj, "jumps"), ji, site) {
		const char *key = json_string_value(json_object_get(site, "key_symbol"));

		if (!key || strncmp(key, "__tracepoint_hash_fault", 23))
			continue;
		json_array_append_new(sites, json_pack("{s:O,s:O,s:O,s:O,s:O}",
			"function", json_object_get(site, "func_name"),
			"region", json_object_get(site, "region_name"),
			"target_function", json_object_get(site, "target_func_name"),
			"target_region", json_object_get(site, "target_region_name"),
			"distance", json_object_get(site, "distance")));
	}
	if (why[0])
		ks_not_measured(jb->dest, "%s", why);
	/* the code at each site, for reading 1's explanation: read here, once
	 * the job ran, since a plan's kernels exist only then */
	json_t *code;

	struct strbuf vm = STRBUF_INIT;

	/* a plan's inputs are named relative to its folder (inputs/SHA256/NAME) */
	if (jb->inputs.nr)
		strbuf_addf(&vm, "%s%s%s", jb->inputs.v[0][0] == '/' ? "" : s->o->plan_dir,
			    jb->inputs.v[0][0] == '/' ? "" : "/", jb->inputs.v[0]);
	if (jb->inputs.nr && !kstudy_site_code(vm.buf, "__tracepoint_hash_fault", &code))
		json_object_set_new(jb->dest, "hash_fault_code", code);
	else
		json_object_set_new(jb->dest, "hash_fault_code_error",
				    json_string(jb->inputs.nr ? lace_error_msg() : "no vmlinux"));
	strbuf_release(&vm);
}

/* lace stat --backend qemu of one kernel: kernel is a build folder name,
 * or a Debian kernel name (stock); the job, or NULL when not built */
struct kjob *ks_stat(struct ks *s, json_t *dest, const char *phase, const char *what,
		     const char *kernel, const char *events, const char *paths,
		     const char *const *opts, const char *const *cmd, int fill)
{
	char vm[PATH_MAX], map[PATH_MAX], why[1024];
	bool stock = !strncmp(kernel, "linux-image-", 12);
	struct kjob *j;

	/* a guest part this boot needs could not be fetched: say so, and
	 * boot nothing */
	if (kstudy_guest_missing(s, kernel, why, sizeof(why))) {
		ks_not_measured(dest, "%s", why);
		return NULL;
	}
	if (!stock) {
		ks_kernel_path(s, vm, sizeof(vm), kernel, "vmlinux");
		ks_kernel_path(s, map, sizeof(map), kernel, "System.map");
		if (strstr(kernel, "x86_64"))
			ks_kernel_path(s, vm, sizeof(vm), kernel, "bzImage");
		if (!ks_have(s, vm) || !ks_have(s, map)) {
			ks_not_measured(dest, "%s: not built (lace build --kernel)", vm);
			return NULL;
		}
	}
	j = ks_job(s, phase, what, true, fill, dest);
	strvec_pushv(&j->argv, (const char *[]){ "stat", "--backend", "qemu", "--kernel", NULL });
	if (stock)
		strvec_push(&j->argv, kernel);
	else
		kjob_input(j, vm);
	strvec_pushv(&j->argv, (const char *[]){ "-e", events, "-r", "1", "--json",
						  "--no-results", "--output", "null", NULL });
	if (!stock) {
		strvec_push(&j->argv, "--system-map");
		kjob_input(j, map);
	}
	if (paths)
		strvec_pushv(&j->argv, (const char *[]){ "--path-length", paths, NULL });
	if (opts)
		strvec_pushv(&j->argv, (const char **)opts);
	strvec_push(&j->argv, "--");
	if (guest_is_applet(cmd[0]))
		strvec_push(&j->argv, cmd[0]);   /* the guest's own busybox: nothing to stage */
	else
		kjob_guest_input(j, cmd[0]);
	strvec_pushv(&j->argv, (const char **)cmd + 1);
	return j;
}

/* one ppc64le point: faultbench --real touching n pages */
static json_t *fault_point(struct ks *s, const char *phase, const char *kernel, bool enabled,
			   long n, const char *paths, const char *path_fn)
{
	json_t *pt = json_object();
	char pages[32], what[160];
	struct kjob *j;

	snprintf(pages, sizeof(pages), "%ld", n);
	json_object_set_new(pt, "pages", json_integer(n));
	if (!kernel) {
		/* the stock kernel, when its name is not known */
		ks_not_measured(pt, "%s", s->stock_why);
		return pt;
	}
	snprintf(what, sizeof(what), "%s%s: faultbench --real --pages %ld", kernel,
		 enabled ? " (tracepoint enabled)" : "", n);
	j = ks_stat(s, pt, phase, what, kernel,
		  enabled ? "instructions:k,instructions:u,powerpc:hash_fault"
			  : "instructions:k,instructions:u", paths, NULL,
		  (const char *[]){ s->faultbench, "--real", "--pages", pages, NULL }, FILL_POINT);
	if (j) {
		j->enabled = enabled;
		j->arg = xstrdup(path_fn);
	}
	return pt;
}

static void fill_point(struct ks *s, const struct kjob *jb)
{
	json_t *pt = jb->dest, *j, *p;
	char why[512];

	if (!(j = ks_record(s, jb, true, why, sizeof(why)))) {
		ks_not_measured(pt, "%s", why);
		return;
	}
	json_object_set_new(pt, "command", json_integer(ks_last_command(s)));
	json_object_set_new(pt, "instructions_k", json_real(kstudy_stat_event(j, "instructions:k")));
	json_object_set_new(pt, "instructions_u", json_real(kstudy_stat_event(j, "instructions:u")));
	if (jb->enabled)
		json_object_set_new(pt, "hash_fault_events", json_real(kstudy_stat_event(j, "powerpc:hash_fault")));
	/* every hash fault enters hash_page_mm once: its calls count them,
	 * tracepoint or not */
	p = kstudy_stat_path(j, "hash_page_mm");
	json_object_set_new(pt, "hash_faults", json_real(lace_json_get_num(p, "calls")));
	json_object_set_new(pt, "hash_page_mm_per_call", json_real(lace_json_get_num(p, "per_call")));
	/* the path a reviewer can quote (the uninterrupted calls' mode), and
	 * the model's misses inside the calls: the hash-fault path's own
	 * L1i/iTLB cost */
	json_object_set_new(pt, "hash_page_mm_path_length", json_real(lace_json_get_num(p, "path_length")));
	json_object_set_new(pt, "hash_page_mm_l1i_misses", json_real(lace_json_get_num(p, "l1i_misses")));
	json_object_set_new(pt, "hash_page_mm_itlb_misses", json_real(lace_json_get_num(p, "itlb_misses")));
	p = kstudy_stat_path(j, jb->arg);
	json_object_set_new(pt, "insert_fn", json_string(jb->arg));
	json_object_set_new(pt, "insert_calls", json_real(lace_json_get_num(p, "calls")));
	json_object_set_new(pt, "insert_per_call", json_real(lace_json_get_num(p, "per_call")));
}

/* 1: the disabled hash_fault tracepoint: absent vs disabled vs enabled,
 * on lace's builds and on Debian's stock kernel */
static void reading1(struct ks *s, const long *sizes, size_t nsizes)
{
	static const struct {
		const char *name, *kernel;
		bool enabled;
	} cfg[] = {
		{ "absent", "ppc64le-no-tracepoint", false },
		{ "disabled", "ppc64le-baseline", false },
		{ "enabled", "ppc64le-baseline", true },
		{ "disabled, slow path cold", "ppc64le-cold-slowpaths", false },
		{ "stock disabled", NULL, false },
		{ "stock enabled", NULL, true },
	};
	json_t *r = json_object(), *cs = json_array();

	json_object_set_new(s->res, "r1_tracepoint", r);
	json_object_set_new(r, "configs", cs);
	for (size_t c = 0; c < ARRAY_SIZE(cfg); c++) {
		json_t *o = json_object(), *pts = json_array();
		/* NULL: Debian's stock kernel, as the manifest names it */
		const char *k = cfg[c].kernel ? cfg[c].kernel : *s->stock ? s->stock : NULL;

		json_object_set_new(o, "name", json_string(cfg[c].name));
		json_object_set_new(o, "kernel", json_string(k ? k : "Debian's stock ppc64le kernel"));
		json_object_set_new(o, "points", pts);
		for (size_t i = 0; i < nsizes; i++)
			json_array_append_new(pts, fault_point(s, "r1_tracepoint", k, cfg[c].enabled,
							       sizes[i], PATHS_64K, "__hash_page_64K"));
		json_array_append_new(cs, o);
	}
}

/* reading 1 once its points are measured: each configuration's slope,
 * and the first point's reason when one could not be */
static void reading1_finish(struct ks *s)
{
	size_t c, i;
	json_t *o, *pt;

	json_array_foreach(json_object_get(json_object_get(s->res, "r1_tracepoint"), "configs"), c, o) {
		json_t *pts = json_object_get(o, "points");

		json_array_foreach(pts, i, pt)
			if (json_object_get(pt, "not_measured") && !json_object_get(o, "not_measured"))
				json_object_set(o, "not_measured", json_object_get(pt, "not_measured"));
		json_object_set_new(o, "instructions_per_hash_fault",
				    json_real(kstudy_slope(pts, "hash_faults", "instructions_k")));
	}
}

/* One run of cmd on a 4 KiB-page kernel for reading 2 (fill_r2) */
static json_t *r2_point(struct ks *s, const char *kernel, const char *label, const char *const *cmd,
			long pages)
{
	json_t *pt = json_object();
	char what[200];

	snprintf(what, sizeof(what), "%s: %s", kernel, label);
	json_object_set_new(pt, "kernel", json_string(kernel));
	if (pages)
		json_object_set_new(pt, "pages", json_integer(pages));
	ks_stat(s, pt, "r2_old_ptes", what, kernel, "instructions:k,instructions:u", PATHS_R2, NULL, cmd,
		FILL_R2);
	return pt;
}

static void fill_r2(struct ks *s, const struct kjob *jb)
{
	static const char *const fns[] = { "hash_page_mm", "__hash_page_4K", "filemap_map_pages",
					   "do_set_pte" };
	json_t *pt = jb->dest, *j, *paths = json_object();
	char why[512];

	if (!(j = ks_record(s, jb, true, why, sizeof(why)))) {
		json_decref(paths);
		ks_not_measured(pt, "%s", why);
		return;
	}
	json_object_set_new(pt, "command", json_integer(ks_last_command(s)));
	json_object_set_new(pt, "instructions_k", json_real(kstudy_stat_event(j, "instructions:k")));
	json_object_set_new(pt, "instructions_u", json_real(kstudy_stat_event(j, "instructions:u")));
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		json_t *p = kstudy_stat_path(j, fns[i]);
		json_object_set_new(paths, fns[i],
				    json_pack("{s:o, s:o}", "calls", json_real(lace_json_get_num(p, "calls")),
					      "per_call", json_real(lace_json_get_num(p, "per_call"))));
	}
	json_object_set_new(pt, "paths", paths);
	/* every hash fault enters hash_page_mm once */
	json_object_set_new(pt, "hash_faults",
			    json_real(lace_json_get_num(kstudy_stat_path(j, "hash_page_mm"), "calls")));
}

/* 2: old vs young PTEs on the hash MMU.  On the 64 KiB-page kernel
 * faultaround is off (fault_around_bytes is one page), so its pair shows
 * the no-op; the 4 KiB-page pair runs a file-backed read (faultaround maps
 * 16 pages a fault there) and an exec-heavy shell loop (the seed's
 * regression was unixbench's shell8) */
static void reading2(struct ks *s, long n)
{
	static const char *const kernels[] = { "ppc64le-4k-baseline", "ppc64le-4k-old-ptes" };
	static const char *const ptes[] = { "young", "old" };
	json_t *r = json_object(), *w = json_object(), *file = json_object(), *shell = json_object();
	char pages[32], loop[200];

	json_object_set_new(s->res, "r2_old_ptes", r);
	json_object_set_new(r, "young", fault_point(s, "r2_old_ptes", "ppc64le-baseline", false, n,
						    PATHS_64K, "__hash_page_64K"));
	json_object_set_new(r, "old", fault_point(s, "r2_old_ptes", "ppc64le-old-ptes", false, n,
						  PATHS_64K, "__hash_page_64K"));
	json_object_set_new(r, "workloads_4k", w);
	snprintf(pages, sizeof(pages), "%ld", R2_FILE_PAGES);
	snprintf(loop, sizeof(loop), "i=0; while [ $i -lt %d ]; do %s/true; i=$((i+1)); done", R2_EXECS,
		 GUEST_APPLET_DIR);
	json_object_set_new(w, "file", file);
	json_object_set_new(w, "shell", shell);
	json_object_set_new(file, "workload", json_pack("[s,s,s,s,s,s]", "faultbench", "--real", "--file",
							"/tmp/faultbench.map", "--pages", pages));
	json_object_set_new(shell, "workload", json_pack("[s,s,s]", GUEST_APPLET_DIR "/sh", "-c", loop));
	json_object_set_new(shell, "execs", json_integer(R2_EXECS));
	for (size_t i = 0; i < ARRAY_SIZE(kernels); i++) {
		json_object_set_new(file, ptes[i],
				    r2_point(s, kernels[i], "faultbench --real --file (file-backed reads)",
					     (const char *[]){ s->faultbench, "--real", "--file",
							       "/tmp/faultbench.map", "--pages", pages, NULL },
					     R2_FILE_PAGES));
		json_object_set_new(shell, ptes[i],
				    r2_point(s, kernels[i], "busybox sh loop of /lace/bin/true (exec-heavy)",
					     (const char *[]){ GUEST_APPLET_DIR "/sh", "-c", loop, NULL }, 0));
	}
}

/* 3: the insert path per call, 4K and 64K pages */
static void reading3(struct ks *s, long n)
{
	json_t *r = json_object();

	json_object_set_new(s->res, "r3_insert_path", r);
	json_object_set_new(r, "reference_instructions", json_integer(196));
	json_object_set_new(r, "64k", fault_point(s, "r3_insert_path", "ppc64le-baseline", false, n,
						  PATHS_64K, "__hash_page_64K"));
	json_object_set_new(r, "4k", fault_point(s, "r3_insert_path", "ppc64le-4k-baseline", false,
						 n, PATHS_4K, "__hash_page_4K"));
	json_object_set_new(r, "64k_stock", fault_point(s, "r3_insert_path", *s->stock ? s->stock : NULL,
							false, n, PATHS_64K, "__hash_page_64K"));
}

/* The finished jobs into the results, in the order they were queued, so
 * "commands" reads the same however many ran at once. */
static void fill(struct ks *s, int stage_from, int stage_to)
{
	char why[512];

	for (size_t i = 0; i < s->q.nr; i++) {
		const struct kjob *j = &s->q.v[i];
		json_t *ph = json_object_get(s->phases, j->phase);

		if (j->stage < stage_from || j->stage > stage_to)
			continue;
		/* a phase's seconds: the time its jobs took, summed (they
		 * may have run side by side) */
		json_object_set_new(s->phases, j->phase,
				    json_real((ph ? json_number_value(ph) : 0) + j->seconds));
		switch (j->fill) {
		case FILL_BUILD: fill_build(s, j); break;
		case FILL_LAYOUT: fill_layout(s, j); break;
		case FILL_POINT: fill_point(s, j); break;
		case FILL_R2: fill_r2(s, j); break;
		case FILL_R4_LIVE:
		case FILL_R4_REPLAY: kstudy_r4_fill(s, j); break;
		case FILL_GUEST: kstudy_guests_fill(s, j); break;
		case FILL_DIFF:
			ks_record(s, j, false, why, sizeof(why));
			json_object_set_new(j->dest, "command", json_integer(ks_last_command(s)));
			break;
		}
	}
}

static void find_tools(struct ks *s)
{
	char exe[PATH_MAX];

	snprintf(exe, sizeof(exe), "%s", selfexec_path());
	snprintf(s->bin, sizeof(s->bin), "%s", dirname(exe));
	snprintf(s->faultbench, sizeof(s->faultbench), "%.4000s/ppc64le/bench/faultbench", s->bin);
	snprintf(s->hackbench, sizeof(s->hackbench), "%.4000s/bench/hackbench", s->bin);
}

static void begin(struct ks *s, const struct kstudy_opts *o, json_t **results)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->t0 = time_now_s();
	s->res = json_object();
	s->commands = json_array();
	s->phases = json_object();
	*results = s->res;
	json_object_set_new(s->res, "schema", json_string("lace-study-kernel"));
	json_object_set_new(s->res, "schema_version", json_integer(1));
	json_object_set_new(s->res, "quick", json_boolean(o->quick));
	json_object_set_new(s->res, "shuffle", json_integer(o->shuffle));
	json_object_set_new(s->res, "phases", s->phases);
	find_tools(s);
	char cwd[PATH_MAX];
	if (o->kernels[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(s->kernels, sizeof(s->kernels), "%s", o->kernels);
	else
		snprintf(s->kernels, sizeof(s->kernels), "%.2000s/%.2000s", cwd, o->kernels);
	if (!fs_is_file(s->faultbench))
		study_progress_notef(s->o->progress, s->o->progress_data, s->t0,
				     "setup", "note: %s missing (make builds it with powerpc64le-linux-gnu-gcc): "
		     "the ppc64le readings will say not measured", s->faultbench);
}

/* every boot and read of the kernels, into one stage: each depends only on
 * the builds and guests before it */
static void queue_measurements(struct ks *s)
{
	long sizes_full[] = { 256, 512, 1024 }, sizes_quick[] = { 256, 512 };

	step_layout(s);
	reading1(s, s->o->quick ? sizes_quick : sizes_full, s->o->quick ? 2 : 3);
	reading2(s, 512);
	reading3(s, 512);
	kstudy_r4_queue_boots(s);
	s->stage++;
	/* the replays read the recording a boot of the stage before made */
	kstudy_r4_queue_replays(s);
	s->stage++;
}

static void end(struct ks *s, double total)
{
	reading1_finish(s);
	kstudy_r4_finish(s);
	json_object_set_new(s->phases, "total", json_real(total));
	json_object_set_new(s->res, "commands", s->commands);
	kjobs_clear(&s->q);
	json_decref(s->guest_failed);
	s->guest_failed = NULL;
}

static int run_stages(struct ks *s, int from, int max, const char *name)
{
	struct kjobs_progress pr = { .name = name, .t0 = s->t0, .fn = s->o->progress,
				     .data = s->o->progress_data };

	/* a named phase counts its steps over all its stages */
	for (size_t i = 0; name && i < s->q.nr; i++)
		pr.total += s->q.v[i].stage >= from;
	for (int st = from; st < s->stage; st++) {
		const char *ph = name;

		for (size_t i = 0; !ph && i < s->q.nr; i++)
			if (s->q.v[i].stage == st) {
				ph = s->q.v[i].phase;
				/* a build takes minutes: say it began, not only
				 * that it ended */
				study_progress_notef(s->o->progress, s->o->progress_data, s->t0,
				     ph, "%s: started", s->q.v[i].what);
			}
		pr.name = ph ? ph : "";
		if (!name)
			pr.done = pr.total = pr.failed = 0;
		int rc = kjobs_run_stage(&s->q, s->o->plan_dir, st, max, &pr);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int kstudy_run(const struct kstudy_opts *o, json_t **results)
{
	struct ks s;
	int rc, max = o->jobs > 0 ? o->jobs : 1, measure;

	begin(&s, o, results);
	json_object_set_new(s.res, "jobs", json_integer(max));
	/* builds and guests first: which kernels there are decides the boots */
	if (!o->no_build)
		step_build(&s);
	kstudy_guests_queue(&s);
	if ((rc = kjobs_write(&s.q, o->plan_dir, s.res, false)) < 0 || (rc = run_stages(&s, 0, 1, NULL)) < 0)
		goto out;
	/* what could not be fetched is not booted; the stock kernel is the
	 * one the fetch stands for; kernels of another source are noted */
	kstudy_guests_check(&s);
	kstudy_stock_resolve(&s);
	kstudy_source_check(&s);
	measure = s.stage;
	queue_measurements(&s);
	if ((rc = kjobs_write(&s.q, o->plan_dir, s.res, false)) < 0 ||
	    (rc = run_stages(&s, measure, max, "measure")) < 0)
		goto out;
	fill(&s, 0, s.stage);
out:
	end(&s, time_now_s() - s.t0);
	return rc;
}

int kstudy_plan(const struct kstudy_opts *o, size_t *njobs)
{
	struct ks s;
	json_t *res;
	int rc;

	begin(&s, o, &res);
	s.unbuilt = !o->no_build;
	if (!o->no_build)
		step_build(&s);
	kstudy_guests_queue(&s);
	kstudy_stock_resolve(&s);
	queue_measurements(&s);
	*njobs = s.q.nr;
	rc = kjobs_write(&s.q, o->plan_dir, s.res, true);
	kjobs_clear(&s.q);
	json_decref(s.commands);
	json_decref(res);
	return rc;
}

int kstudy_merge(const struct kstudy_opts *o, json_t **results)
{
	struct ks s;
	json_t *res;
	int rc;

	begin(&s, o, results);
	json_decref(s.res);
	if ((rc = kjobs_read_plan(&s.q, o->plan_dir, &res)) < 0) {
		*results = NULL;
		kjobs_clear(&s.q);
		json_decref(s.commands);
		return rc;
	}
	*results = s.res = res;
	s.phases = json_object_get(res, "phases");
	kjobs_load(&s.q, o->plan_dir);
	for (size_t i = 0; i < s.q.nr; i++)
		if (s.q.v[i].stage + 1 > s.stage)
			s.stage = s.q.v[i].stage + 1;
	fill(&s, 0, s.stage);
	double total = 0;
	for (size_t i = 0; i < s.q.nr; i++)
		total += s.q.v[i].seconds;
	end(&s, total);
	return 0;
}

void kstudy_analyse(json_t *results)
{
	json_t *r = json_object_get(results, "r4_entry_text");

	if (r && json_object_get(r, "design"))
		kstudy_r4_judge(r);
}
