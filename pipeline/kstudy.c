/* lace study --kernel; see kstudy.h.  This file runs the steps: builds,
 * layout, the measurements of the four readings; kstudy_report.c writes
 * the reports from what they recorded. */
#include "pipeline/kstudy.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/kstudy_code.h"
#include "pipeline/selfexec.h"
#include "pipeline/study.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/paths.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/time.h"
#include "util/xalloc.h"

/* the stock kernel the parts that need no rebuild run on */
#define STOCK_PPC64LE "linux-image-6.1.0-57-powerpc64le"
#define PATHS_64K "hash_page_mm,__hash_page_64K"
#define PATHS_4K "hash_page_mm,__hash_page_4K"
/* reading 2's 4 KiB-page workloads: pages of the file-backed read, and
 * execs of the shell loop */
#define R2_FILE_PAGES 1024L
#define R2_EXECS 100
#define X86_EVENTS "instructions:k,instructions:u,L1-icache-load-misses:k," \
		   "L1-icache-load-misses:u,iTLB-load-misses:k,iTLB-load-misses:u"

struct ks {
	const struct kstudy_opts *o;
	json_t *res, *commands, *phases;
	double t0;
	char bin[PATH_MAX];          /* the folder of the lace binary (build/) */
	char faultbench[PATH_MAX];   /* static ppc64le, build/ppc64le/bench/ */
	char hackbench[PATH_MAX];    /* the host's, build/bench/ */
};

static void progress(struct ks *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct ks *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->o->progress)
		return;
	va_start(ap, fmt);
	study_vprogress(s->t0, fmt, ap);
	va_end(ap);
}

