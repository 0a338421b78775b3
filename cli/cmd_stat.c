/* lace stat: run a command N times counting events, perf stat style.
 * The options and printing; the batch is measure/stat_run.c's. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/session_cli.h"
#include "layout/symkeys.h"
#include "measure/replay/record_file.h"
#include "measure/stat_run.h"
#include "util/error.h"
#include "util/parse_options.h"

static struct stat_plan plan;

static int csv_cb(const struct lace_option *opt, const char *arg)
{
	if (!*arg)
		return lace_error_set(EINVAL, "-x needs a separator");
	session_cli.rdr.sep = arg; /* any string, as perf takes it */
	return session_cli_format("-x", LACE_FMT_CSV);
}

static const struct lace_option stat_options[] = {
	OPT_INTEGER('r', "repeat", &plan.repeat, 1, 1000000, "N", "run N times (default 1)"),
	OPT_INCLUDE(session_cli_event_options),
	OPT_INTEGER(0, "warmup", &plan.warmup, 0, 1000000, "N",
		    "N unrecorded-in-statistics runs first (default 0)"),
	OPT_CALLBACK('x', "field-separator", NULL, "SEP", "CSV output with separator SEP", csv_cb),
	OPT_INCLUDE(session_cli_report_options),
	OPT_BOOLEAN('v', "verbose", &session_cli.rdr.verbose, "add min / median / max"),
	OPT_INCLUDE(session_cli_run_options),
	OPT_BOOLEAN(0, "ignore-failure", &plan.ignore_failure,
		    "a failed run (non-zero exit, signal, timeout) does not\n"
		    "fail the batch; the statistics use the good runs"),
	OPT_INCLUDE(session_cli_backend_options),
	OPT_END(),
};

static int cmd_stat(int argc, char **argv)
{
	struct lace_session *s = &session_cli.sess;
	int rc, i;

	session_cli_init("stat");
	record_build_id_reader = symkeys_build_id;   /* --record names the build */
	plan = (struct stat_plan){ .repeat = 1 };
	/* options end at the command: `lace stat -- ls -l` and `lace stat ls -l` */
	i = lace_parse_options("stat", argc, argv, stat_options, PARSE_OPTIONS_STOP_AT_NON_OPTION);
	if (i < 0)
		return session_cli_done(LACE_EXIT_USAGE);
	if ((rc = session_cli_check()))
		return session_cli_done(rc);
	if (i >= argc) {
		lace_usage_error("stat", "no command to measure (lace stat [options] -- CMD [ARGS])");
		return session_cli_done(LACE_EXIT_USAGE);
	}
	char **cmdv = argv + i;
	if ((rc = session_cli_start()))
		return session_cli_done(rc);
	if (stat_begin(s, cmdv, &plan))
		return session_cli_done(session_cli_begin_failed());

	session_cli_run_begin(isatty(2) && session_cli.rdr.fmt == LACE_FMT_TEXT);
	stat_run(s, cmdv, &plan);
	session_cli_run_end();

	FILE *out = session_cli_report_begin();
	session_cli.rdr.backend_data = plan.extras;
	session_cli.rdr.nbackend_data = plan.nextras;
	stat_render(out, &s->batch, &session_cli.rdr);
	struct lace_backend *host = s->set.model_host;
	if (plan.nextras && host && host->print_extra && session_cli.rdr.fmt == LACE_FMT_TEXT)
		host->print_extra(host, out, plan.extras, plan.nextras);
	int write_rc = session_cli_report_end();
	rc = session_cli_status(stat_exit_status(s, &plan), write_rc);
	stat_plan_release(&plan);
	return session_cli_done(rc);
}

LACE_COMMAND(stat, .name = "stat", .summary = "run a command N times counting events (perf stat style)",
	     .usage = "usage: lace stat [options] [--] CMD [ARGS...]\n"
		      "\n"
		      "Run CMD N times counting events (perf_event_open or the simulator); print per\n"
		      "event the mean, ( +- x% ) = standard error of the mean, and sd = run-to-run\n"
		      "standard deviation, then elapsed, user and sys time.\n"
		      "\n",
	     .options = stat_options,
	     .usage_tail = "\n"
			   "Exit status: 0; 1 when a run failed (unless --ignore-failure) or none succeeded;\n"
			   "2 usage error; 128+N after signal N.\n"
			   "See lace-stat(1) and doc/events.md.\n",
	     .run = cmd_stat, .order = 40);
