/* The CLI side of lace stat and lace ab; see session_cli.h. */
#include "cli/session_cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "measure/events.h"
#include "measure/runner.h"
#include "util/array.h"
#include "util/error.h"
#include "util/parse_options.h"

struct session_cli session_cli;

static int event_cb(const struct lace_option *opt, const char *arg)
{
	return events_parse(opt->value, arg);
}

int session_cli_format(const char *flag, enum lace_format fmt)
{
	return lace_format_set((int *)&session_cli.rdr.fmt, &session_cli.fmt_flag, fmt, flag);
}

static int json_cb(const struct lace_option *opt, const char *arg)
{
	return session_cli_format("--json", LACE_FMT_JSON);
}

static int md_cb(const struct lace_option *opt, const char *arg)
{
	return session_cli_format("--md", LACE_FMT_MD);
}

static int cpu_cb(const struct lace_option *opt, const char *arg)
{
	int err = runner_cpu_list_check(arg);

	if (!err)
		session_cli.sess.ro.cpu_list = arg;
	return err;
}

static int backend_cb(const struct lace_option *opt, const char *arg)
{
	return backend_mode_parse(arg, &session_cli.sess.mode);
}

/* short names for the tables below, which point into the one state */
#define SC session_cli
#define SS session_cli.sess

static const struct lace_option event_options[] = {
	OPT_CALLBACK('e', "event", &SS.evl, "LIST", "events in perf's spelling, repeatable (default:\n"
		     "task-clock,context-switches,cpu-migrations,page-faults,\n"
		     "cycles,instructions,branches,branch-misses)", event_cb),
	OPT_END(),
};

static const struct lace_option report_options[] = {
	OPT_CALLBACK_NOARG(0, "json", NULL, "one JSON object on stdout", json_cb),
	OPT_CALLBACK_NOARG(0, "md", NULL, "a paste-ready Markdown table", md_cb),
	OPT_STRING('o', "output-file", &SC.report_path, "FILE",
		   "write the report to FILE instead of stdout (perf's -o)"),
	OPT_BOOLEAN(0, "append", &SC.append, "with -o: add to FILE instead of replacing it"),
	OPT_END(),
};

static const struct lace_option run_options[] = {
	OPT_STRING(0, "pre", &SS.pre, "CMD", "run CMD (via /bin/sh -c) before each run, not measured"),
	OPT_STRING(0, "post", &SS.post, "CMD", "run CMD after each run, not measured"),
	OPT_CALLBACK('C', "cpu", NULL, "LIST", "pin the workload to CPUs, e.g. 0-3,6", cpu_cb),
	OPT_SECONDS(0, "timeout", &SS.ro.timeout_s, "S",
		    "kill a run (its whole process group) after S seconds"),
	OPT_STRING(0, "results", &SS.results, "FILE",
		   "results file, JSON lines (default lace-results.jsonl)", .seen = &SS.results_given),
	OPT_SET_PTR(0, "no-results", &SS.results, NULL, "do not write a results file"),
	OPT_CALLBACK(0, "backend", NULL, "B",
		     "auto (default), hw, sim or qemu (a kernel under QEMU)", backend_cb,
		     .choices = "auto hw sim qemu"),
	OPT_STRING(0, "output", &SC.output, "WHERE",
		   "the workload's stdout and stderr: inherit (lace's, the\n"
		   "default; stderr with --json/-x/--md on stdout), stderr,\n"
		   "null, pipe (read by lace) or FILE (appended)",
		   .choices = "inherit stderr null pipe"),
	OPT_BOOLEAN(0, "show-output", &SS.ro.show_output, "--output=pipe, passed on to lace's stderr"),
	OPT_SIZE(0, "output-limit", &SS.ro.output_limit, "SIZE",
		 "with --output=pipe, a run writing more is killed as a\n"
		 "flood (default 64M); alone, it implies --output=pipe", .seen = &SC.limit_given),
	OPT_BOOLEAN(0, "stop-on-error", &SS.stop_on_error, "stop the batch at the first failed run"),
	OPT_INTEGER('j', "jobs", &SS.jobs, 1, 1024, "N",
		    "runs at once, each in a process of its own (default:\n"
		    "the number of CPUs with --backend qemu, whose boots\n"
		    "are independent, as far as memory allows; 1 on\n"
		    "hardware counters and the simulator); the results\n"
		    "are those of -j 1"),
	OPT_SET_BOOL('i', "no-inherit", &SS.ro.follow_children, false,
		     "do not count child processes and threads"),
	OPT_END(),
};

const struct lace_option *session_cli_event_options(void)
{
	return event_options;
}

const struct lace_option *session_cli_report_options(void)
{
	return report_options;
}

const struct lace_option *session_cli_run_options(void)
{
	return run_options;
}

static int backend_opt_cb(const struct lace_option *opt, const char *arg)
{
	size_t l = strlen(opt->long_name);

	/* --kernel-a/-b, --system-map-a/-b: the sides of lace ab */
	if (strcmp(session_cli.cmd, "ab") && l > 2 && opt->long_name[l - 2] == '-' &&
	    (opt->long_name[l - 1] == 'a' || opt->long_name[l - 1] == 'b'))
		return lace_error_set(EINVAL, "--%s is for lace ab (its A and B sides)", opt->long_name);
	return session_add_backend_option(&session_cli.sess, opt->long_name, arg);
}

