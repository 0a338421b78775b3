/* lace study: the built-in case study end to end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/progress.h"
#include "measure/backend.h"
#include "pipeline/kstudy/kstudy.h"
#include "pipeline/study.h"
#include "pipeline/study_analysis.h"
#include "util/error.h"
#include "util/parse_options.h"
#include "util/strvec.h"
#include "util/sysinfo.h"
#include "variants/config.h"

static struct study_opts o;
static long shuffle, jobs, executions, draws, family_draws;
static bool report_only, shuffle_seen, kernel, quiet, jobs_seen;
static const char *kernels_dir, *plan_dir, *merge_dir;

static int backend_cb(const struct lace_option *opt, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "hw") && strcmp(arg, "sim"))
		return lace_error_set(EINVAL, "--backend wants auto, hw or sim, not '%s'", arg);
	o.backend = arg;
	return 0;
}

static const struct lace_option study_options[] = {
	OPT_CALLBACK(0, "backend", NULL, "B", "auto (default): hardware counters when the CPU counts\n"
		     "L1-icache and iTLB events, else the simulator; hw; sim", backend_cb,
		     .choices = "auto hw sim"),
	OPT_BOOLEAN(0, "quick", &o.quick, "smaller workloads, 4 randomized builds, reading 4\n"
		    "on 4 executions x 8 draws (about a minute)"),
	OPT_STRING(0, "out", &o.out_dir, "DIR", "output folder (default build/study)"),
	OPT_INTEGER(0, "shuffle", &shuffle, 0, 100, "K", "randomized builds of baseline: reading 1's noise\n"
		    "floor, a check of reading 4's family (default 19; --quick: 4)",
		    .seen = &shuffle_seen),
	OPT_ULONG(0, "seed", &o.seed, "S", "seed of the randomized builds (default 1)"),
	OPT_BOOLEAN(0, "no-build", &o.keep_variants, "reuse DIR/variants when it exists"),
	OPT_BOOLEAN(0, "report-only", &report_only, "re-render the reports from DIR/results.json"),
	OPT_BOOLEAN(0, "kernel", &kernel, "the study on real Linux kernels: lace build --kernel,\n"
		    "booted under QEMU (--backend qemu); DIR default\n"
		    "build/study-kernel; relinks replayed, not booted:\n"
		    "--shuffle default 19, --quick 3"),
	OPT_INTEGER(0, "executions", &executions, 2, 1000, "E", "with --kernel: reading 4's recorded boots\n"
		    "(default 8, --quick 4)"),
	OPT_INTEGER(0, "draws", &draws, 2, 10000, "K", "with --kernel: reading 4's virtual layout pairs\n"
		    "per execution on the first profile (default 64,\n"
		    "--quick 4; the rest: at most 8)"),
	OPT_INTEGER(0, "family-draws", &family_draws, 10, 1000000, "N", "with --kernel: the draws baseline and\n"
		    "the relinks rank among (default 1000 of the relink\n"
		    "family, 500 of the function family, --quick 200)"),
	OPT_STRING(0, "kernels", &kernels_dir, "DIR", "with --kernel: where the kernels are built\n"
		   "(default build/kernels)"),
	OPT_INTEGER('j', "jobs", &jobs, 1, 1024, "N", "measurements at once (default: the number of\n"
		    "CPUs, with --kernel as far as memory allows; each boot\n"
		    "or simulator run is one host thread, and the counts\n"
		    "do not depend on N)", .seen = &jobs_seen),
	OPT_STRING(0, "plan", &plan_dir, "DIR", "with --kernel: write every build, boot and read as\n"
		   "a job into DIR and run none (doc/scale.md: GNU\n"
		   "parallel, Slurm)"),
	OPT_STRING(0, "merge", &merge_dir, "DIR", "with --kernel: the report from the finished jobs\n"
		   "of a --plan DIR (into DIR, or --out)"),
	OPT_BOOLEAN('q', "quiet", &quiet, "no progress lines on stderr"),
	OPT_END(),
};

/* Steps that recorded "not_measured": the report says why for each. */
static size_t count_not_measured(const json_t *j)
{
	size_t n = 0, i;
	const char *k;
	json_t *v;

	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v)
			n += !strcmp(k, "not_measured") ? 1 : count_not_measured(v);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			n += count_not_measured(v);
	}
	return n;
}

