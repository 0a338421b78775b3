/* lace ab: interleaved A/B comparison with a per-event verdict. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

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

#define AB_USAGE                                                                              \
	"usage: lace ab [options] -A 'CMD' -B 'CMD'\n"                                         \
	"       lace ab [options] --base ELF --head ELF --workload 'CMD {elf} ARGS'\n"          \
	"\n"                                                                                    \
	"Run A and B in rounds (each round runs both, in random order), compare each event\n"  \
	"on the paired log ratios B/A and give a verdict: slower / faster (the whole CI lies\n" \
	"beyond the margin and Holm-adjusted p < 1-confidence), equivalent (the whole CI lies\n" \
	"within the margin), inconclusive (with the rounds likely needed).\n"                  \
	"\n"                                                                                    \
	"  -A CMD, -B CMD          the two commands (run with /bin/sh -c)\n"                   \
	"      --base ELF --head ELF --workload 'CMD {elf} ARGS'\n"                           \
	"                          A and B are the workload with {elf} replaced by each ELF\n" \
	"  -e, --event LIST        events in perf's spelling, repeatable (default as lace stat)\n" \
	"  -r, --rounds N|auto     rounds (default 10); auto: until every event is decided\n"  \
	"      --max-runs N        with -r auto: at most N rounds (default 200)\n"             \
	"      --max-time S        with -r auto: stop starting rounds after S seconds (default 600)\n" \
	"      --warmup N          N unrecorded-in-statistics rounds first (default 1)\n"      \
	"      --seed N            seed of the random A/B order (default: from the clock; printed)\n" \
	"      --margin PCT        equivalence margin in percent (default 1)\n"                \
	"      --confidence PCT    confidence level in percent (default 95)\n"                 \
	"      --json              one JSON object on stdout\n"                                \
	"      --md                a paste-ready Markdown block\n"                             \
	"  -o, --output-file FILE  write the report to FILE instead of stdout (perf's -o)\n"  \
	"      --append            with -o: add to FILE instead of replacing it\n"           \
	"      --pre CMD, --post CMD  run before / after each measured run, not measured\n"    \
	"  -C, --cpu LIST          pin the workloads to CPUs\n"                                \
	"      --timeout S         kill a run after S seconds\n"                               \
	"      --results FILE      results file, JSON lines (default lace-results.jsonl)\n"    \
	"      --no-results        do not write a results file\n"                              \
	"      --backend B         auto (default), hw or sim\n"                                \
	"      --output WHERE      the workloads' stdout and stderr: inherit (lace's, the\n"   \
	"                          default; stderr with --json/-x/--md on stdout), stderr,\n"  \
	"                          null, pipe (read by lace) or FILE (appended)\n"           \
	"      --show-output       --output=pipe, passed on to lace's stderr\n"               \
	"      --output-limit SIZE with --output=pipe, a run writing more is killed as a\n"   \
	"                          flood (default 64M); alone, it implies --output=pipe\n"    \
	"      --stop-on-error     stop at the first failed run\n"                             \
	"  -i, --no-inherit        do not count child processes and threads\n"                 \
	"\n"                                                                                    \
	"Exit status: 0, 1 when fewer than 2 rounds ran both A and B cleanly, 2 usage error,\n" \
	"128+N after signal N.\n"                                                            \
	"See lace-ab(1).\n"

enum {
	OPT_BASE = 256, OPT_HEAD, OPT_WORKLOAD, OPT_MAX_RUNS, OPT_MAX_TIME, OPT_WARMUP, OPT_SEED,
	OPT_MARGIN, OPT_CONFIDENCE, OPT_JSON, OPT_MD, OPT_PRE, OPT_POST, OPT_TIMEOUT, OPT_RESULTS,
	OPT_NO_RESULTS, OPT_BACKEND, OPT_SHOW_OUTPUT, OPT_OUTPUT_LIMIT, OPT_STOP_ON_ERROR,
	OPT_OUTPUT, OPT_APPEND,
	OPT_SIM_BASE = 1000,
};

static const struct option base_options[] = {
	{ "base", required_argument, NULL, OPT_BASE },
	{ "head", required_argument, NULL, OPT_HEAD },
	{ "workload", required_argument, NULL, OPT_WORKLOAD },
	{ "event", required_argument, NULL, 'e' },
	{ "rounds", required_argument, NULL, 'r' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "margin", required_argument, NULL, OPT_MARGIN },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "md", no_argument, NULL, OPT_MD },
	{ "pre", required_argument, NULL, OPT_PRE },
	{ "post", required_argument, NULL, OPT_POST },
	{ "cpu", required_argument, NULL, 'C' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "no-results", no_argument, NULL, OPT_NO_RESULTS },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "show-output", no_argument, NULL, OPT_SHOW_OUTPUT },
	{ "output-limit", required_argument, NULL, OPT_OUTPUT_LIMIT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "stop-on-error", no_argument, NULL, OPT_STOP_ON_ERROR },
	{ "output-file", required_argument, NULL, 'o' },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "no-inherit", no_argument, NULL, 'i' },
};

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

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "1", "1%", "0.5" -> fraction 0.01, 0.01, 0.005 */
static int parse_percent(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")) || !(v > lo) || !(v < hi))
		return -EINVAL;
	*out = v / 100.0;
	return 0;
}

