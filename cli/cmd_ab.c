/* lace ab: interleaved A/B comparison with a per-event verdict.
 * The options and printing; the rounds are measure/ab_run.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ab_same.h"
#include "cli/command.h"
#include "cli/session_cli.h"
#include "layout/symkeys.h"
#include "measure/ab_run.h"
#include "measure/build_scope.h"
#include "measure/stats/render.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/parse_options.h"

static struct ab_plan plan;
static const char *base, *head, *workload;

static int rounds_cb(const struct lace_option *opt, const char *arg)
{
	if (!strcmp(arg, "auto"))
		plan.autorounds = true;
	else if (parse_long(arg, 2, 1000000, &plan.rounds))
		return lace_error_set(EINVAL, "-r needs a number of rounds >= 2 or 'auto', not '%s'", arg);
	else
		plan.autorounds = false;
	return 0;
}

static int layout_noise_cb(const struct lace_option *opt, const char *arg)
{
	return layout_noise_parse(opt->value, arg);
}

static const struct lace_option ab_options[] = {
	OPT_STRING('A', NULL, &plan.cmd_a, "CMD", "command A (run with /bin/sh -c)"),
	OPT_STRING('B', NULL, &plan.cmd_b, "CMD", "command B"),
	OPT_STRING(0, "base", &base, "ELF", "instead of -A: A is --workload with {elf} = ELF"),
	OPT_STRING(0, "head", &head, "ELF", "instead of -B: B is --workload with {elf} = ELF"),
	OPT_STRING(0, "workload", &workload, "CMD", "a command with {elf}, e.g. '{elf} -g 1 -l 10'"),
	OPT_BOOLEAN(0, "same-execution", &ab_same.on,
		    "with --backend qemu --kernel-a/-b: B's placement against\n"
		    "A's on recorded executions, replayed through virtual\n"
		    "layouts of both (lace-ab(1), SAME EXECUTION)"),
	OPT_INCLUDE(ab_same_options),
	OPT_INCLUDE(session_cli_event_options),
	OPT_CALLBACK('r', "rounds", NULL, "N|auto",
		     "rounds (default 10); auto: until every event is decided", rounds_cb,
		     .choices = "auto"),
	OPT_CALLBACK(0, "repeat", NULL, "N|auto", "as --rounds (lace stat's name)", rounds_cb,
		     .flags = LACE_OPTION_HIDDEN),
	OPT_INTEGER(0, "max-runs", &plan.max_runs, 2, 1000000, "N",
		    "with -r auto: at most N rounds (default 200)"),
	OPT_SECONDS(0, "max-time", &plan.max_time, "S",
		    "with -r auto: stop starting rounds after S seconds\n(default 600)"),
	OPT_INTEGER(0, "warmup", &plan.warmup, 0, 1000000, "N",
		    "N unrecorded-in-statistics rounds first (default 1)"),
	OPT_ULONG(0, "seed", &plan.seed, "N",
		  "seed of the random A/B order (default: from the clock;\nprinted)",
		  .seen = &plan.seed_given),
	OPT_PERCENT(0, "margin", &plan.margin, 0, 100, "PCT",
		    "equivalence margin in percent (default 1)"),
	OPT_PERCENT(0, "confidence", &plan.confidence, 50, 100, "PCT",
		    "confidence level in percent (default 95)"),
	OPT_CALLBACK(0, "layout-noise", &plan.layout_noise, "[EVENT=]PCT",
		     "A and B two builds: the sd of an event (of every one\nwithout EVENT=) across layouts of one build, folded\ninto its interval; repeatable", layout_noise_cb),
	OPT_INCLUDE(session_cli_report_options),
	OPT_INCLUDE(session_cli_run_options),
	OPT_INCLUDE(session_cli_backend_options),
	OPT_END(),
};

/* -A/-B, or --base/--head/--workload: one way, whole */
static int commands_check(void)
{
	if (base || head || workload) {
		if (!base || !head || !workload || plan.cmd_a || plan.cmd_b)
			return lace_usage_error("ab", "--base, --head and --workload go together, instead of -A/-B");
		if (ab_plan_workload(&plan, base, head, workload)) {
			lace_err("ab", "%s", lace_error_msg());
			return LACE_EXIT_USAGE;
		}
	}
	if (!plan.cmd_a || !plan.cmd_b || !*plan.cmd_a || !*plan.cmd_b)
		return lace_usage_error("ab", "need both -A 'CMD' and -B 'CMD' (or --base/--head/--workload)");
	return 0;
}

/* One build on both sides (`lace ab -- CMD` with no second build, say) is
 * an A/A run: a fine control, but not a comparison, so say so up front
 * (the scope ab_begin() decided and kept in the batch's header) */