static void not_measured(json_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void not_measured(json_t *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_set_new(o, "not_measured", json_string(buf));
}

/* Run `lace argv...` (self) or the program argv[0], keep the command, its
 * exit status, time and whole output in results.json's "commands"; the
 * parsed JSON output (borrowed from the record) or NULL with *why set. */
static json_t *run_recorded(struct ks *s, const char *what, const struct strvec *argv, bool self,
			    bool want_json, char *why, size_t whylen)
{
	struct selfexec_result r;
	json_t *rec = json_object(), *args = json_array(), *j = NULL;
	double t = time_now_s();
	json_error_t je;
	int rc;

	for (size_t i = 0; i < argv->nr; i++)
		json_array_append_new(args, json_string(argv->v[i]));
	json_object_set_new(rec, "what", json_string(what));
	json_object_set_new(rec, "argv", args);
	json_array_append_new(s->commands, rec);
	why[0] = '\0';
	rc = self ? selfexec_run(argv->v, NULL, false, &r)
		  : selfexec_run_prog(argv->v, NULL, false, &r);
	if (rc < 0) {
		snprintf(why, whylen, "%s", lace_error_msg());
		json_object_set_new(rec, "error", json_string(why));
		return NULL;
	}
	json_object_set_new(rec, "exit", json_integer(r.exit_code));
	json_object_set_new(rec, "seconds", json_real(time_now_s() - t));
	json_object_set_new(rec, "stderr", json_string(r.err.buf));
	if (want_json && r.out.len && (j = json_loads(r.out.buf, 0, &je)))
		json_object_set_new(rec, "output", j);
	else
		json_object_set_new(rec, "output", json_string(r.out.buf));
	if (r.exit_code != 0 || (want_json && !j)) {
		struct strbuf name = STRBUF_INIT, w = STRBUF_INIT;

		strbuf_addf(&name, "%s%s", self ? "lace " : "", argv->v[0]);
		selfexec_explain(&r, name.buf, &w);
		snprintf(why, whylen, "%.*s", w.len > 340 ? 340 : (int)w.len, w.buf);
		strbuf_release(&name);
		strbuf_release(&w);
		j = NULL;
	}
	selfexec_result_release(&r);
	return j;
}

static json_t *run_lace(struct ks *s, const char *what, const struct strvec *argv, bool want_json,
			char *why, size_t whylen)
{
	return run_recorded(s, what, argv, true, want_json, why, whylen);
}

/* ---- reading a lace stat --json report ---------------------------------- */

static double stat_event(const json_t *stat, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(stat, "events"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", name) &&
		    !strcmp(json_string_value(json_object_get(e, "status")) ?: "", "counted"))
			return json_number_value(json_object_get(e, "mean"));
	return NAN;
}

/* the first run's path of fn: calls and inclusive instructions */
static json_t *stat_path(const json_t *stat, const char *fn)
{
	json_t *bd = json_array_get(json_object_get(stat, "backend_data"), 0), *p;
	size_t i;

	json_array_foreach(json_object_get(bd, "paths"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")) ?: "", fn))
			return p;
	return NULL;
}

/* ---- steps ------------------------------------------------------------- */

static void kernel_path(struct ks *s, char *out, size_t len, const char *name, const char *file)
{
	snprintf(out, len, "%s/%s/%s", s->o->kernels, name, file);
}

static void step_build(struct ks *s)
{
	static const struct {
		const char *what, *arch, *variants[3];
		bool shuffle;
	} builds[] = {
		{ "x86_64 variants", "x86_64", { NULL }, false },
		{ "x86_64 randomized relinks", "x86_64", { NULL }, true },
		{ "ppc64le variants", "ppc64le", { NULL }, false },
		{ "ppc64le 4K-page baseline and old-ptes", "ppc64le-4k", { "baseline", "old-ptes", NULL },
		  false },
	};
	json_t *out = json_array();

	json_object_set_new(s->res, "builds", out);
	for (size_t i = 0; i < ARRAY_SIZE(builds); i++) {
		struct strvec argv = STRVEC_INIT;
		json_t *b = json_object();
		char why[512];
		double t = time_now_s();

		if (builds[i].shuffle && !s->o->shuffle) {
			json_decref(b);
			continue;
		}
		progress(s, "build: %s", builds[i].what);
		strvec_pushv(&argv, (const char *[]){ "build", "--kernel", builds[i].arch, "-o",
						      s->o->kernels, NULL });
		for (size_t v = 0; builds[i].variants[v]; v++)
			strvec_pushv(&argv, (const char *[]){ "--variant", builds[i].variants[v], NULL });
		if (builds[i].shuffle)
			strvec_pushf(&argv, "--shuffle=%u", s->o->shuffle);
		run_lace(s, builds[i].what, &argv, false, why, sizeof(why));
		json_object_set_new(b, "what", json_string(builds[i].what));
		json_object_set_new(b, "seconds", json_real(time_now_s() - t));
		json_t *rec = json_array_get(s->commands, json_array_size(s->commands) - 1);
		const char *err = json_string_value(json_object_get(rec, "stderr")) ?: "";
		const char *sum = strstr(err, "lace build: ");
		if (sum)
			json_object_set_new(b, "summary", json_stringn(sum, strcspn(sum, "\n")));
		if (why[0])
			not_measured(b, "%s", why);
		json_array_append_new(out, b);
		strvec_clear(&argv);
	}
}

/* The guests the readings boot, fetched into lace's cache when missing
 * (the scripts do nothing when they are there): busybox and Debian's
 * x86-64 kernel (scripts/fetch-guest.sh), busybox and the stock ppc64le
 * kernel (--arch ppc64le).  From an empty cache nothing else fetches them,
 * and every reading would say not measured. */
static void step_guests(struct ks *s)
{
	static const char *const arch[] = { "x86_64", "ppc64le" };
	json_t *out = json_object();

	json_object_set_new(s->res, "guests", out);
	for (size_t i = 0; i < ARRAY_SIZE(arch); i++) {
		struct strvec argv = STRVEC_INIT;
		json_t *g = json_object();
		char why[512];

		json_object_set_new(out, arch[i], g);
		if (!s->o->src) {
			not_measured(g, "lace's sources not found (scripts/fetch-guest.sh; set LACE_SRCDIR)");
			continue;
		}
		progress(s, "guest: %s (fetched into lace's cache when missing)", arch[i]);
		strvec_pushf(&argv, "%s/scripts/fetch-guest.sh", s->o->src);
		if (!strcmp(arch[i], "ppc64le"))
			strvec_pushv(&argv, (const char *[]){ "--arch", "ppc64le", STOCK_PPC64LE, NULL });
		run_recorded(s, "guest fetch", &argv, false, false, why, sizeof(why));
		strvec_clear(&argv);
		if (why[0])
			not_measured(g, "%s", why);
	}
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
		struct strvec argv = STRVEC_INIT;
		char vm[PATH_MAX], why[512];
		json_t *sites = json_array(), *k = json_object();

		json_object_set_new(lay, ppc[i], k);
		kernel_path(s, vm, sizeof(vm), ppc[i], "vmlinux");
		if (!fs_is_file(vm)) {
			not_measured(k, "%s: not built", vm);
			json_decref(sites);
			continue;
		}
		strvec_pushv(&argv, (const char *[]){ "layout", "--jumps", "--json", "--no-dwarf", vm, NULL });
		/* borrowed: results.json's record of the command keeps it */
		json_t *lj = run_lace(s, "jump sites", &argv, true, why, sizeof(why));
		strvec_clear(&argv);
		size_t ji;
		json_t *site;

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
			not_measured(k, "%s", why);
		json_object_set_new(k, "hash_fault_sites", sites);
		/* the code at each site, for reading 1's explanation */
		json_t *code;

		if (!kstudy_site_code(vm, "__tracepoint_hash_fault", &code))
			json_object_set_new(k, "hash_fault_code", code);
		else
			json_object_set_new(k, "hash_fault_code_error", json_string(lace_error_msg()));
	}
}

/* lace stat --backend qemu of one kernel: kernel is a build folder name,
 * or a Debian kernel name (stock) */
static json_t *kstat(struct ks *s, json_t *dest, const char *what, const char *kernel,
		     const char *events, const char *paths, const char *const *cmd)
{
	struct strvec argv = STRVEC_INIT;
	char vm[PATH_MAX], map[PATH_MAX], why[512];
	bool stock = !strncmp(kernel, "linux-image-", 12);
	json_t *j;

	if (!stock) {
		kernel_path(s, vm, sizeof(vm), kernel, "vmlinux");
		kernel_path(s, map, sizeof(map), kernel, "System.map");
		if (strstr(kernel, "x86_64"))
			kernel_path(s, vm, sizeof(vm), kernel, "bzImage");
		if (!fs_is_file(vm) || !fs_is_file(map)) {
			not_measured(dest, "%s: not built (lace build --kernel)", vm);
			return NULL;
		}
	}
	progress(s, "measure: %s", what);
	strvec_pushv(&argv, (const char *[]){ "stat", "--backend", "qemu", "--kernel",
					      stock ? kernel : vm, "-e", events, "-r", "1", "--json",
					      "--no-results", "--output", "null", NULL });
	if (!stock)
		strvec_pushv(&argv, (const char *[]){ "--system-map", map, NULL });
	if (paths)
		strvec_pushv(&argv, (const char *[]){ "--path-length", paths, NULL });
	strvec_push(&argv, "--");
	strvec_pushv(&argv, (const char **)cmd);
	j = run_lace(s, what, &argv, true, why, sizeof(why));
	strvec_clear(&argv);
	if (!j)
		not_measured(dest, "%s", why);
	return j;
}

/* one ppc64le point: faultbench --real touching n pages */
static json_t *fault_point(struct ks *s, const char *kernel, bool enabled, long n, const char *paths,
			   const char *path_fn)
{
	json_t *pt = json_object(), *j, *p;
	char pages[32], what[160];

	snprintf(pages, sizeof(pages), "%ld", n);
	snprintf(what, sizeof(what), "%s%s: faultbench --real --pages %ld", kernel,
		 enabled ? " (tracepoint enabled)" : "", n);
	json_object_set_new(pt, "pages", json_integer(n));
	j = kstat(s, pt, what, kernel,
		  enabled ? "instructions:k,instructions:u,powerpc:hash_fault"
			  : "instructions:k,instructions:u", paths,
		  (const char *[]){ s->faultbench, "--real", "--pages", pages, NULL });
	if (!j)
		return pt;
	json_object_set_new(pt, "command", json_integer((json_int_t)json_array_size(s->commands) - 1));
	json_object_set_new(pt, "instructions_k", json_real(stat_event(j, "instructions:k")));
	json_object_set_new(pt, "instructions_u", json_real(stat_event(j, "instructions:u")));
	if (enabled)
		json_object_set_new(pt, "hash_fault_events", json_real(stat_event(j, "powerpc:hash_fault")));
	/* every hash fault enters hash_page_mm once: its calls count them,
	 * tracepoint or not */
	p = stat_path(j, "hash_page_mm");
	json_object_set_new(pt, "hash_faults", json_real(lace_json_get_num(p, "calls")));
	json_object_set_new(pt, "hash_page_mm_per_call", json_real(lace_json_get_num(p, "per_call")));
	/* the path a reviewer can quote (the uninterrupted calls' mode), and
	 * the model's misses inside the calls: the hash-fault path's own
	 * L1i/iTLB cost */
	json_object_set_new(pt, "hash_page_mm_path_length", json_real(lace_json_get_num(p, "path_length")));
	json_object_set_new(pt, "hash_page_mm_l1i_misses", json_real(lace_json_get_num(p, "l1i_misses")));
	json_object_set_new(pt, "hash_page_mm_itlb_misses", json_real(lace_json_get_num(p, "itlb_misses")));
	p = stat_path(j, path_fn);
	json_object_set_new(pt, "insert_fn", json_string(path_fn));
	json_object_set_new(pt, "insert_calls", json_real(lace_json_get_num(p, "calls")));
	json_object_set_new(pt, "insert_per_call", json_real(lace_json_get_num(p, "per_call")));
	return pt;
}

/* least-squares slope of y over x across the points (NaN if < 2) */
static double slope(json_t *pts, const char *xk, const char *yk)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t i, n = 0;
	json_t *p;

	json_array_foreach(pts, i, p) {
		double x = lace_json_get_num(p, xk), y = lace_json_get_num(p, yk);
		if (isnan(x) || isnan(y))
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	if (n < 2 || n * sxx - sx * sx == 0)
		return NAN;
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
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
		{ "stock disabled", STOCK_PPC64LE, false },
		{ "stock enabled", STOCK_PPC64LE, true },
	};
	json_t *r = json_object(), *cs = json_array();

	json_object_set_new(s->res, "r1_tracepoint", r);
	json_object_set_new(r, "configs", cs);
	for (size_t c = 0; c < ARRAY_SIZE(cfg); c++) {
		json_t *o = json_object(), *pts = json_array();

		json_object_set_new(o, "name", json_string(cfg[c].name));
		json_object_set_new(o, "kernel", json_string(cfg[c].kernel));
		json_object_set_new(o, "points", pts);
		for (size_t i = 0; i < nsizes; i++) {
			json_t *pt = fault_point(s, cfg[c].kernel, cfg[c].enabled, sizes[i], PATHS_64K,
						 "__hash_page_64K");
			json_array_append_new(pts, pt);
			if (json_object_get(pt, "not_measured") && !json_object_get(o, "not_measured"))
				not_measured(o, "%s", json_string_value(json_object_get(pt, "not_measured")));
		}
		json_object_set_new(o, "instructions_per_hash_fault",
				    json_real(slope(pts, "hash_faults", "instructions_k")));
		json_array_append_new(cs, o);
	}
}

/* One run of cmd on a 4 KiB-page kernel, with the path lengths reading 2
 * quotes: the hash fault (hash_page_mm, __hash_page_4K) and faultaround
 * (filemap_map_pages, and do_set_pte, which maps each page it finds) */
#define PATHS_R2 "hash_page_mm,__hash_page_4K,filemap_map_pages,do_set_pte"
static json_t *r2_point(struct ks *s, const char *kernel, const char *label, const char *const *cmd,
			long pages)
{
	static const char *const fns[] = { "hash_page_mm", "__hash_page_4K", "filemap_map_pages",
					   "do_set_pte" };
	json_t *pt = json_object(), *j, *paths = json_object();
	char what[200];

	snprintf(what, sizeof(what), "%s: %s", kernel, label);
	json_object_set_new(pt, "kernel", json_string(kernel));
	if (pages)
		json_object_set_new(pt, "pages", json_integer(pages));
	j = kstat(s, pt, what, kernel, "instructions:k,instructions:u", PATHS_R2, cmd);
	if (!j)
		return pt;
	json_object_set_new(pt, "command", json_integer((json_int_t)json_array_size(s->commands) - 1));
	json_object_set_new(pt, "instructions_k", json_real(stat_event(j, "instructions:k")));
	json_object_set_new(pt, "instructions_u", json_real(stat_event(j, "instructions:u")));
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		json_t *p = stat_path(j, fns[i]);
		json_object_set_new(paths, fns[i], json_pack("{s:o, s:o}", "calls", json_real(lace_json_get_num(p, "calls")),
							     "per_call", json_real(lace_json_get_num(p, "per_call"))));
	}
	json_object_set_new(pt, "paths", paths);
	/* every hash fault enters hash_page_mm once */
	json_object_set_new(pt, "hash_faults", json_real(lace_json_get_num(stat_path(j, "hash_page_mm"), "calls")));
	return pt;
}

