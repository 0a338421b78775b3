/* lace stat: run a command N times counting events, perf stat style. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/report_file.h"
#include "measure/events.h"
#include "measure/render.h"
#include "measure/results.h"
#include "measure/runner.h"
#include "measure/session.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define STAT_USAGE                                                                           \
	"usage: lace stat [options] [--] CMD [ARGS...]\n"                                     \
	"\n"                                                                                   \
	"Run CMD N times counting events (perf_event_open or the simulator); print per\n"     \
	"event the mean, ( +- x% ) = standard error of the mean, and sd = run-to-run\n"       \
	"standard deviation, then elapsed, user and sys time.\n"                              \
	"\n"                                                                                   \
	"  -r, --repeat N          run N times (default 1)\n"                                 \
	"  -e, --event LIST        events in perf's spelling, repeatable (default:\n"         \
	"                          task-clock,context-switches,cpu-migrations,page-faults,\n" \
	"                          cycles,instructions,branches,branch-misses)\n"             \
	"  -x, --field-separator SEP  CSV output with separator SEP\n"                        \
	"      --json              one JSON object on stdout\n"                               \
	"      --md                a Markdown table\n"                                        \
	"  -o, --output-file FILE  write the report to FILE instead of stdout (perf's -o)\n" \
	"      --append            with -o: add to FILE instead of replacing it\n"          \
	"  -v, --verbose           add min / median / max\n"                                  \
	"      --pre CMD           run CMD (via /bin/sh -c) before each run, not measured\n"  \
	"      --post CMD          run CMD after each run, not measured\n"                    \
	"  -C, --cpu LIST          pin the workload to CPUs, e.g. 0-3,6\n"                    \
	"      --warmup N          N unrecorded-in-statistics runs first (default 0)\n"       \
	"      --timeout S         kill a run (its whole process group) after S seconds\n"    \
	"      --results FILE      results file, JSON lines (default lace-results.jsonl)\n"   \
	"      --no-results        do not write a results file\n"                             \
	"      --backend B         auto (default), hw or sim\n"                               \
	"      --output WHERE      the workload's stdout and stderr: inherit (lace's, the\n"  \
	"                          default; stderr with --json/-x/--md on stdout), stderr,\n" \
	"                          null, pipe (read by lace) or FILE (appended)\n"          \
	"      --show-output       --output=pipe, passed on to lace's stderr\n"              \
	"      --output-limit SIZE with --output=pipe, a run writing more is killed as a\n"  \
	"                          flood (default 64M); alone, it implies --output=pipe\n"   \
	"      --stop-on-error     stop the batch at the first failed run\n"                  \
	"      --ignore-failure    a failed run (non-zero exit, signal, timeout) does not\n"   \
	"                          fail the batch; the statistics use the good runs\n"        \
	"  -i, --no-inherit        do not count child processes and threads\n"                \
	"\n"                                                                                   \
	"Exit status: 0; 1 when a run failed (unless --ignore-failure) or none succeeded;\n"  \
	"2 usage error; 128+N after signal N.\n"                                              \
	"See lace-stat(1) and doc/events.md.\n"

enum {
	OPT_JSON = 256, OPT_MD, OPT_PRE, OPT_POST, OPT_WARMUP, OPT_TIMEOUT, OPT_RESULTS,
	OPT_NO_RESULTS, OPT_BACKEND, OPT_SHOW_OUTPUT, OPT_OUTPUT_LIMIT, OPT_STOP_ON_ERROR,
	OPT_OUTPUT,
	OPT_IGNORE_FAILURE, OPT_APPEND,
	OPT_SIM_BASE = 1000,
};

static const struct option base_options[] = {
	{ "repeat", required_argument, NULL, 'r' },
	{ "event", required_argument, NULL, 'e' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "md", no_argument, NULL, OPT_MD },
	{ "verbose", no_argument, NULL, 'v' },
	{ "pre", required_argument, NULL, OPT_PRE },
	{ "post", required_argument, NULL, OPT_POST },
	{ "cpu", required_argument, NULL, 'C' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "no-results", no_argument, NULL, OPT_NO_RESULTS },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "show-output", no_argument, NULL, OPT_SHOW_OUTPUT },
	{ "output-limit", required_argument, NULL, OPT_OUTPUT_LIMIT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "stop-on-error", no_argument, NULL, OPT_STOP_ON_ERROR },
	{ "ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE },
	{ "output-file", required_argument, NULL, 'o' },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "no-inherit", no_argument, NULL, 'i' },
};

/* base options + the simulator's (when linked in) + terminator */
static struct option *build_options(size_t *nsim)
{
	size_t nb = sizeof(base_options) / sizeof(base_options[0]), ns = 0;