/* --report-only: DIR/results.json; NULL after saying why */
static json_t *load_results(const char *dir)
{
	char path[4096];
	json_error_t je;
	json_t *res;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	res = json_load_file(path, 0, &je);
	if (!res)
		lace_err(path, "%s", je.text);
	return res;
}

/* The end of both studies: the summary, where the reports are, and exit
 * 1 when a step could not be measured, naming what kept the others from
 * it (the kernel study's failed builds and guest fetches) when there is
 * such a cause.  Takes res. */
static int finish(json_t *res, const char *dir, void (*summary)(const json_t *, FILE *), bool kernel_study)
{
	struct strvec causes = STRVEC_INIT;
	size_t missing;
	int rc = 0;

	summary(res, stdout);
	printf("\nreport: %s/report.md, %s/report.html, %s/results.json\n", dir, dir, dir);
	missing = count_not_measured(res);
	if (kernel_study)
		kstudy_problems(res, &causes);
	if (missing) {
		if (causes.nr)
			lace_err("study", "%zu step%s could not be measured: %s%s (see the report)", missing,
				 missing == 1 ? "" : "s", causes.v[0],
				 causes.nr > 1 ? ", and more" : "");
		else
			lace_err("study", "%zu step%s could not be measured (see the report)", missing,
				 missing == 1 ? "" : "s");
		rc = LACE_EXIT_FAIL;
	}
	strvec_clear(&causes);
	json_decref(res);
	return rc;
}

/* lace study --kernel: its own steps and report (pipeline/kstudy/kstudy.c) */
static int study_kernel(void)
{
	bool out_given = strcmp(o.out_dir, "build/study");
	struct kstudy_opts ko = {
		.out_dir = out_given ? o.out_dir : merge_dir ? merge_dir : "build/study-kernel",
		.kernels = kernels_dir ? kernels_dir : "build/kernels",
		/* the relinks are replayed, not booted: 19 cost their links
		 * (~7 s each) and a replay, and allow a one-sided 5% */
		.shuffle = shuffle_seen ? (unsigned)shuffle : o.quick ? 3 : 19,
		.executions = (unsigned)executions, .draws = (unsigned)draws,
		.family_draws = (unsigned)family_draws,
		.quick = o.quick, .no_build = o.keep_variants, .progress = o.progress,
		.progress_data = o.progress_data, .jobs = o.jobs,
	};
	json_t *res = NULL;
	char *src = NULL, jobdir[4096];

	/* for the guest fetch scripts; without them the readings say why */
	if (!report_only && !merge_dir && !variants_find_srcdir(&src))
		ko.src = src;
	if (plan_dir) {
		size_t n = 0;

		ko.plan_dir = plan_dir;
		int rc = kstudy_plan(&ko, &n);
		free(src);
		if (rc < 0) {
			lace_err("study", "%s", lace_error_msg());
			return LACE_EXIT_FAIL;
		}
		printf("%zu jobs in %s: run them in stage order (doc/scale.md), then\n"
		       "lace study --kernel --merge %s\n", n, plan_dir, plan_dir);
		return 0;
	}
	if (report_only) {
		if (!(res = load_results(ko.out_dir)))
			return LACE_EXIT_USAGE;
		kstudy_analyse(res);
	} else if (merge_dir) {
		ko.plan_dir = merge_dir;
		if (kstudy_merge(&ko, &res) < 0) {
			lace_err("study", "%s", lace_error_msg());
			return LACE_EXIT_USAGE;
		}
	} else {
		/* the local run is a plan too, run by lace's pool */
		snprintf(jobdir, sizeof(jobdir), "%s/jobs", ko.out_dir);
		ko.plan_dir = jobdir;
		if (kstudy_run(&ko, &res) < 0)
			lace_err("study", "%s", lace_error_msg());
		cli_progress_end();
	}
	if (kstudy_write_reports(res, ko.out_dir) < 0) {
		lace_err("study", "%s", lace_error_msg());
		json_decref(res);
		free(src);
		return LACE_EXIT_FAIL;
	}
	free(src);
	return finish(res, ko.out_dir, kstudy_print_summary, true);
}