/* 2: old vs young PTEs on the hash MMU.  On the 64 KiB-page kernel
 * faultaround is off (fault_around_bytes is one page), so its pair shows
 * the no-op; the 4 KiB-page pair runs a file-backed read (faultaround maps
 * 16 pages a fault there) and an exec-heavy shell loop (the seed's
 * regression was unixbench's shell8) */
static void reading2(struct ks *s, long n)
{
	json_t *r = json_object(), *w = json_object();
	static const char *const kernels[] = { "ppc64le-4k-baseline", "ppc64le-4k-old-ptes" };
	static const char *const ptes[] = { "young", "old" };
	char pages[32], loop[200];

	json_object_set_new(s->res, "r2_old_ptes", r);
	json_object_set_new(r, "young", fault_point(s, "ppc64le-baseline", false, n, PATHS_64K,
						    "__hash_page_64K"));
	json_object_set_new(r, "old", fault_point(s, "ppc64le-old-ptes", false, n, PATHS_64K,
						  "__hash_page_64K"));
	json_object_set_new(r, "workloads_4k", w);
	snprintf(pages, sizeof(pages), "%ld", R2_FILE_PAGES);
	snprintf(loop, sizeof(loop), "i=0; while [ $i -lt %d ]; do /lace/bin/true; i=$((i+1)); done",
		 R2_EXECS);
	json_t *file = json_object(), *shell = json_object();
	json_object_set_new(w, "file", file);
	json_object_set_new(w, "shell", shell);
	json_object_set_new(file, "workload", json_pack("[s,s,s,s,s,s]", "faultbench", "--real", "--file",
							"/tmp/faultbench.map", "--pages", pages));
	json_object_set_new(shell, "workload", json_pack("[s,s,s]", "/lace/bin/sh", "-c", loop));
	json_object_set_new(shell, "execs", json_integer(R2_EXECS));
	for (size_t i = 0; i < 2; i++) {
		json_object_set_new(file, ptes[i],
				    r2_point(s, kernels[i], "faultbench --real --file (file-backed reads)",
					     (const char *[]){ s->faultbench, "--real", "--file",
							       "/tmp/faultbench.map", "--pages", pages, NULL },
					     R2_FILE_PAGES));
		json_object_set_new(shell, ptes[i],
				    r2_point(s, kernels[i], "busybox sh loop of /lace/bin/true (exec-heavy)",
					     (const char *[]){ "/lace/bin/sh", "-c", loop, NULL }, 0));
	}
}