static void aa_warn(const struct lace_session *s)
{
	struct build_scope sc;

	ab_batch_scope(&s->batch, &sc);
	if (!build_scope_two(&sc))
		fprintf(stderr, "lace: note: A and B are one build (%s): an A/A run, which measures "
				"the noise alone; -A/-B, --base/--head or --kernel-a/-b compare two\n",
			sc.why);
}

static int ab_main(int argc, char **argv)
{
	struct lace_session *s = &session_cli.sess;
	int rc, i;

	i = lace_parse_options("ab", argc, argv, ab_options, 0);
	if (i < 0)
		return LACE_EXIT_USAGE;
	if ((rc = session_cli_check()))
		return rc;
	if (ab_same.seen && !ab_same.on)
		return lace_usage_error("ab", "--executions, --draws, --family, --pad-points, --primary, "
					"--target, --budget, --aa and --a-only go with --same-execution");
	if (ab_same.on && layout_noise_any(&plan.layout_noise))
		return lace_usage_error("ab", "--layout-noise is for two builds' runs; --same-execution "
					"measures the layouts itself (--draws)");
	if (ab_same.on && (plan.cmd_a || plan.cmd_b || base || head || workload))
		return lace_usage_error("ab", "--same-execution compares --kernel-a and --kernel-b "
					"on one workload (-- CMD ARGS), not -A/-B");
	if (ab_same.on)
		return ab_same_main(&plan, argv + i);
	if (i < argc && (plan.cmd_a || plan.cmd_b || base || head || workload))
		return lace_usage_error("ab", "unexpected argument '%s' (quote the commands: -A 'CMD ARGS')",
					argv[i]);
	if (i < argc)
		ab_plan_same(&plan, argv + i);
	if ((rc = commands_check()) || (rc = session_cli_start()))
		return rc;
	if (ab_begin(s, &plan))
		return session_cli_begin_failed();
	fprintf(stderr, "lace: ab: seed %lu%s\n", plan.seed, plan.autorounds ? ", rounds: auto" : "");
	aa_warn(s);

	session_cli_run_begin(isatty(2));
	ab_run(s, &plan);
	session_cli_run_end();

	struct lace_ab_event *ev = ab_analyze(&s->batch);
	ab_render(session_cli_report_begin(), &s->batch, ev, &session_cli.rdr);
	free(ev);
	int write_rc = session_cli_report_end();
	return session_cli_status(ab_exit_status(s), write_rc);
}

static int cmd_ab(int argc, char **argv)
{
	session_cli_init("ab");
	build_scope_build_id_reader = symkeys_build_id; /* which builds A and B are */
	ab_plan_init(&plan);
	base = head = workload = NULL;
	ab_same_cli_init();
	int rc = ab_main(argc, argv);
	ab_plan_release(&plan);
	return session_cli_done(rc);
}

LACE_COMMAND(ab, .name = "ab", .summary = "compare two commands, interleaved, with a verdict per event",
	     .usage = "usage: lace ab [options] -A 'CMD' -B 'CMD'\n"
		      "       lace ab [options] --base ELF --head ELF --workload 'CMD {elf} ARGS'\n"
		      "       lace ab [options] [--backend qemu --kernel-a A --kernel-b B] -- CMD [ARGS]\n"
		      "       lace ab --same-execution --backend qemu --kernel-a A --kernel-b B\n"
		      "               [--executions E --draws K] [options] -- CMD [ARGS]\n"
		      "\n"
		      "Run A and B in rounds (each round runs both, in random order), compare each event\n"
		      "on the paired log ratios B/A and give a verdict: slower / faster (the whole CI lies\n"
		      "beyond the margin and Holm-adjusted p <= 1-confidence), equivalent (the whole CI lies\n"
		      "within the margin), inconclusive (with the rounds likely needed).\n"
		      "With --same-execution, the question is B's placement: executions of A and B are\n"
		      "recorded (lace stat --record) and each is replayed through K virtual layouts of\n"
		      "both builds, paired (lace replay --virtual); the effect is the mean log ratio\n"
		      "over executions and layouts, with a CI, the smallest effect the design detects\n"
		      "and a verdict per primary event (slower, faster, equivalent, inconclusive, or\n"
		      "no verdict possible).\n"
		      "Without it, A and B of two builds (or of commands lace cannot tell apart) are\n"
		      "judged as two binaries, not a placement: the output says so; --layout-noise PCT\n"
		      "folds a known layout spread into the intervals.\n"
		      "\n",
	     .options = ab_options,
	     .usage_tail = "\n"
			   "Exit status: 0, 1 when fewer than 2 rounds ran both A and B cleanly, 2 usage error,\n"
			   "128+N after signal N.\n"
			   "See lace-ab(1).\n",
	     .run = cmd_ab, .order = 41);