/* the workload with every {elf} replaced by the shell-quoted path */
static char *substitute_elf(const char *workload, const char *elf)
{
	struct strbuf sb = STRBUF_INIT;
	char *argv1[] = { (char *)elf, NULL };
	char *quoted = session_join_argv(argv1);

	for (const char *p = workload; *p;) {
		if (!strncmp(p, "{elf}", 5)) {
			strbuf_addstr(&sb, quoted);
			p += 5;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	free(quoted);
	return strbuf_detach(&sb, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_ab(int argc, char **argv);
int cmd_ab(int argc, char **argv)
{
	struct lace_event_list evl = { 0 };
	struct lace_run_opts ro = { .follow_children = true, .output_limit = 64ULL << 20 };
	struct lace_render_opts rdr = { .fmt = LACE_FMT_TEXT, .sep = "," };
	enum lace_backend_mode mode = LACE_BACKEND_AUTO;
	const char *pre = NULL, *post = NULL, *results = "lace-results.jsonl";
	const char *cmd_a = NULL, *cmd_b = NULL, *base = NULL, *head = NULL, *workload = NULL;
	char *sub_a = NULL, *sub_b = NULL;
	long rounds = 10, max_runs = 200, warmup = 1;
	double max_time = 600, margin = 0.01, confidence = 0.95;
	bool autorounds = false, stop_on_error = false, seed_given = false;
	unsigned long seed = 0;
	struct { const char *name, *value; } simopts[32];
	size_t nsimopts = 0, nsim;
	struct option *longopts = build_options(&nsim);
	int c, rc = LACE_EXIT_USAGE;
	const char *fmt_flag = NULL, *report_path = NULL;
	bool append = false;
	struct report_file rf = REPORT_FILE_INIT;
	bool results_given = false;
	const char *output = NULL;
	bool limit_given = false;

	while ((c = getopt_long(argc, argv, ":A:B:e:r:C:io:", longopts, NULL)) != -1) {
		switch (c) {
		case 'A': cmd_a = optarg; break;
		case 'B': cmd_b = optarg; break;
		case OPT_BASE: base = optarg; break;
		case OPT_HEAD: head = optarg; break;
		case OPT_WORKLOAD: workload = optarg; break;
		case 'e':
			if (events_parse(&evl, optarg)) {
				lace_err("ab", "%s", lace_error_msg());
				goto out;
			}
			break;
		case 'r':
			if (!strcmp(optarg, "auto")) {
				autorounds = true;
			} else if (parse_long(optarg, 2, 1000000, &rounds)) {
				lace_usage_error("ab", "-r needs a number of rounds >= 2 or 'auto', not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_MAX_RUNS:
			if (parse_long(optarg, 2, 1000000, &max_runs)) {
				lace_usage_error("ab", "--max-runs needs a number >= 2, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_MAX_TIME:
			if (session_parse_seconds(optarg, &max_time)) {
				lace_usage_error("ab", "--max-time needs seconds, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_WARMUP:
			if (parse_long(optarg, 0, 1000000, &warmup)) {
				lace_usage_error("ab", "--warmup needs a number >= 0, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_SEED: {
			char *end;
			errno = 0;
			seed = strtoul(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				lace_usage_error("ab", "--seed needs a number, not '%s'", optarg);
				goto out;
			}
			seed_given = true;
			break;
		}
		case OPT_MARGIN:
			if (parse_percent(optarg, 0, 100, &margin)) {
				lace_usage_error("ab", "--margin needs a percentage in (0, 100), not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_CONFIDENCE:
			if (parse_percent(optarg, 50, 100, &confidence)) {
				lace_usage_error("ab", "--confidence needs a percentage in (50, 100), not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			if (lace_format_flag("ab", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_JSON, "--json"))
				goto out;
			break;
		case OPT_MD:
			if (lace_format_flag("ab", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_MD, "--md"))
				goto out;
			break;
		case OPT_PRE: pre = optarg; break;
		case OPT_POST: post = optarg; break;
		case 'C':
			if (runner_cpu_list_check(optarg)) {
				lace_usage_error("ab", "%s", lace_error_msg());
				goto out;
			}
			ro.cpu_list = optarg;
			break;
		case OPT_TIMEOUT:
			if (session_parse_seconds(optarg, &ro.timeout_s)) {
				lace_usage_error("ab", "--timeout needs seconds, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_RESULTS: results = optarg; results_given = true; break;
		case OPT_NO_RESULTS: results = NULL; break;
		case OPT_BACKEND:
			if (backend_mode_parse(optarg, &mode)) {
				lace_usage_error("ab", "%s", lace_error_msg());
				goto out;
			}
			break;
		case OPT_SHOW_OUTPUT: ro.show_output = true; break;
		case OPT_OUTPUT_LIMIT:
			if (session_parse_bytes(optarg, &ro.output_limit)) {
				lace_usage_error("ab", "--output-limit needs a size, not '%s'", optarg);
				goto out;
			}
			limit_given = true;
			break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_STOP_ON_ERROR: stop_on_error = true; break;
		case 'o': report_path = optarg; break;
		case OPT_APPEND: append = true; break;
		case 'i': ro.follow_children = false; break;
		case '?':
		case ':':
			lace_bad_option("ab", c, argv);
			goto out;
		default:
			if (c >= OPT_SIM_BASE && (size_t)(c - OPT_SIM_BASE) < nsim &&
			    nsimopts < sizeof(simopts) / sizeof(simopts[0])) {
				simopts[nsimopts].name = sim_backend_options[c - OPT_SIM_BASE].name;
				simopts[nsimopts++].value = optarg;
				break;
			}
			lace_bad_option("ab", '?', argv);
			goto out;
		}
	}
	/* a machine-readable report on stdout must not be mixed with the
	 * workload's output */
	bool report_on_stdout = rdr.fmt != LACE_FMT_TEXT && !report_path;
	if (session_output_setup(output, report_on_stdout, limit_given, &ro)) {
		lace_usage_error("ab", "%s", lace_error_msg());
		goto out;
	}
	if (append && !report_path) {
		lace_usage_error("ab", "--append needs -o FILE");
		goto out;
	}
	if (report_path && report_file_open(&rf, "ab", report_path, append))
		goto out;
	if (optind < argc) {
		lace_usage_error("ab", "unexpected argument '%s' (quote the commands: -A 'CMD ARGS')", argv[optind]);
		goto out;
	}
	if (base || head || workload) {
		if (!base || !head || !workload || cmd_a || cmd_b) {
			lace_usage_error("ab", "--base, --head and --workload go together, instead of -A/-B");
			goto out;
		}
		if (!strstr(workload, "{elf}")) {
			lace_usage_error("ab", "--workload must contain {elf}");
			goto out;
		}
		for (const char *f = base; f; f = f == base ? head : NULL)
			if (access(f, X_OK)) {
				lace_err(f, "%s", strerror(errno));
				goto out;
			}
		cmd_a = sub_a = substitute_elf(workload, base);
		cmd_b = sub_b = substitute_elf(workload, head);
	}
	if (!cmd_a || !cmd_b || !*cmd_a || !*cmd_b) {
		lace_usage_error("ab", "need both -A 'CMD' and -B 'CMD' (or --base/--head/--workload)");
		goto out;
	}
	if (!evl.n) {
		if (events_parse(&evl, events_default_list)) {
			lace_err("ab", "%s", lace_error_msg());
			goto out;
		}
		for (size_t i = 0; i < evl.n; i++)
			evl.ev[i].by_default = true;
	}
	if (!seed_given)
		seed = (unsigned long)time(NULL) ^ (unsigned long)getpid();

	struct lace_backend_set set;
	if (backend_select(&set, mode, evl.ev, evl.n)) {
		lace_err("ab", "%s", lace_error_msg());
		goto out;
	}
	for (size_t i = 0; i < nsimopts; i++)
		if (backend_set_option(&set, simopts[i].name, simopts[i].value)) {
			lace_usage_error("ab", "%s", lace_error_msg());
			backend_set_release(&set);
			goto out;
		}
	events_group_hardware(&evl);
	if (set.note[0])
		fprintf(stderr, "lace: note: %s\n", set.note);
	if (backend_set_prepare(&set, evl.ev, evl.n)) {
		lace_err("ab", "%s", lace_error_msg());
		backend_set_release(&set);
		rc = LACE_EXIT_FAIL;
		goto out;
	}

	struct lace_batch batch;
	batch_init(&batch, "ab", evl.ev, evl.n);
	batch.cmd_a = xstrdup(cmd_a);
	batch.cmd_b = xstrdup(cmd_b);
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "A: %s / B: %s", cmd_a, cmd_b);
		batch.command = strbuf_detach(&sb, NULL);
		bool any_sim = false;
		for (size_t i = 0; i < evl.n; i++)
			any_sim |= evl.ev[i].simulated;
		strbuf_addstr(&sb, set.hw->describe(set.hw));
		if (any_sim)
			strbuf_addf(&sb, "+%s", set.sim->describe ? set.sim->describe(set.sim) : "sim");
		batch.backend = strbuf_detach(&sb, NULL);
	}
	batch.margin = margin;
	batch.confidence = confidence;
	batch_describe_machine(&batch);
	json_object_set_new(batch.header, "seed", json_integer((json_int_t)seed));
	json_object_set_new(batch.header, "rounds", autorounds ? json_string("auto") : json_integer(rounds));
	json_object_set_new(batch.header, "warmup", json_integer(warmup));
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
	fprintf(stderr, "lace: ab: seed %lu%s\n", seed, autorounds ? ", rounds: auto" : "");

	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	char *argv_a[] = { "/bin/sh", "-c", (char *)cmd_a, NULL };
	char *argv_b[] = { "/bin/sh", "-c", (char *)cmd_b, NULL };
	session_signals_install();
	ro.stop = &session_stop;
	bool tty = isatty(2);
	double t0 = now_s();
	long limit = autorounds ? max_runs : rounds;
	int err = 0;
	bool stop = false;
	for (long r = -warmup; r < limit && !session_stop && !err && !stop; r++) {
		bool is_warm = r < 0;
		int b_first = gsl_rng_uniform(rng) < 0.5;
		if (autorounds && !is_warm && now_s() - t0 > max_time)
			break;
		for (int k = 0; k < 2 && !session_stop && !err && !stop; k++) {
			char side = (k == 0) == b_first ? 'B' : 'A';
			struct lace_run_result res;
			if (tty)
				fprintf(stderr, "\r[%s %ld/%ld%s: %c]\033[K", is_warm ? "warmup" : "round",
					is_warm ? r + warmup + 1 : r + 1, is_warm ? warmup : limit,
					autorounds && !is_warm ? " max" : "", side);
			run_result_init(&res, evl.n);
			err = session_run_once(&set, side == 'A' ? argv_a : argv_b, pre, post, &ro, &res);
			if (!err) {
				if (session_stop && res.fault == LACE_FAULT_NONE) {
					res.fault = LACE_FAULT_INTERRUPTED;
					snprintf(res.fault_msg, sizeof(res.fault_msg), "interrupted");
				}
				if (batch_add_run(&batch, &res, is_warm ? (int)(r + warmup) : (int)r, side, is_warm))
					lace_warn(results, "%s", lace_error_msg());
				if (res.fault != LACE_FAULT_NONE && stop_on_error && !is_warm)
					stop = true;
			}
			run_result_release(&res);
		}
		if (autorounds && !is_warm && r + 1 >= 5 && !stop && !session_stop) {
			struct lace_ab_event *ev = ab_analyze(&batch);
			bool done = ab_all_decided(ev, batch.nevents);
			free(ev);
			if (done)
				break;
		}
	}
	if (tty)
		fputs("\r\033[K", stderr);
	gsl_rng_free(rng);
	if (err)
		lace_err("ab", "%s", lace_error_msg());
	if (batch_close(&batch, session_stop != 0))
		lace_warn(results, "%s", lace_error_msg());

	struct lace_ab_event *ev = ab_analyze(&batch);
	ab_render(report_file_begin(&rf, rdr.fmt == LACE_FMT_TEXT || rdr.fmt == LACE_FMT_CSV),
		  &batch, ev, &rdr);
	fflush(stdout);
	int write_rc = report_file_finish(&rf, "ab");
	if (set.hint[0])
		fprintf(stderr, "lace: hint: %s\n", set.hint);
	free(ev);
	if (session_stop)
		rc = session_exit_status();
	else if (err)
		rc = LACE_EXIT_FAIL;
	else if (ab_paired_rounds(&batch) < 2) {
		fprintf(stderr, "lace: ab: %zu rounds ran both A and B without a fault: "
			"a comparison needs at least 2\n", ab_paired_rounds(&batch));
		rc = LACE_EXIT_FAIL;
	}
	else
		rc = LACE_EXIT_OK;
	if (write_rc && !rc)
		rc = write_rc;
	batch_release(&batch);
	backend_set_release(&set);
out:
	report_file_finish(&rf, "ab");
	events_release(&evl);
	free(longopts);
	free(sub_a);
	free(sub_b);
	return rc;
}

LACE_COMMAND(ab, .name = "ab", .summary = "compare two commands, interleaved, with a verdict per event",
	     .usage = AB_USAGE, .run = cmd_ab, .order = 41);