	while (sim_backend_options[ns].name)
		ns++;
	struct option *o = xcalloc(nb + ns + 1, sizeof(*o));
	memcpy(o, base_options, sizeof(base_options));
	for (size_t i = 0; i < ns; i++)
		o[nb + i] = (struct option){ sim_backend_options[i].name, sim_backend_options[i].has_arg,
					     NULL, OPT_SIM_BASE + (int)i };
	*nsim = ns;
	return o;
}

static int parse_count(const char *cmd, const char *opt, const char *s, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000)
		return lace_usage_error(cmd, "%s needs a whole number >= %ld, not '%s'", opt, min, s);
	*out = v;
	return 0;
}

int cmd_stat(int argc, char **argv);
int cmd_stat(int argc, char **argv)
{
	struct lace_event_list evl = { 0 };
	struct lace_run_opts ro = { .follow_children = true, .output_limit = 64ULL << 20 };
	struct lace_render_opts rdr = { .fmt = LACE_FMT_TEXT, .sep = "," };
	enum lace_backend_mode mode = LACE_BACKEND_AUTO;
	const char *pre = NULL, *post = NULL, *results = "lace-results.jsonl";
	long repeat = 1, warmup = 0;
	bool stop_on_error = false, ignore_failure = false;
	struct { const char *name, *value; } simopts[32];
	size_t nsimopts = 0, nsim;
	struct option *longopts = build_options(&nsim);
	int c, rc = LACE_EXIT_USAGE;
	bool results_given = false;
	const char *output = NULL;
	bool limit_given = false;
	const char *fmt_flag = NULL, *report_path = NULL;
	bool append = false;
	struct report_file rf = REPORT_FILE_INIT;

	while ((c = getopt_long(argc, argv, "+:r:e:x:vC:io:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_count("stat", "--repeat", optarg, 1, &repeat))
				goto out;
			break;
		case 'e':
			if (events_parse(&evl, optarg)) {
				lace_err("stat", "%s", lace_error_msg());
				goto out;
			}
			break;
		case 'x':
			if (!*optarg) {
				lace_usage_error("stat", "-x needs a separator");
				goto out;
			}
			if (lace_format_flag("stat", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_CSV, "-x"))
				goto out;
			rdr.sep = optarg; /* any string, as perf takes it */
			break;
		case OPT_JSON:
			if (lace_format_flag("stat", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_JSON, "--json"))
				goto out;
			break;
		case OPT_MD:
			if (lace_format_flag("stat", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_MD, "--md"))
				goto out;
			break;
		case 'v': rdr.verbose = true; break;
		case OPT_PRE: pre = optarg; break;
		case OPT_POST: post = optarg; break;
		case 'C':
			if (runner_cpu_list_check(optarg)) {
				lace_usage_error("stat", "%s", lace_error_msg());
				goto out;
			}
			ro.cpu_list = optarg;
			break;
		case OPT_WARMUP:
			if (parse_count("stat", "--warmup", optarg, 0, &warmup))
				goto out;
			break;
		case OPT_TIMEOUT:
			if (session_parse_seconds(optarg, &ro.timeout_s)) {
				lace_usage_error("stat", "--timeout needs seconds (10, 1.5, 500ms), not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_RESULTS: results = optarg; results_given = true; break;
		case OPT_NO_RESULTS: results = NULL; break;
		case OPT_BACKEND:
			if (backend_mode_parse(optarg, &mode)) {
				lace_usage_error("stat", "%s", lace_error_msg());
				goto out;
			}
			break;
		case OPT_SHOW_OUTPUT: ro.show_output = true; break;
		case OPT_OUTPUT_LIMIT:
			if (session_parse_bytes(optarg, &ro.output_limit)) {
				lace_usage_error("stat", "--output-limit needs a size (4096, 64M), not '%s'", optarg);
				goto out;
			}
			limit_given = true;
			break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_STOP_ON_ERROR: stop_on_error = true; break;
		case OPT_IGNORE_FAILURE: ignore_failure = true; break;
		case 'o': report_path = optarg; break;
		case OPT_APPEND: append = true; break;
		case 'i': ro.follow_children = false; break;
		case '?':
		case ':':
			lace_bad_option("stat", c, argv);
			goto out;
		default:
			if (c >= OPT_SIM_BASE && (size_t)(c - OPT_SIM_BASE) < nsim &&
			    nsimopts < sizeof(simopts) / sizeof(simopts[0])) {
				simopts[nsimopts].name = sim_backend_options[c - OPT_SIM_BASE].name;
				simopts[nsimopts++].value = optarg;
				break;
			}
			lace_bad_option("stat", '?', argv);
			goto out;
		}
	}
	/* a machine-readable report on stdout must not be mixed with the
	 * workload's output */
	bool report_on_stdout = rdr.fmt != LACE_FMT_TEXT && !report_path;
	if (session_output_setup(output, report_on_stdout, limit_given, &ro)) {
		lace_usage_error("stat", "%s", lace_error_msg());
		goto out;
	}
	if (append && !report_path) {
		lace_usage_error("stat", "--append needs -o FILE");
		goto out;
	}
	if (report_path && report_file_open(&rf, "stat", report_path, append))
		goto out;
	if (optind >= argc) {
		lace_usage_error("stat", "no command to measure (lace stat [options] -- CMD [ARGS])");
		goto out;
	}
	char **cmdv = argv + optind;
	if (!evl.n) {
		if (events_parse(&evl, events_default_list)) {
			lace_err("stat", "%s", lace_error_msg());
			goto out;
		}
		for (size_t i = 0; i < evl.n; i++)
			evl.ev[i].by_default = true;
	}

	struct lace_backend_set set;
	if (backend_select(&set, mode, evl.ev, evl.n)) {
		lace_err("stat", "%s", lace_error_msg());
		goto out;
	}
	for (size_t i = 0; i < nsimopts; i++)
		if (backend_set_option(&set, simopts[i].name, simopts[i].value)) {
			lace_usage_error("stat", "%s", lace_error_msg());
			backend_set_release(&set);
			goto out;
		}
	events_group_hardware(&evl);
	if (set.note[0])
		fprintf(stderr, "lace: note: %s\n", set.note);
	if (backend_set_prepare(&set, evl.ev, evl.n)) {
		lace_err("stat", "%s", lace_error_msg());
		backend_set_release(&set);
		rc = LACE_EXIT_FAIL;
		goto out;
	}

	struct lace_batch batch;
	batch_init(&batch, "stat", evl.ev, evl.n);
	batch.command = session_join_argv(cmdv);
	batch_describe_machine(&batch);
	{
		struct strbuf be = STRBUF_INIT;
		bool any_sim = false;
		for (size_t i = 0; i < evl.n; i++)
			any_sim |= evl.ev[i].simulated;
		strbuf_addstr(&be, set.hw->describe(set.hw));
		if (any_sim)
			strbuf_addf(&be, "+%s", set.sim->describe ? set.sim->describe(set.sim) : "sim");
		batch.backend = strbuf_detach(&be, NULL);
	}
	json_object_set_new(batch.header, "repeat", json_integer(repeat));
	json_object_set_new(batch.header, "warmup", json_integer(warmup));
	json_object_set_new(batch.header, "ignore_failure", json_boolean(ignore_failure));
	if (results && batch_open(&batch, results) && !results_given) {
		/* the default file in an unwritable directory: measure anyway */
		fprintf(stderr, "lace: warning: %s (no results file; --results FILE to choose one)\n",
			lace_error_msg());
	} else if (results && batch.fd < 0) {
		fprintf(stderr, "lace: %s\n", lace_error_msg());
		batch_release(&batch);
		backend_set_release(&set);
		goto out;
	}

	session_signals_install();
	ro.stop = &session_stop;
	bool tty = isatty(2) && rdr.fmt == LACE_FMT_TEXT;
	int err = 0;
	json_t **extras = NULL; /* backend data of the measured runs (sim: per-function) */
	size_t nextras = 0;
	for (long i = 0; i < warmup + repeat && !session_stop && !err; i++) {
		bool is_warm = i < warmup;
		struct lace_run_result res;
		if (tty)
			fprintf(stderr, "\r[%s %ld/%ld]", is_warm ? "warmup" : "run",
				is_warm ? i + 1 : i - warmup + 1, is_warm ? warmup : repeat);
		run_result_init(&res, evl.n);
		err = session_run_once(&set, cmdv, pre, post, &ro, &res);
		if (!err) {
			if (session_stop && res.fault == LACE_FAULT_NONE) {
				res.fault = LACE_FAULT_INTERRUPTED;
				snprintf(res.fault_msg, sizeof(res.fault_msg), "interrupted");
			}
			if (batch_add_run(&batch, &res, (int)(is_warm ? i : i - warmup), 0, is_warm))
				lace_warn(results, "%s", lace_error_msg());
			if (res.extra && !is_warm) {
				extras = xrealloc(extras, (nextras + 1) * sizeof(*extras));
				extras[nextras++] = json_incref(res.extra);
			}
			if (res.fault != LACE_FAULT_NONE && !session_stop && ro.show_output)
				lace_warn(NULL, "run %ld: %s", i + 1, res.fault_msg);
			if (res.fault != LACE_FAULT_NONE && stop_on_error && !is_warm)
				i = warmup + repeat;
		}
		run_result_release(&res);
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (err)
		lace_err("stat", "%s", lace_error_msg());
	if (batch_close(&batch, session_stop != 0))
		lace_warn(results, "%s", lace_error_msg());

	FILE *out = report_file_begin(&rf, rdr.fmt == LACE_FMT_TEXT || rdr.fmt == LACE_FMT_CSV);
	stat_render(out, &batch, &rdr);
	if (nextras && set.sim && set.sim->print_extra && rdr.fmt == LACE_FMT_TEXT)
		set.sim->print_extra(set.sim, out, extras, nextras);
	for (size_t k = 0; k < nextras; k++)
		json_decref(extras[k]);
	free(extras);
	fflush(stdout);
	int write_rc = report_file_finish(&rf, "stat");
	if (set.hint[0])
		fprintf(stderr, "lace: hint: %s\n", set.hint);
	/* as hyperfine: a failed run fails the batch unless the user accepts it */
	size_t nok = batch_count_ok(&batch, false), nmeasured = batch_count_runs(&batch, false);
	if (session_stop)
		rc = session_exit_status();
	else if (err || nok == 0)
		rc = LACE_EXIT_FAIL;
	else if (nok < nmeasured && !ignore_failure) {
		fprintf(stderr, "lace: stat: %zu of %zu runs failed (--ignore-failure to accept "
			"a batch with failed runs)\n", nmeasured - nok, nmeasured);
		rc = LACE_EXIT_FAIL;
	} else
		rc = LACE_EXIT_OK;
	if (write_rc && !rc)
		rc = write_rc;
	batch_release(&batch);
	backend_set_release(&set);
out:
	report_file_finish(&rf, "stat");
	events_release(&evl);
	free(longopts);
	return rc;
}

LACE_COMMAND(stat, .name = "stat", .summary = "run a command N times counting events (perf stat style)",
	     .usage = STAT_USAGE, .run = cmd_stat, .order = 40);