/* 3: the insert path per call, 4K and 64K pages */
static void reading3(struct ks *s, long n)
{
	json_t *r = json_object();

	json_object_set_new(s->res, "r3_insert_path", r);
	json_object_set_new(r, "reference_instructions", json_integer(196));
	json_object_set_new(r, "64k", fault_point(s, "ppc64le-baseline", false, n, PATHS_64K,
						  "__hash_page_64K"));
	json_object_set_new(r, "4k", fault_point(s, "ppc64le-4k-baseline", false, n, PATHS_4K,
						 "__hash_page_4K"));
	json_object_set_new(r, "64k_stock", fault_point(s, STOCK_PPC64LE, false, n, PATHS_64K,
							"__hash_page_64K"));
}

/* 4: x86 hackbench, baseline vs entry-in-text (and the alignment
 * variants) against the randomized relinks of baseline */
static void reading4(struct ks *s)
{
	static const char *const named[] = { "baseline", "entry-in-text", "entry-align-8",
					     "entry-align-4k" };
	const char *groups = s->o->quick ? "2" : "4", *loops = s->o->quick ? "10" : "20";
	json_t *r = json_object(), *ks = json_array();
	struct strvec names = STRVEC_INIT;

	json_object_set_new(s->res, "r4_entry_text", r);
	json_object_set_new(r, "workload", json_pack("[s,s,s,s,s,s,s]", "hackbench", "-g", groups,
						     "-f", "5", "-l", loops));
	json_object_set_new(r, "kernels", ks);
	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		strvec_pushf(&names, "x86_64-%s", named[i]);
	for (unsigned k = 1; k <= s->o->shuffle; k++)
		strvec_pushf(&names, "x86_64-baseline-shuffle-%u", k);
	for (size_t i = 0; i < names.nr; i++) {
		json_t *o = json_object(), *j, *ev = json_object();
		char what[160];

		snprintf(what, sizeof(what), "%s: hackbench -g %s -f 5 -l %s", names.v[i], groups, loops);
		json_object_set_new(o, "kernel", json_string(names.v[i]));
		json_object_set_new(o, "shuffle", json_boolean(strstr(names.v[i], "shuffle") != NULL));
		j = kstat(s, o, what, names.v[i], X86_EVENTS, NULL,
			  (const char *[]){ s->hackbench, "-g", groups, "-f", "5", "-l", loops, NULL });
		if (j) {
			char evs[] = X86_EVENTS;

			json_object_set_new(o, "command",
					    json_integer((json_int_t)json_array_size(s->commands) - 1));
			for (char *e = strtok(evs, ","); e; e = strtok(NULL, ","))
				json_object_set_new(ev, e, json_real(stat_event(j, e)));
		}
		json_object_set_new(o, "events", ev);
		json_array_append_new(ks, o);
	}
	strvec_clear(&names);

	/* what moved between the two builds, as lace diff says it */
	struct strvec argv = STRVEC_INIT;
	char a[PATH_MAX], b[PATH_MAX], why[512];

	kernel_path(s, a, sizeof(a), "x86_64-baseline", "vmlinux");
	kernel_path(s, b, sizeof(b), "x86_64-entry-in-text", "vmlinux");
	json_t *d = json_object();
	json_object_set_new(r, "diff", d);
	if (!fs_is_file(a) || !fs_is_file(b)) {
		not_measured(d, "x86_64 baseline or entry-in-text not built");
		return;
	}
	progress(s, "diff: x86_64 baseline -> entry-in-text");
	strvec_pushv(&argv, (const char *[]){ "diff", a, b, NULL });
	run_lace(s, "lace diff baseline entry-in-text", &argv, false, why, sizeof(why));
	json_object_set_new(d, "command", json_integer((json_int_t)json_array_size(s->commands) - 1));
	strvec_clear(&argv);
}