static int cmd_study(int argc, char **argv)
{
	o = (struct study_opts){ .out_dir = "build/study", .backend = "auto", .seed = 1 };
	report_only = shuffle_seen = kernel = quiet = jobs_seen = false;
	executions = draws = family_draws = 0;
	kernels_dir = plan_dir = merge_dir = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	jobs = cpus > 0 ? cpus : 1;
	int first = lace_parse_options("study", argc, argv, study_options, 0);
	if (first < 0)
		return LACE_EXIT_USAGE;
	if (first < argc)
		return lace_usage_error("study", "unexpected argument '%s'", argv[first]);
	if ((plan_dir || merge_dir) && !kernel)
		return lace_usage_error("study", "--plan and --merge go with --kernel");
	if (!!plan_dir + !!merge_dir + report_only > 1)
		return lace_usage_error("study", "--plan, --merge and --report-only exclude each other");
	/* each job of the kernel study boots at most one guest: by default
	 * no more at once than fit in the memory available */
	long mib = sysinfo_mem_available_mib(), fit = mib / (long)qemu_run_mib(-1);
	if (kernel && !jobs_seen && mib > 0 && jobs > fit)
		jobs = fit > 1 ? fit : 1;
	o.jobs = (int)jobs;
	if (!quiet) {
		o.progress = cli_progress;
		o.progress_data = "study";
	}
	o.shuffle = shuffle_seen ? (unsigned)shuffle : o.quick ? 4 : 19;
	if (kernel)
		return study_kernel();
	if (kernels_dir)
		return lace_usage_error("study", "--kernels goes with --kernel");

	json_t *res = NULL;
	if (report_only) {
		if (!(res = load_results(o.out_dir)))
			return LACE_EXIT_USAGE;
		/* floors, slopes and ranks are a function of the measured rows:
		 * recompute them, so a re-render follows the current analysis */
		study_analyse(res);
	} else if (study_run(&o, &res) < 0) {
		cli_progress_end();
		lace_err("study", "%s", lace_error_msg());
		/* keep whatever was measured */
		if (res)
			study_write_reports(res, o.out_dir);
		json_decref(res);
		return LACE_EXIT_USAGE;
	}
	cli_progress_end();
	if (study_write_reports(res, o.out_dir) < 0) {
		lace_err("study", "%s", lace_error_msg());
		json_decref(res);
		return LACE_EXIT_USAGE;
	}
	return finish(res, o.out_dir, study_print_summary, false);
}

LACE_COMMAND(study, .name = "study", .summary = "the built-in case study end to end: build, diff, measure, report",
	     .usage = "usage: lace study [--backend auto|hw|sim] [--quick] [--out DIR] [--shuffle K]\n"
		      "                  [--seed S] [--no-build] [--report-only]\n"
		      "       lace study --kernel [--quick] [--out DIR] [--kernels DIR] [--shuffle K]\n"
		      "                  [--no-build] [--report-only] [-j N]\n"
		      "       lace study --kernel [options] --plan DIR | --merge DIR\n"
		      "\n"
		      "Builds every placement variant of the built-in study code (lace build --all)\n"
		      "and K randomized-layout builds of baseline, diffs each against baseline, measures\n"
		      "the workloads on each, and makes four readings with numbers and figures:\n"
		      "  1. the cost of a disabled tracepoint in the hash-fault path, against the\n"
		      "     layout noise floor of the randomized builds;\n"
		      "  2. PTEs created old vs young;\n"
		      "  3. instructions per call of the 4K and 64K insert paths;\n"
		      "  4. entry text moved out and slow paths pushed cold: recorded executions\n"
		      "     of baseline's hackbench replayed through paired virtual layouts of\n"
		      "     baseline and each variant (the placement design: effect, 95% CI,\n"
		      "     verdict, A vs A first), next to the lace diff findings.\n"
		      "Writes DIR/report.md, DIR/report.html (self-contained, SVG figures) and\n"
		      "DIR/results.json, and prints a summary.\n"
		      "\n",
	     .options = study_options,
	     .usage_tail = "\n"
			   "Exit status: 0, 1 when a step could not be measured, 2 on usage errors or\n"
			   "when nothing could be built.\n",
	     .run = cmd_study, .order = 70);
