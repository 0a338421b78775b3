/* lace study --kernel: the study's four readings made on real Linux
 * kernels.
 *
 * Builds the kernels (lace build --kernel: x86_64 baseline, entry-in-text,
 * the alignment variants and K randomized relinks of baseline; ppc64le
 * baseline, no-tracepoint, cold-slowpaths, old-ptes; ppc64le-4k baseline),
 * reads where the code landed (lace layout, lace diff), boots each kernel
 * under QEMU with lace's TCG plugin (lace stat --backend qemu) running
 * lace's own workloads (faultbench --real, cross-built for ppc64le;
 * hackbench on x86-64), and writes report.md, report.html and results.json
 * into the output folder.  Every number of the report comes from a command
 * run in this study; results.json keeps each command line with its whole
 * output.  Debian's stock ppc64le kernel answers the parts that need no
 * rebuild (disabled vs enabled, path lengths). */
#ifndef LACE_PIPELINE_KSTUDY_H
#define LACE_PIPELINE_KSTUDY_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "pipeline/progress.h"
#include "util/strvec.h"

struct kstudy_opts {
	const char *out_dir;    /* build/study-kernel */
	const char *kernels;    /* where lace build --kernel puts them: build/kernels */
	unsigned shuffle;       /* randomized relinks of x86_64 baseline */
	unsigned executions;    /* reading 4's recorded boots (0: 8, --quick 4) */
	unsigned draws;         /* its layout pairs per execution on the first
				 * profile (0: 64, --quick 4; else at most 8) */
	unsigned family_draws;  /* the draws baseline and the relinks rank among
				 * (0: 1,000 relink, 500 function
				 * draws, --quick 200) */
	bool quick;             /* fewer sizes, smaller hackbench */
	bool no_build;          /* use the kernels already in `kernels` */
	const char *src;        /* lace's sources (scripts/fetch-guest.sh); NULL: unknown */
	int jobs;               /* boots and reads at once (each is one host thread) */
	const char *plan_dir;   /* the plan folder (kstudy_jobs.h): a local run
				 * writes and runs its jobs there too */
	study_progress_fn *progress;  /* NULL: quiet */
	void *progress_data;
};

/* Run it; *results gets what was measured (also on failure, with
 * "not_measured" where a step could not be).  0, or -errno when nothing
 * useful could be done (message set). */
int kstudy_run(const struct kstudy_opts *o, json_t **results);
/* kstudy_run(), builds and guests aside, is: kstudy_plan(), the jobs of
 * each stage run, kstudy_merge(). */
/* Write every job into o->plan_dir without running any (inputs copied
 * there by content); *njobs gets their number.  0 or -errno. */
int kstudy_plan(const struct kstudy_opts *o, size_t *njobs);
/* The results of a plan whose jobs have run (those that did not say
 * "not measured").  0 or -errno with the message set. */
int kstudy_merge(const struct kstudy_opts *o, json_t **results);
/* The analyses of results again (reading 4's verdicts), so a re-render
 * (--report-only) follows the current analysis. */
void kstudy_analyse(json_t *results);
/* What kept the study from being whole, one line each ("guest fetch
 * ppc64le kernel failed: <cause>", "build ... failed: <cause>"): failed
 * builds and guest fetches, which every step that needed them says it was
 * not measured for.  They head the report and the summary. */
void kstudy_problems(const json_t *results, struct strvec *lines);
/* report.md and report.html from results, into dir. */
int kstudy_write_reports(const json_t *results, const char *dir);
void kstudy_print_summary(const json_t *results, FILE *f);

#endif
