/* What `lace stat` and `lace ab` share on the CLI side, over the session
 * of measure/session.h: the option tables they both include (events,
 * report format and file, the run options, the simulator's), the checks
 * after parsing, the lines only the CLI prints (note, hint, progress,
 * warnings) and the exit status's last steps.  One command runs per
 * process, so the state is one static object the tables point into. */
#ifndef LACE_CLI_SESSION_CLI_H
#define LACE_CLI_SESSION_CLI_H

#include <stdio.h>

#include "cli/report_file.h"
#include "measure/stats/render.h"
#include "measure/session.h"

struct session_cli {
	const char *cmd; /* "stat" or "ab", for messages */
	struct lace_session sess;
	struct lace_render_opts rdr;
	const char *fmt_flag;	 /* the format flag given, for conflicts */
	const char *report_path; /* -o FILE */
	bool append;
	const char *output;	 /* --output WHERE */
	bool limit_given;	 /* --output-limit */
	struct report_file rf;
	bool progress_shown;
};

extern struct session_cli session_cli;

/* The shared option tables, for OPT_INCLUDE(). */
const struct lace_option *session_cli_event_options(void);  /* -e */
const struct lace_option *session_cli_report_options(void); /* --json --md -o --append */
const struct lace_option *session_cli_run_options(void);    /* --pre ... -i */
const struct lace_option *session_cli_backend_options(void); /* per backend: --cpu-profile ... */

/* Defaults for cmd, before its options are parsed. */
void session_cli_init(const char *cmd);
/* An output-format flag: the second, different one is a usage error. */
int session_cli_format(const char *flag, enum lace_format fmt);
/* After parsing: --output/--show-output/--output-limit together,
 * --append without -o, the -o file.  0 or LACE_EXIT_USAGE (printed). */
int session_cli_check(void);
/* Events, backends (usage error: 2), the note, the backends' preparation
 * (1).  0 or the exit status (printed). */
int session_cli_start(void);
/* *_begin() failed: the results file (printed); LACE_EXIT_USAGE. */
int session_cli_begin_failed(void);
/* Signals, and a progress line on stderr when progress says so. */
void session_cli_run_begin(bool progress);
/* The progress line cleared; a backend failure printed. */
void session_cli_run_end(void);
/* Where the report goes: stdout or the -o file. */
FILE *session_cli_report_begin(void);
/* The report file closed, the hint printed; the status of the write. */
int session_cli_report_end(void);
/* The command's status rc: its reason printed when rc is a failure with
 * a message set; a failed report write makes a success a failure. */
int session_cli_status(int rc, int write_rc);
/* Release everything; returns rc. */
int session_cli_done(int rc);

#endif
