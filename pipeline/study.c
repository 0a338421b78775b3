/* lace study: orchestration.  Each step runs one lace command (or a
 * workload) and stores what it printed in the results object; a step that
 * fails records why and the study goes on, so one broken piece never loses
 * the rest of the answers. */
#include "pipeline/study.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/selfexec.h"
#include "pipeline/study_analysis.h"
#include "pipeline/study_jobs.h"
#include "pipeline/study_r4.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/time.h"
#include "util/xalloc.h"
#include "util/json_schema.h"

/* The events of the icache/iTLB readings, in perf's spelling. */
static const char *const front_events[] = {
	"instructions", "L1-icache-loads", "L1-icache-load-misses", "iTLB-loads", "iTLB-load-misses",
};
#define NFRONT (ARRAY_SIZE(front_events))

struct study {
	const struct study_opts *o;
	json_t *res;
	char *variants_dir;
	const char *backend;   /* "hw" or "sim", decided once */
	json_t *variants;      /* names of the placement variants */
	json_t *shuffles;      /* names of the randomized baseline builds */
	struct study_jobs jobs;  /* measurements that may run side by side */
	struct study_jobs timed; /* task-clock: one at a time */
	double t0;
};

static char *path_join(const char *a, const char *b)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s", a, b);
	return strbuf_detach(&p, NULL);
}

/* Run `lace args...` and parse its JSON stdout.  On failure returns NULL
 * and sets *why (malloc'd one line). */
static json_t *lace_json(const char *const *argv, const char *const *env, char **why)
{
	struct strbuf w = STRBUF_INIT;
	json_t *j = selfexec_json(argv, env, 1, &w);

	*why = j ? NULL : strbuf_detach(&w, NULL);
	strbuf_release(&w);
	return j;
}

static void set_not_measured(json_t *o, const char *why)
{
	json_object_set_new(o, "not_measured", json_string(why ? why : "unknown reason"));
}

/* ---- backend ------------------------------------------------------------ */

/* auto: hardware when the CPU counts both L1-icache-load-misses and
 * iTLB-load-misses, else the simulator. */
/* The simulator counts each workload's measurement window only (the part
 * it times, lace stat --window), so start-up is in no number; the
 * hardware backend cannot honour the marks yet and counts whole runs. */
static void record_window(struct study *s, json_t *info)
{
	json_object_set_new(info, "window", json_boolean(!strcmp(s->backend, "sim")));
}

static void choose_backend(struct study *s)
{
	const char *want = s->o->backend ? s->o->backend : "auto";
	json_t *info = json_object();

	json_object_set_new(s->res, "backend", info);
	json_object_set_new(info, "requested", json_string(want));
	if (!strcmp(want, "hw") || !strcmp(want, "sim")) {
		s->backend = !strcmp(want, "hw") ? "hw" : "sim";
		json_object_set_new(info, "used", json_string(s->backend));
		json_object_set_new(info, "why", json_string("requested"));
		record_window(s, info);
		return;
	}
	const char *argv[] = { "stat", "--backend", "hw", "--json", "--output=null", "--no-results", "-e",
			       "L1-icache-load-misses,iTLB-load-misses", "--", "true", NULL };
	char *why = NULL;
	json_t *j = lace_json(argv, NULL, &why);
	bool hw = j != NULL;
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(j, "events"), i, ev) {
		const char *st = json_string_value(json_object_get(ev, "status"));
		if (!st || strcmp(st, "counted"))
			hw = false;
	}
	json_decref(j);
	free(why);
	s->backend = hw ? "hw" : "sim";
	json_object_set_new(info, "used", json_string(s->backend));
	json_object_set_new(info, "why", json_string(hw ? "this CPU counts L1-icache and iTLB events"
		: "this CPU has no L1-icache/iTLB counters (perf_event_open: not supported); "
		  "the numbers are simulated by lace-vg"));
	record_window(s, info);
}

/* ---- build ------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* List OUT/variants/<name>/ holding a hackbench; shuffles are the names
 * lace build gives randomized builds ("<variant>-shuffle-<i>"). */
