/* lace study --kernel's jobs: every build, guest fetch, layout read and
 * boot is an independent job, one shell script each, written into a plan
 * folder and run from there, by lace's own pool (util/run.c) or by an
 * engine that spreads them over machines (GNU parallel, Slurm; see
 * doc/scale.md).  lace writes the plan and reads the outputs back; it
 * never schedules machines.
 *
 * A plan folder:
 *   plan.json          the jobs (what, argv, stage, inputs, where each
 *                      result goes) and the results skeleton --merge fills
 *   jobs/ID.sh         one job: `sh jobs/ID.sh` run in the plan folder
 *                      writes out/ID.out (stdout), out/ID.err (stderr) and,
 *                      last, out/ID.rc ("exit start end")
 *   stage-N.txt        the IDs of stage N, one a line: a job of stage N
 *                      needs every job of the stages before it, and none
 *                      of its own
 *   out/ID.files/      the files a job writes besides its output (a
 *                      recording), which jobs of later stages read there;
 *                      every script makes it, empty or not
 *   inputs/SHA256/NAME the files the jobs read, named by content (with
 *                      --plan; a local run reads them where they are)
 * A job writes nothing outside the plan folder but the guest programs it
 * stages under /tmp/lace-in (kjob_guest_input). */
#ifndef LACE_PIPELINE_KSTUDY_JOBS_H
#define LACE_PIPELINE_KSTUDY_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "pipeline/progress.h"
#include "util/strbuf.h"
#include "util/strvec.h"

struct kjob {
	char id[16];
	int stage;
	char *phase, *what;
	bool self;             /* argv is lace's arguments; else a program's */
	struct strvec argv;
	struct strvec inputs;  /* the arguments that are files the job reads */
	struct strvec guest;   /* those the guest runs (staged; see kjob_guest_input) */
	bool files;            /* it writes into out/ID.files (kjob_output) */
	int ok_exit;           /* the highest exit status that is an answer, not a
				* failure (lace diff's 1: findings); default 0 */
	/* the caller's: what the result is for */
	int fill;
	json_t *dest;          /* borrowed from the results tree */
	bool enabled;
	char *arg;
	/* the outcome, once run or loaded: exit -1 when it did not run */
	int exit;
	double seconds;
	struct strbuf out, err;
};

struct kjobs {
	struct kjob *v;
	size_t nr, alloc;
};

/* A new job (its id is its index) with an empty argv. */
struct kjob *kjobs_add(struct kjobs *q, int stage, const char *phase, const char *what,
		       bool self);
/* Push path onto j's argv as a file the job reads. */
void kjob_input(struct kjob *j, const char *path);
/* The same for a program the guest runs: the job copies it first to
 * /tmp/lace-in/SHA256/NAME and passes that path, the same on every
 * machine and in every checkout, because the guest sees the host's path
 * and its length changes what the guest executes. */
void kjob_guest_input(struct kjob *j, const char *path);

/* The path, relative to the plan folder, of a file named name that j
 * writes: out/ID.files/NAME (the script makes the folder).  A job of a
 * later stage reads it at that path (the caller frees it). */
char *kjob_output(struct kjob *j, const char *name);

/* Write jobs/ID.sh for every job, the stage lists and plan.json (with
 * results, the skeleton the jobs' results go into) into dir.  With
 * hash_inputs, each input is copied (hard-linked when it can be) to
 * inputs/SHA256/NAME and the scripts read it there, so the folder is all
 * a machine needs besides lace and its guests. */
int kjobs_write(struct kjobs *q, const char *dir, const json_t *results, bool hash_inputs);
/* How a stage's jobs are told: each as a step of the phase name, the
 * steps counted from done (the phase's stages before) of total (all of
 * them; 0: this stage's alone), its time from t0. */
struct kjobs_progress {
	const char *name;
	double t0;
	size_t done, total;
	size_t failed;           /* the phase's jobs that failed so far */
	study_progress_fn *fn;   /* may be NULL */
	void *data;
};
/* Run stage's jobs of a written plan, at most max at once, with lace's
 * pool, then load their outcome.  pr->fn hears of each job as it ends (a
 * job whose command failed as "WHAT: failed: <its stderr's last line>");
 * pr->done grows by the stage's jobs, pr->failed by those that failed. */
int kjobs_run_stage(struct kjobs *q, const char *dir, int stage, int max, struct kjobs_progress *pr);
/* Load every job's outcome from dir/out (exit -1 where a job has not
 * finished: out/ID.rc is written last). */
void kjobs_load(struct kjobs *q, const char *dir);
/* Read dir/plan.json back: the jobs, and *results, the skeleton their
 * dest pointers point into.  0 or -errno with the message set. */
int kjobs_read_plan(struct kjobs *q, const char *dir, json_t **results);
void kjobs_clear(struct kjobs *q);

#endif