/* The backends' options live in measure/ (each backend owns its table);
 * made into table entries once, on first use: a heading per backend, then
 * its options, which session_select() passes to the backends. */
static void backend_opts_add(struct lace_option *opts, size_t *n, size_t max, const char *heading,
			     const struct lace_backend_option *table)
{
	opts[(*n)++] = (struct lace_option)OPT_GROUP(heading);
	for (size_t i = 0; table[i].name && *n + 1 < max; i++) {
		const struct lace_backend_option *b = &table[i];
		opts[(*n)++] = (struct lace_option)OPT_CALLBACK(0, b->name, NULL, b->argh, b->help,
			backend_opt_cb, .flags = b->has_arg ? 0 : LACE_OPTION_NOARG);
	}
}

const struct lace_option *session_cli_backend_options(void)
{
	static struct lace_option opts[40];

	if (opts[0].type != LACE_OPTION_END)
		return opts;
	size_t n = 0, max = ARRAY_SIZE(opts);
	backend_opts_add(opts, &n, max, "simulator options (--backend sim, or auto with simulated events):",
			 vg_backend_options);
	backend_opts_add(opts, &n, max, "qemu options (--backend qemu):", qemu_backend_options);
	return opts;
}

void session_cli_init(const char *cmd)
{
	struct session_cli *sc = &session_cli;

	memset(sc, 0, sizeof(*sc));
	sc->cmd = cmd;
	session_init(&sc->sess, cmd);
	sc->rdr = (struct lace_render_opts){ .fmt = LACE_FMT_TEXT, .sep = "," };
	sc->rf = (struct report_file)REPORT_FILE_INIT;
}

int session_cli_check(void)
{
	struct session_cli *sc = &session_cli;
	/* a machine-readable report on stdout must not be mixed with the
	 * workload's output */
	bool report_on_stdout = sc->rdr.fmt != LACE_FMT_TEXT && !sc->report_path;

	if (session_output_setup(sc->output, report_on_stdout, sc->limit_given, &sc->sess.ro))
		return lace_usage_error(sc->cmd, "%s", lace_error_msg());
	if (sc->append && !sc->report_path)
		return lace_usage_error(sc->cmd, "--append needs -o FILE");
	if (sc->report_path && report_file_open(&sc->rf, sc->cmd, sc->report_path, sc->append))
		return LACE_EXIT_USAGE;
	return 0;
}

int session_cli_start(void)
{
	struct session_cli *sc = &session_cli;

	if (session_select(&sc->sess)) {
		lace_err(sc->cmd, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	if (sc->sess.set.note[0])
		fprintf(stderr, "lace: note: %s\n", sc->sess.set.note);
	if (session_prepare(&sc->sess)) {
		lace_err(sc->cmd, "%s", lace_error_msg());
		return LACE_EXIT_FAIL;
	}
	return 0;
}

int session_cli_begin_failed(void)
{
	lace_err(NULL, "%s", lace_error_msg());
	return LACE_EXIT_USAGE;
}

static void warn_cb(const char *subject, const char *msg)
{
	lace_warn(subject, "%s", msg);
}

static void progress_cb(const struct session_progress *p)
{
	session_cli.progress_shown = true;
	if (!p->side)
		fprintf(stderr, "\r[%s %ld/%ld]", p->warmup ? "warmup" : "run", p->i, p->n);
	else
		fprintf(stderr, "\r[%s %ld/%ld%s: %c]\033[K", p->warmup ? "warmup" : "round", p->i, p->n,
			p->is_max ? " max" : "", p->side);
}

void session_cli_run_begin(bool progress)
{
	session_signals_install();
	session_cli.sess.warn = warn_cb;
	session_cli.sess.progress = progress ? progress_cb : NULL;
}

void session_cli_run_end(void)
{
	if (session_cli.progress_shown)
		fputs("\r\033[K", stderr);
	if (session_cli.sess.err)
		lace_err(session_cli.cmd, "%s", lace_error_msg());
}

FILE *session_cli_report_begin(void)
{
	enum lace_format f = session_cli.rdr.fmt;

	return report_file_begin(&session_cli.rf, f == LACE_FMT_TEXT || f == LACE_FMT_CSV);
}

int session_cli_report_end(void)
{
	fflush(stdout);
	int write_rc = report_file_finish(&session_cli.rf, session_cli.cmd);
	if (session_cli.sess.set.hint[0])
		fprintf(stderr, "lace: hint: %s\n", session_cli.sess.set.hint);
	return write_rc;
}

int session_cli_status(int rc, int write_rc)
{
	if (rc == LACE_EXIT_FAIL && *lace_error_msg())
		lace_err(session_cli.cmd, "%s", lace_error_msg());
	return write_rc && !rc ? write_rc : rc;
}

int session_cli_done(int rc)
{
	report_file_finish(&session_cli.rf, session_cli.cmd);
	session_release(&session_cli.sess);
	return rc;
}