static void scan_variants(struct study *s)
{
	DIR *d = opendir(s->variants_dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;

	s->variants = json_array();
	s->shuffles = json_array();
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = path_join(s->variants_dir, de->d_name);
		char *hb = path_join(p, "hackbench");
		if (access(hb, X_OK) == 0) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
		free(hb);
		free(p);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	/* baseline first, then the placement variants, then the shuffles */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], "baseline"))
			json_array_append_new(s->variants, json_string(names[i]));
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(names[i], "baseline"))
			continue;
		json_array_append_new(strstr(names[i], "shuffle") ? s->shuffles : s->variants,
				      json_string(names[i]));
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool has_variant(struct study *s, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(s->variants, i, v)
		if (!strcmp(json_string_value(v), name))
			return true;
	return false;
}

static int step_build(struct study *s)
{
	json_t *b = json_object();
	char shuffle[16], seed[32];
	double t = time_now_s();

	json_object_set_new(s->res, "build", b);
	snprintf(shuffle, sizeof(shuffle), "%u", s->o->shuffle);
	snprintf(seed, sizeof(seed), "%lu", s->o->seed);
	if (!s->o->keep_variants || access(s->variants_dir, F_OK) != 0) {
		study_progress_notef(s->o->progress, s->o->progress_data, s->t0,
				     "build", "building every variant and %u randomized baseline builds",
				     s->o->shuffle);
		/* the workloads only: hashmmu-driver is never measured here */
		const char *argv[] = { "build", "--all", "--shuffle", shuffle, "--seed", seed, "--out",
				       s->variants_dir, "--program", "hackbench,faultbench,randaccess",
				       NULL };
		struct selfexec_result r;
		int rc = selfexec_run(argv, NULL, false, &r);
		if (rc < 0 || r.exit_code != 0) {
			lace_error_set(EIO, "lace build failed: %s",
				       rc < 0 ? lace_error_msg() : selfexec_why(&r));
			selfexec_result_release(&r);
			set_not_measured(b, lace_error_msg());
			return -EIO;
		}
		selfexec_result_release(&r);
	}
	json_object_set_new(b, "seconds", json_real(time_now_s() - t));
	json_object_set_new(b, "shuffle_seed", json_integer((json_int_t)s->o->seed));
	scan_variants(s);
	json_object_set(b, "variants", s->variants);
	json_object_set(b, "shuffles", s->shuffles);
	if (!has_variant(s, "baseline"))
		return lace_error_set(ENOENT, "no baseline variant in %s", s->variants_dir);
	/* keep each manifest (script, flags, compiler, sha256) with the results */
	json_t *mans = json_object();
	size_t i;
	json_t *v;
	json_t *all = json_array();
	json_array_extend(all, s->variants);
	json_array_extend(all, s->shuffles);
	json_array_foreach(all, i, v) {
		char *dir = path_join(s->variants_dir, json_string_value(v));
		char *mf = path_join(dir, "manifest.json");
		json_t *m = json_load_file(mf, 0, NULL);
		if (m)
			json_object_set_new(mans, json_string_value(v), m);
		free(mf);
		free(dir);
	}
	json_decref(all);
	json_object_set_new(b, "manifests", mans);
	return 0;
}

static char *variant_bin(struct study *s, const char *variant, const char *prog)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s/%s", s->variants_dir, variant, prog);
	return strbuf_detach(&p, NULL);
}

/* ---- layout ------------------------------------------------------------ */

static void step_layout(struct study *s)
{
	json_t *lay = json_object();
	char *base = variant_bin(s, "baseline", "hackbench");
	size_t i;
	json_t *v;

	json_object_set_new(s->res, "layout", lay);
	/* the placement variants only: a randomized build's diff is a
	 * permutation of everything, which the report never shows */
	json_t *all = json_array();
	json_array_extend(all, s->variants);
	json_array_foreach(all, i, v) {
		const char *name = json_string_value(v);
		if (!strcmp(name, "baseline"))
			continue;
		study_progress_notef(s->o->progress, s->o->progress_data, s->t0,
				     "diff", "lace diff baseline %s", name);
		char *head = variant_bin(s, name, "hackbench");
		struct strbuf svg = STRBUF_INIT;
		strbuf_addf(&svg, "%s/map-%s.svg", s->o->out_dir, name);
		const char *argv[] = { "diff", "--json", "--fail-on", "never", "--svg", svg.buf, base,
				       head, NULL };
		char *why;
		json_t *d = lace_json(argv, NULL, &why);
		json_t *e = json_object();
		if (!d) {
			set_not_measured(e, why);
		} else {
			/* keep what the report shows; the full diff is one command away */
			json_object_set(e, "bloat", json_object_get(d, "bloat"));
			json_object_set(e, "summary", json_object_get(d, "summary"));
			json_object_set(e, "regions", json_object_get(d, "regions"));
			json_object_set(e, "hot", json_object_get(d, "hot"));
			json_object_set(e, "findings", json_object_get(d, "findings"));
			json_object_set(e, "cross_region_branches",
					json_object_get(d, "cross_region_branches"));
			json_object_set(e, "max_severity", json_object_get(d, "max_severity"));
			const char *slash = strrchr(svg.buf, '/');
			json_object_set_new(e, "svg", json_string(slash ? slash + 1 : svg.buf));
		}
		json_object_set_new(lay, name, e);
		json_decref(d);
		free(why);
		strbuf_release(&svg);
		free(head);
	}
	json_decref(all);
	free(base);
}

