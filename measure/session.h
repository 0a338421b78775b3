/* What `lace stat` and `lace ab` share: the session of one batch (events,
 * backends, run options, the results file, one measured run with its
 * --pre/--post commands and the exit status), and the signal handling that
 * ends a batch cleanly.  The loops themselves are stat_run()
 * (measure/stat_run.h) and ab_run() (measure/ab_run.h). */
#ifndef LACE_MEASURE_SESSION_H
#define LACE_MEASURE_SESSION_H

#include "measure/backend.h"
#include "measure/events.h"
#include "measure/results.h"

/* Set to the signal number by SIGINT/SIGTERM/SIGHUP handlers; the runner
 * sees it through lace_run_opts.stop and kills the workload in flight. */
extern volatile int session_stop;
void session_signals_install(void);

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

/* Where a loop stands, for a progress line on a terminal. */
struct session_progress {
	bool warmup;
	long i, n;  /* 1-based run or round of n */
	bool is_max; /* n is a budget (ab -r auto), not a plan */
	char side;  /* ab: 'A' or 'B'; stat: 0 */
};

/* One batch of lace stat or lace ab.  session_init() gives the defaults;
 * the command's options fill the fields above `set`; then
 * session_select(), session_prepare(), the command's *_begin() and *_run()
 * (which call session_run()), and session_release(). */
struct lace_session {
	const char *kind; /* "stat" or "ab" */
	struct lace_event_list evl;
	enum lace_backend_mode mode;
	struct lace_run_opts ro;
	const char *pre, *post;
	const char *results; /* NULL: --no-results */
	bool results_given;  /* else a default file that cannot be opened is only a warning */
	bool stop_on_error;
	long jobs;           /* -j: runs at once; 0: as session_queue_init() decides */
	struct { const char *name, *value; } backend_opts[32];
	size_t nbackend_opts;
	/* What only the CLI prints (both may be NULL): a progress line, and
	 * warnings ("lace: SUBJECT: MSG") that do not end the batch. */
	void (*progress)(const struct session_progress *p);
	void (*warn)(const char *subject, const char *msg);

	struct lace_backend_set set;
	struct lace_batch batch;
	bool have_set, have_batch;
	int err; /* a backend failure that ended the batch; message set */
};

void session_init(struct lace_session *s, const char *kind);
/* A simulator option (--cpu-profile NAME ...) for the backends; -E2BIG
 * when there are too many. */
int session_add_backend_option(struct lace_session *s, const char *name, const char *value);
/* The default events when none were given, the backends of each event
 * and the backend options: a usage error (-errno, message set) when an
 * event has no backend or an option is bad.  s->set.note and s->set.hint
 * are then for the CLI to print. */
int session_select(struct lace_session *s);
/* Ready the backends (find the simulator tool, open nothing yet): -errno
 * with the message set means the batch cannot run. */
int session_prepare(struct lace_session *s);
/* Start the batch record: the events, the command line as shown, the
 * machine and the backend description.  The caller adds header fields,
 * then session_results_open(). */
void session_batch_begin(struct lace_session *s, const char *command);
/* Open the results file (renaming a previous one to FILE.old).  A default
 * file that cannot be written is a warning and the batch runs without one;
 * a --results FILE that cannot be written is -errno (message set). */
int session_results_open(struct lace_session *s);
/* One recorded run: session_run_once(), a run cut short by a signal
 * marked interrupted, then added to the batch (and the file).  boot is
 * the run's place among its side's runs (lace_run_opts.boot).  0, or
 * -errno when the backend failed (also kept in s->err: stop the batch).
 * The loops hand their runs to a queue (measure/session_jobs.h), which
 * calls this with one job. */
int session_run(struct lace_session *s, char *const argv[], int round, char side, bool warmup,
		long boot, struct lace_run_result *res);
/* The two halves of session_run() after the run, for a run measured in
 * another process: mark it interrupted when a signal came (in the process
 * that ran it), and add it to the batch and the file. */
void session_mark_interrupted(struct lace_run_result *res);
void session_record(struct lace_session *s, const struct lace_run_result *res, int round,
		    char side, bool warmup);
/* Write the end line of the results file. */
void session_batch_end(struct lace_session *s);
/* The exit status every command shares: 128+N after signal N, 1 after a
 * backend failure, otherwise 0 (the command then applies its own rule). */
int session_status(const struct lace_session *s);
void session_release(struct lace_session *s);

#endif
