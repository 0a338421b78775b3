/* What `lace stat` and `lace ab` share around the runs: the signal
 * handling that ends a batch cleanly, and one measured run with its
 * --pre/--post commands. */
#ifndef LACE_MEASURE_SESSION_H
#define LACE_MEASURE_SESSION_H

#include "measure/backend.h"

/* Set to the signal number by SIGINT/SIGTERM/SIGHUP handlers; the runner
 * sees it through lace_run_opts.stop and kills the workload in flight. */
extern volatile int session_stop;
void session_signals_install(void);
/* Exit status for a batch ended by session_stop: 128 + signal. */
int session_exit_status(void);

/* pre (may be NULL), the measured run, post (may be NULL).  A failing
 * --pre is recorded as a START fault of this run without running it; a
 * failing --post is recorded as an EXIT fault.  0 or -errno (backend
 * failure: the batch must stop). */
int session_run_once(struct lace_backend_set *set, char *const argv[], const char *pre,
		     const char *post, const struct lace_run_opts *opts, struct lace_run_result *res);

/* --output WHERE, --show-output and --output-limit of lace stat / lace ab
 * together: where (NULL = not given) goes to runner_output_set().  With no
 * WHERE: "inherit", as perf stat; "stderr" when report_on_stdout (a JSON,
 * CSV or Markdown report on lace's stdout, which the workload's output
 * would corrupt); "pipe" when limit_given (a flood limit needs lace to read
 * the output).  --show-output is "pipe" passed on to stderr.
 * opts->output_limit is cleared unless the output is the pipe.  0, or
 * -errno with the message set (a usage error: a conflict or a file that
 * cannot be opened). */
int session_output_setup(const char *where, bool report_on_stdout, bool limit_given,
			 struct lace_run_opts *opts);

/* "cmd arg 'a b'": argv joined with shell quoting where needed (caller frees). */
char *session_join_argv(char *const argv[]);
/* Parse "10", "1.5", "100ms", "2m" into seconds; -EINVAL otherwise. */
int session_parse_seconds(const char *s, double *out);
/* Parse "64M", "4096", "1G" into bytes; -EINVAL otherwise. */
int session_parse_bytes(const char *s, uint64_t *out);

#endif
