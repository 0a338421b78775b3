/* The runner: start one workload, let it go, wait for it, classify how it
 * ended.  Every backend starts its workload here so that pinning, timeouts,
 * output limits and fault records do not depend on who counts.
 *
 * The child is forked into its own process group with stdin from
 * /dev/null; its stdout and stderr go where runner_output_set() said:
 * lace's own stdout and stderr (inherit, as perf stat does), lace's
 * stderr (so that lace's stdout carries only a JSON/CSV report), /dev/null,
 * a file,
 * or a pipe lace drains (to count for the flood limit, and to show on
 * stderr with --show-output).  It then blocks until runner_go(), as perf's
 * workload does, so counters can be attached to its pid with
 * enable_on_exec before it execs.  lace is a child subreaper while a run
 * is in flight, so processes the workload leaves behind come back to lace
 * and are counted and killed, not leaked into the next run. */
#ifndef LACE_MEASURE_RUNNER_H
#define LACE_MEASURE_RUNNER_H

#include <stdint.h>
#include <sys/types.h>

#include "measure/backend.h"

struct lace_child {
	pid_t pid;          /* also the process group id */
	int go_fd;          /* write end of the go pipe; -1 once gone */
	int out_fd;         /* read end of the output pipe; -1 unless "pipe" */
	int pidfd;          /* pidfd_open(pid), -1 when the kernel lacks it */
	double t_go;        /* CLOCK_MONOTONIC at runner_go, seconds */
	int exec_errno;     /* errno of a failed exec, reported by the child */
	int err_fd;         /* read end of the exec-status pipe, read once the child is gone */
};

/* Where the workload's stdout and stderr go (--output=WHERE). */
enum runner_output {
	RUNNER_OUTPUT_STDERR,  /* both to lace's stderr, so lace's stdout carries
				* only lace's report (the default under --json) */
	RUNNER_OUTPUT_INHERIT, /* lace's own stdout and stderr (the default) */
	RUNNER_OUTPUT_NULL,    /* /dev/null */
	RUNNER_OUTPUT_PIPE,    /* a pipe lace drains: output_limit applies (the
				* runner's default until runner_output_set) */
	RUNNER_OUTPUT_FILE,    /* a file, emptied once, appended to by every run */
};
/* Set it for every later run of this process (workload, --pre, --post):
 * "stderr", "inherit", "null", "pipe" or a file name (opened here, so a bad path is
 * reported before the first run).  0 or -errno (message set).
 * lace_run_opts.show_output overrides it with "pipe", passed to stderr. */
int runner_output_set(const char *where);
enum runner_output runner_output_get(void);

/* Fork argv[0] (searched in PATH) as described above; env is NULL or a
 * NULL-terminated list of "NAME=VALUE" added to the child's environment.
 * Returns 0 or -errno (message set). */
int runner_start(struct lace_child *c, char *const argv[], const char *const *env,
		 const struct lace_run_opts *opts);
/* Let the child exec.  Timing starts here.  Does not wait for the exec: a
 * failed one is a START fault found by runner_wait. */
int runner_go(struct lace_child *c);
/* Wait for the child, enforcing opts->timeout_s, opts->output_limit (only
 * when the output is a pipe) and opts->stop; fill res's elapsed, user, sys,
 * ctx_switches, max_rss, exit and fault fields (migrations are left to the backend).  Reaps and kills
 * leftovers.  Returns 0 (whatever the workload did) or -errno. */
int runner_wait(struct lace_child *c, const struct lace_run_opts *opts,
		struct lace_run_result *res);
/* Kill the process group and reap; for error paths between start and wait. */
void runner_abort(struct lace_child *c);
/* runner_go() then runner_wait(); when either fails the child is aborted
 * (killed and reaped), never left running.  0 or -errno. */
int runner_run(struct lace_child *c, const struct lace_run_opts *opts,
	       struct lace_run_result *res);

/* Run a helper command (--pre/--post) through /bin/sh -c, output treated
 * like the workload's; returns its exit status (>= 0), 128+signal, or
 * -errno. */
int runner_shell(const char *cmd, const struct lace_run_opts *opts);

/* Parse a CPU list "0-3,6" into a cpu_set_t-sized mask check: 0 or
 * -EINVAL (message set). */
int runner_cpu_list_check(const char *list);

#endif