/* ---- measuring primitives ---------------------------------------------- */

/* Run a workload natively and parse its `lace-counts:` line. */
static json_t *workload_counts(const char *const *cmd, const char *const *env, char **why)
{
	struct selfexec_result r;
	json_t *o = NULL;

	*why = NULL;
	if (selfexec_run_prog(cmd, env, false, &r) < 0) {
		*why = xstrdup(lace_error_msg());
		return NULL;
	}
	char *line = strstr(r.out.buf, "lace-counts:");
	if (r.exit_code != 0 || !line) {
		struct strbuf w = STRBUF_INIT;
		selfexec_explain(&r, cmd[0], &w);
		*why = strbuf_detach(&w, NULL);
		selfexec_result_release(&r);
		return NULL;
	}
	o = json_object();
	char *end = strchr(line, '\n');
	if (end)
		*end = '\0';
	for (char *tok = strtok(line + strlen("lace-counts:"), " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		char *endp;
		double v = strtod(eq + 1, &endp);
		json_object_set_new(o, tok, *endp || endp == eq + 1 ? json_string(eq + 1) : json_real(v));
	}
	selfexec_result_release(&r);
	return o;
}

static const char *events_list(void)
{
	static char buf[256];
	if (!buf[0]) {
		for (size_t i = 0; i < NFRONT; i++) {
			strcat(buf, front_events[i]);
			if (i + 1 < NFRONT)
				strcat(buf, ",");
		}
	}
	return buf;
}

/* bin, then the words of "a b c": the workload's argv, however long */
static void split_args(struct strvec *cmd, const char *bin, const char *args)
{
	strvec_push(cmd, bin);
	strvec_split(cmd, args);
}

/* Measure one workload on a list of (label, variant, env) configurations
 * plus, with_floor, every shuffle build: each measurement is queued (run
 * later as a pool, the same lace stat command line for all of them) into
 * the rows of the returned workload object. */
struct config {
	const char *label, *variant;
	const char *env; /* one "K=V" or NULL */
	const char *extra_args; /* appended to the workload args, or NULL */
};

static int stat_repeat(const struct study *s)
{
	/* simulated counts are exact: one run; hardware counts: a mean of 5 */
	return s->backend[0] == 's' ? 1 : 5;
}

/* Queue the front-end events (and task-clock, time_runs > 0) of prog args
 * on variant into dest; with_counts also runs it natively for its
 * lace-counts line. */
static void queue_one(struct study *s, json_t *dest, const char *variant, const char *prog,
		      const char *args, const char *env, bool with_counts, int time_runs)
{
	char *bin = variant_bin(s, variant, prog);
	struct strvec cmd = STRVEC_INIT;
	const char *envv[] = { env, NULL };
	struct strbuf what = STRBUF_INIT;
	char *why = NULL;

	split_args(&cmd, bin, args);
	strbuf_addf(&what, "%s %s on %s%s%s (%s)", prog, args, variant, env ? " " : "", env ? env : "",
		    s->backend);
	study_jobs_add_stat(&s->jobs, dest, "events", NULL, s->backend, events_list(), stat_repeat(s),
			    cmd.v, env, what.buf);
	if (time_runs > 0)
		study_jobs_add_stat(&s->timed, dest, "task_clock", "task-clock", "hw", "task-clock",
				    time_runs, cmd.v, env, what.buf);
	if (with_counts) {
		json_t *k = workload_counts(cmd.v, envv, &why);
		if (k)
			json_object_set_new(dest, "counts", k);
		free(why);
	}
	strbuf_release(&what);
	strvec_clear(&cmd);
	free(bin);
}

static json_t *measure_configs(struct study *s, const char *prog, const char *args,
			       const struct config *cfg, size_t ncfg, bool with_floor,
			       bool with_counts, int time_runs)
{
	json_t *w = json_object(), *rows = json_array();
	json_object_set_new(w, "workload", json_sprintf("%s %s", prog, args));
	json_object_set_new(w, "rows", rows);

	for (size_t c = 0; c < ncfg; c++) {
		json_t *row = json_object();
		json_object_set_new(row, "config", json_string(cfg[c].label));
		json_object_set_new(row, "variant", json_string(cfg[c].variant));
		if (cfg[c].env)
			json_object_set_new(row, "env", json_string(cfg[c].env));
		json_array_append_new(rows, row);
		if (!has_variant(s, cfg[c].variant)) {
			set_not_measured(row, "variant not built");
			continue;
		}
		struct strbuf a = STRBUF_INIT;
		strbuf_addstr(&a, args);
		if (cfg[c].extra_args)
			strbuf_addf(&a, " %s", cfg[c].extra_args);
		queue_one(s, row, cfg[c].variant, prog, a.buf, cfg[c].env, with_counts, time_runs);
		strbuf_release(&a);
	}

	if (with_floor && json_array_size(s->shuffles)) {
		/* the same workload, the same way, on every randomized build */
		json_t *per = json_object();
		size_t i;
		json_t *v;
		json_object_set_new(w, "shuffle_builds", per);
		json_array_foreach(s->shuffles, i, v) {
			json_t *o = json_object();
			json_object_set_new(per, json_string_value(v), o);
			queue_one(s, o, json_string_value(v), prog, args, NULL, false, 0);
		}
	}
	return w;
}

/* ---- the four readings ------------------------------------------------- */

/* A workload of reading 1: its arguments at the size the tables show,
 * the option that sets its size and the smaller sizes that, with it, give
 * the marginal cost as a slope (so start-up is its intercept). */
struct q1_workload {
	const char *prog, *args, *size_opt;
	const char *sizes[4]; /* NULL-ended */
};

struct sizes {
	struct q1_workload faultbench, randaccess;
	const char *hackbench;
	int time_runs;
	/* reading 4: recorded executions, draw pairs each, the family's draws */
	unsigned executions, draws, family_draws;
};

static void workload_args(struct strbuf *sb, const struct q1_workload *q, const char *size)
{
	if (*q->args)
		strbuf_addf(sb, "%s ", q->args);
	strbuf_addf(sb, "%s %s", q->size_opt, size);
}

/* no tracepoint and disabled at each smaller size: the points of the fit */
static void q1_slope(struct study *s, json_t *w, const struct q1_workload *q)
{
	json_t *pts = json_array();
	json_object_set_new(w, "slope_points", pts);
	json_object_set_new(w, "size_option", json_string(q->size_opt));
	for (size_t i = 0; i < 4 && q->sizes[i]; i++) {
		json_t *p = json_object(), *a = json_object(), *b = json_object();
		json_object_set_new(p, "size", json_string(q->sizes[i]));
		json_object_set_new(p, "no tracepoint", a);
		json_object_set_new(p, "disabled", b);
		json_array_append_new(pts, p);
		struct strbuf args = STRBUF_INIT;
		workload_args(&args, q, q->sizes[i]);
		if (has_variant(s, "no-tracepoint"))
			queue_one(s, a, "no-tracepoint", q->prog, args.buf, NULL, true, 0);
		queue_one(s, b, "baseline", q->prog, args.buf, NULL, true, 0);
		strbuf_release(&args);
	}
}

static void q1_tracepoint(struct study *s, const struct sizes *z)
{
	const struct config cfg[] = {
		{ "no tracepoint", "no-tracepoint", NULL, NULL },
		{ "disabled", "baseline", NULL, NULL },
		{ "enabled", "baseline", "LACE_TRACE=hash_fault", NULL },
	};
	json_t *q = json_object(), *ws = json_array();
	json_object_set_new(s->res, "q1_tracepoint", q);
	json_object_set_new(q, "workloads", ws);
	const struct q1_workload *qw[] = { &z->faultbench, &z->randaccess };
	for (size_t i = 0; i < 2; i++) {
		struct strbuf args = STRBUF_INIT;
		workload_args(&args, qw[i], qw[i]->sizes[0]);
		json_t *w = measure_configs(s, qw[i]->prog, args.buf, cfg, 3, true, true, z->time_runs);
		struct q1_workload rest = *qw[i];
		memmove(rest.sizes, rest.sizes + 1, sizeof(rest.sizes) - sizeof(rest.sizes[0]));
		rest.sizes[3] = NULL;
		q1_slope(s, w, &rest);
		json_array_append_new(ws, w);
		strbuf_release(&args);
	}
}

static void q2_old_ptes(struct study *s, const struct sizes *z)
{
	const struct config cfg[] = {
		{ "young PTEs", "baseline", NULL, "--young" },
		{ "old PTEs", "baseline", NULL, "--old" },
	};
	json_t *q = json_object(), *ws = json_array();
	json_object_set_new(s->res, "q2_old_ptes", q);
	json_object_set_new(q, "workloads", ws);
	const struct q1_workload *qw[] = { &z->faultbench, &z->randaccess };
	for (size_t i = 0; i < 2; i++) {
		struct strbuf args = STRBUF_INIT;
		workload_args(&args, qw[i], qw[i]->sizes[0]);
		json_array_append_new(ws, measure_configs(s, qw[i]->prog, args.buf, cfg, 2, false, true,
							  z->time_runs));
		strbuf_release(&args);
	}
}

/* Instructions per call of the insert paths, from the simulator's
 * per-function attribution (lace stat --backend sim --per-function). */
static void q3_path_length(struct study *s, const struct sizes *z)
{
	/* the functions shown one by one */
	static const char *const fns[] = { "hashmmu_do_page_fault", "hash_page_mm", "hash_preload",
					   "update_mmu_cache", "__hash_page_4K", "__hash_page_64K",
					   "hpte_insert" };
	json_t *q = json_object(), *rows = json_array();
	json_object_set_new(s->res, "q3_path_length", q);
	json_object_set_new(q, "rows", rows);
	const char *sizes[] = { "4k", "64k" };

	for (size_t k = 0; k < 2; k++) {
		json_t *row = json_object();
		json_object_set_new(row, "page_size", json_string(sizes[k]));
		json_array_append_new(rows, row);
		char *bin = variant_bin(s, "baseline", "faultbench");
		struct strbuf res = STRBUF_INIT, a = STRBUF_INIT;
		strbuf_addf(&res, "%s/pathlen-%s.jsonl", s->o->out_dir, sizes[k]);
		workload_args(&a, &z->faultbench, z->faultbench.sizes[0]);
		strbuf_addf(&a, " --page-size %s", sizes[k]);
		struct strvec argv = STRVEC_INIT;
		strvec_pushv(&argv, (const char *[]){ "stat", "--backend", "sim", "--virtual-clock",
						      "--per-function", "--top", "100000", "-e",
						      "instructions", "--results",
						      res.buf, "--json", "--output=null", "--", NULL });
		split_args(&argv, bin, a.buf);
		unlink(res.buf);
		study_progress_notef(s->o->progress, s->o->progress_data, s->t0,
				     "path length", "faultbench %s pages, per function (sim)",
				     sizes[k]);
		char *why = NULL;
		json_t *j = lace_json(argv.v, NULL, &why);
		json_decref(j);
		/* the per-function table is in the results file's run line */
		json_t *fnsj = NULL;
		FILE *f = j ? fopen(res.buf, "r") : NULL;
		char *line = NULL;
		size_t cap = 0;
		while (f && getline(&line, &cap, f) > 0) {
			json_t *o = json_loads(line, 0, NULL);
			json_t *t = json_object_get(json_object_get(o, "backend_data"), "functions");
			if (t) {
				json_decref(fnsj);
				fnsj = json_incref(t);
			}
			json_decref(o);
		}
		free(line);
		if (f)
			fclose(f);
		if (!fnsj) {
			set_not_measured(row, why ? why : "the simulator gave no per-function table");
		} else {
			json_t *out = json_object();
			size_t i;
			json_t *fn;
			json_array_foreach(fnsj, i, fn) {
				const char *name = json_string_value(json_object_get(fn, "name"));
				for (size_t t = 0; name && t < ARRAY_SIZE(fns); t++)
					if (!strcmp(name, fns[t]))
						json_object_set(out, name, fn);
			}
			json_object_set_new(row, "functions", out);
			json_decref(fnsj);
		}
		free(why);
		strvec_clear(&argv);
		free(bin);
		strbuf_release(&a);
		strbuf_release(&res);
	}
}

/* Entry text moved out / slow paths cold: the placement design
 * (study_r4.h), on the variants that move code (no-tracepoint removes it:
 * reading 1's) */
static void q4_placement(struct study *s, const struct sizes *z)
{
	json_t *vs = json_array();
	size_t i;
	json_t *v;

	json_array_foreach(s->variants, i, v)
		if (strcmp(json_string_value(v), "baseline") && strcmp(json_string_value(v), "no-tracepoint"))
			json_array_append(vs, v);
	study_r4_queue(&s->jobs, s->res, &(struct study_r4_spec){
		.variants_dir = s->variants_dir, .runs_dir = s->jobs.dir, .variants = vs,
		.shuffles = s->shuffles, .args = z->hackbench, .events = events_list(),
		.executions = z->executions, .draws = z->draws, .family_draws = z->family_draws });
	json_decref(vs);
}

int study_run(const struct study_opts *o, json_t **results)
{
	struct study s = { .o = o, .t0 = time_now_s() };
	int rc;

	s.res = json_schema_object("lace-study");
	*results = s.res;
	if ((rc = fs_mkdir_p(o->out_dir, 0755)) < 0)
		return rc;
	s.variants_dir = path_join(o->out_dir, "variants");
	json_object_set_new(s.res, "lace_version", json_string(LACE_VERSION));
	json_object_set_new(s.res, "started", json_integer((json_int_t)time(NULL)));
	json_object_set_new(s.res, "quick", json_boolean(o->quick));
	choose_backend(&s);

	rc = step_build(&s);
	if (rc < 0) {
		free(s.variants_dir);
		json_decref(s.variants);
		json_decref(s.shuffles);
		return rc;
	}
	step_layout(&s);

	/* Sizes keep the default run within 5 minutes on 2 cores under the
	 * simulator (hackbench in thread mode: forked processes each pay the
	 * simulator's start-up); --quick within 1. */
	/* randaccess: 4K hashed pages of 64K Linux pages over more pages than
	 * the smallest table holds, so hash faults (sub-pages, evictions) far
	 * exceed Linux faults, the regime the review measured */
	struct sizes z = o->quick
		? (struct sizes){ { "faultbench", "", "-n", { "2048", "1", "512", "1024" } },
				  { "randaccess", "--page-size 4k --htab-kib 256 -n 32768", "-a",
				    { "20000", "5000", "10000", NULL } },
				  "-g 1 -f 2 -l 10", 0, 4, 8, 200 }
		: (struct sizes){ { "faultbench", "", "-n", { "16384", "1", "2048", "8192" } },
				  { "randaccess", "--page-size 4k --htab-kib 256 -n 65536", "-a",
				    { "100000", "20000", "50000", NULL } },
				  "-g 1 -f 4 -l 20", 5, 8, 16, 1000 };
	char jobdir_buf[4096];
	snprintf(jobdir_buf, sizeof(jobdir_buf), "%s/runs", o->out_dir);
	fs_mkdir_p(jobdir_buf, 0755);
	study_jobs_init(&s.jobs, jobdir_buf);
	study_jobs_init(&s.timed, jobdir_buf);
	q1_tracepoint(&s, &z);
	q2_old_ptes(&s, &z);
	q4_placement(&s, &z);
	/* simulated counts do not depend on what runs beside them: -j at
	 * once; hardware counts and times one at a time */
	int max = s.backend[0] == 's' && o->jobs > 1 ? o->jobs : 1;
	study_jobs_run(&s.jobs, max, s.t0, o->progress, o->progress_data);
	study_jobs_run(&s.timed, 1, s.t0, o->progress, o->progress_data);
	study_jobs_release(&s.jobs);
	study_jobs_release(&s.timed);
	q3_path_length(&s, &z);
	study_analyse(s.res);

	json_object_set_new(s.res, "seconds", json_real(time_now_s() - s.t0));
	free(s.variants_dir);
	json_decref(s.variants);
	json_decref(s.shuffles);
	return 0;
}
