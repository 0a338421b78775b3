/* A batch of runs, and its results file (JSON lines).
 *
 * The file is written as the batch goes: line 1 is the header object
 * ({"lace_results":1,"kind":"stat"|"ab",...}), then one object per run as
 * soon as it ends (written with one write(2) and fsync'd, so a crash or
 * Ctrl-C loses at most the run in flight), and a last {"end":...} line
 * when the batch finishes.  `lace report` reads the same file back into
 * the same struct, so live output and re-rendered output are one code
 * path.  Field names are documented in doc/lace-report.1. */
#ifndef LACE_MEASURE_RESULTS_H
#define LACE_MEASURE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "measure/backend.h"

struct lace_batch_run {
	int index;               /* 0-based, in file order */
	int round;               /* ab: round number; stat: run number */
	char side;               /* ab: 'A' or 'B'; stat: 0 */
	bool warmup;
	enum lace_run_fault fault;
	char fault_msg[128];
	double elapsed_s, user_s, sys_s;
	long ctx_switches, migrations;
	int exit_status, term_signal;
	double *values;           /* nevents; scaled counts, NaN when not counted */
	enum lace_count_status *status;
	double *enabled, *running; /* ns */
};

struct lace_batch_event {
	char *name, *unit;
	double scale;       /* display scale (task-clock ns -> msec) */
	bool simulated;
};

struct lace_batch {
	char kind[8];        /* "stat" or "ab" */
	char *command;       /* stat: the command line; ab: "A: ... / B: ..." */
	char *cmd_a, *cmd_b; /* ab */
	char *backend;       /* "perf_event", "sim (...)", "perf_event+sim (...)" */
	char *machine;       /* one line: host, kernel, CPU model, CPUs */
	double margin, confidence;
	size_t nevents;
	struct lace_batch_event *events;
	size_t nruns, alloc;
	struct lace_batch_run *runs;
	bool finished;       /* the end line was seen / written */
	bool interrupted;
	json_t *header;      /* the header object as written/read */

	/* writing */
	int fd;              /* -1 when not writing */
	char *path;
};

/* Start a batch: kind, events, header extras (command, options...). */
void batch_init(struct lace_batch *b, const char *kind, const struct lace_event_spec *evs,
		size_t nevents);
/* Fill machine (uname, /proc/cpuinfo model, CPU count). */
void batch_describe_machine(struct lace_batch *b);
/* Create/truncate path and write the header line; 0 or -errno. */
int batch_open(struct lace_batch *b, const char *path);
/* Record one run (copied), and append it to the file when open. */
int batch_add_run(struct lace_batch *b, const struct lace_run_result *res, int round, char side,
		  bool warmup);
/* One run as the results file holds it, without its place in the batch
 * (run, round, side, warmup): fault, timing, counts, per-process values
 * and backend_data.  Also how a run measured in another process (lace
 * stat -j) comes back to lace (measure/session_jobs.c). */
json_t *run_result_json(const struct lace_run_result *res);
/* The reverse, into res from run_result_init(res, nevents): -EINVAL with
 * why filled when o's counts are not nevents or its fault is unknown. */
int run_result_from_json(json_t *o, struct lace_run_result *res, char *why, size_t whylen);
/* Write the end line and close the file. */
int batch_close(struct lace_batch *b, bool interrupted);
void batch_release(struct lace_batch *b);

/* Read a results file.  A last line cut short (a crash mid-write) is
 * dropped and *warning is set to a message; any other bad line is an
 * error.  0 or -errno (message set). */
int batch_load(struct lace_batch *b, const char *path, char *warning, size_t wlen);

/* Runs measured (warmups only with include_warmup), failed or not. */
size_t batch_count_runs(const struct lace_batch *b, bool include_warmup);
/* Runs that ended well (fault none), and the failures counted by cause. */
size_t batch_count_ok(const struct lace_batch *b, bool include_warmup);
/* One line: "3 of 10 runs failed: 2 signal (killed by SIGSEGV), 1 timeout"
 * into buf; "" when none failed. */
void batch_fault_summary(const struct lace_batch *b, char *buf, size_t len);

#endif