static void find_tools(struct ks *s)
{
	const char *bin = paths_exe_dir();

	snprintf(s->bin, sizeof(s->bin), "%s", bin ? bin : ".");
	snprintf(s->faultbench, sizeof(s->faultbench), "%.4000s/ppc64le/bench/faultbench", s->bin);
	snprintf(s->hackbench, sizeof(s->hackbench), "%.4000s/bench/hackbench", s->bin);
}

int kstudy_run(const struct kstudy_opts *o, json_t **results)
{
	struct ks s = { .o = o, .t0 = time_now_s() };
	long sizes_full[] = { 256, 512, 1024 }, sizes_quick[] = { 256, 512 };
	double t;

	s.res = json_object();
	s.commands = json_array();
	s.phases = json_object();
	*results = s.res;
	json_object_set_new(s.res, "schema", json_string("lace-study-kernel"));
	json_object_set_new(s.res, "schema_version", json_integer(1));
	json_object_set_new(s.res, "quick", json_boolean(o->quick));
	json_object_set_new(s.res, "shuffle", json_integer(o->shuffle));
	json_object_set_new(s.res, "phases", s.phases);
	find_tools(&s);
	if (!fs_is_file(s.faultbench))
		progress(&s, "note: %s missing (make builds it with powerpc64le-linux-gnu-gcc): "
			 "the ppc64le readings will say not measured", s.faultbench);
	if (!o->no_build) {
		t = time_now_s();
		step_build(&s);
		json_object_set_new(s.phases, "build", json_real(time_now_s() - t));
	}
	t = time_now_s();
	step_guests(&s);
	json_object_set_new(s.phases, "guests", json_real(time_now_s() - t));
	t = time_now_s();
	step_layout(&s);
	json_object_set_new(s.phases, "layout", json_real(time_now_s() - t));
	t = time_now_s();
	reading1(&s, o->quick ? sizes_quick : sizes_full, o->quick ? 2 : 3);
	json_object_set_new(s.phases, "r1_tracepoint", json_real(time_now_s() - t));
	t = time_now_s();
	reading2(&s, 512);
	json_object_set_new(s.phases, "r2_old_ptes", json_real(time_now_s() - t));
	t = time_now_s();
	reading3(&s, 512);
	json_object_set_new(s.phases, "r3_insert_path", json_real(time_now_s() - t));
	t = time_now_s();
	reading4(&s);
	json_object_set_new(s.phases, "r4_entry_text", json_real(time_now_s() - t));
	json_object_set_new(s.phases, "total", json_real(time_now_s() - s.t0));
	json_object_set_new(s.res, "commands", s.commands);
	return 0;
}
