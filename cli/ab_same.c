/* lace ab --same-execution: its options and its report; the design is
 * pipeline/placement.h's, the checks pipeline/ab_same.h's. */
#include "cli/ab_same.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/command.h"
#include "cli/session_cli.h"
#include "pipeline/ab_same.h"
#include "pipeline/placement_render.h"
#include "util/error.h"
#include "util/json.h"

struct ab_same_cli ab_same;
#define scratch ab_same   /* the option table writes here */

void ab_same_cli_init(void)
{
	ab_same = (struct ab_same_cli){ .target = 1 };
}

static const struct lace_option same_options[] = {
	OPT_INTEGER(0, "executions", &scratch.executions, 2, 10000, "E",
		    "with --same-execution: recorded executions (default:\n"
		    "chosen by a pilot for --target)", .seen = &scratch.seen),
	OPT_INTEGER(0, "draws", &scratch.draws, 1, 10000, "K",
		    "with --same-execution: virtual layout pairs per\n"
		    "execution (default: chosen by the pilot)", .seen = &scratch.seen),
	OPT_STRING(0, "family", &scratch.family, "FAMILY",
		   "with --same-execution: the layouts' family, function\n"
		   "(default) or relink (lace-replay(1))", .seen = &scratch.seen),
	OPT_STRING(0, "pad-points", &scratch.pad_points, "SPEC",
		   "with --same-execution --family relink: the pad points", .seen = &scratch.seen),
	OPT_STRING(0, "primary", &scratch.primary, "EVENTS",
		   "with --same-execution: the events with a verdict,\n"
		   "declared before measuring (default\n"
		   "L1-icache-load-misses:k,iTLB-load-misses:k)", .seen = &scratch.seen),
	OPT_PERCENT(0, "target", &scratch.target, 0, 100, "PCT",
		    "with --same-execution: the smallest effect the pilot\n"
		    "designs for (default 1)", .seen = &scratch.seen),
	OPT_SECONDS(0, "budget", &scratch.budget, "S",
		    "with --same-execution: the boots' and replays' time the\n"
		    "design may take (default: none)", .seen = &scratch.seen),
	OPT_BOOLEAN(0, "aa", &scratch.aa, "with --same-execution: also A against A (a control)",
		    .seen = &scratch.seen),
	OPT_INTEGER(0, "aa-trials", &scratch.aa_trials, 1, 100000, "T",
		    "with --same-execution: T trials of A against A on the\n"
		    "recorded executions, fresh draws each: the rate of\n"
		    "false slower/faster verdicts", .seen = &scratch.seen),
	OPT_BOOLEAN(0, "a-only", &scratch.a_only,
		    "with --same-execution: record A's boots only (B does\nnot boot)",
		    .seen = &scratch.seen),
	OPT_END(),
};

const struct lace_option *ab_same_options(void)
{
	return same_options;
}

/* the qemu options that name A's and B's files; the rest go to lace stat */
static int backend_opts(struct placement_spec *o)
{
	const struct lace_session *s = &session_cli.sess;

	for (size_t i = 0; i < s->nbackend_opts; i++) {
		const char *n = s->backend_opts[i].name, *v = s->backend_opts[i].value;

		if (!strcmp(n, "kernel-a"))
			o->boot[0] = v;
		else if (!strcmp(n, "kernel-b"))
			o->boot[1] = v;
		else if (!strcmp(n, "system-map-a") || !strcmp(n, "system-map-b") ||
			 !strcmp(n, "kernel") || !strcmp(n, "system-map"))
			return lace_usage_error("ab", "--%s: --same-execution takes --kernel-a and "
						"--kernel-b (each with its vmlinux beside it)", n);
		else if (strvec_pushf(&o->stat_opts, "--%s", n) && v)
			strvec_push(&o->stat_opts, v);
	}
	if (!o->boot[0] || !o->boot[1])
		return lace_usage_error("ab", "--same-execution needs --kernel-a A and --kernel-b B "
					"(two builds of the same kernel)");
	if (s->ro.timeout_s > 0) {
		strvec_push(&o->stat_opts, "--timeout");
		strvec_pushf(&o->stat_opts, "%g", s->ro.timeout_s);
	}
	return 0;
}

static void split_into(struct strvec *v, const char *list)
{
	for (const char *e = list; *e;) {
		size_t l = strcspn(e, ",");
		if (l)
			strvec_pushf(v, "%.*s", (int)l, e);
		e += l + (e[l] == ',');
	}
}

static int options(const struct ab_same_cli *c, const struct ab_plan *plan, struct placement_spec *o,
		   char **argv)
{
	const struct lace_session *s = &session_cli.sess;
	int rc;

	if (s->mode != LACE_BACKEND_QEMU)
		return lace_usage_error("ab", "--same-execution needs --backend qemu (it records boots "
					"and replays them)");
	if (!argv[0])
		return lace_usage_error("ab", "--same-execution needs the workload: -- CMD [ARGS]");
	if (session_cli.rdr.fmt != LACE_FMT_TEXT && session_cli.rdr.fmt != LACE_FMT_JSON)
		return lace_usage_error("ab", "--same-execution reports as text or --json");
	if (c->family && strcmp(c->family, "function") && strcmp(c->family, "relink"))
		return lace_usage_error("ab", "--family wants function or relink, not '%s'", c->family);
	if (c->family && !strcmp(c->family, "relink") && !c->pad_points)
		return lace_usage_error("ab", "--family relink needs --pad-points");
	if ((rc = backend_opts(o)))
		return rc;
	for (size_t i = 0; i < s->evl.n; i++)
		strvec_push(&o->events, s->evl.ev[i].name);
	if (!o->events.nr)
		split_into(&o->events, AB_SAME_DEFAULT_EVENTS);
	split_into(&o->primaries, c->primary ? c->primary : PLACEMENT_PRIMARIES);
	if (!o->primaries.nr)
		return lace_usage_error("ab", "--primary: no event");
	o->family = c->family ? c->family : "function";
	o->pad_points = c->pad_points;
	o->seed = plan->seed_given ? plan->seed : 1;
	o->alpha = 1 - plan->confidence;
	o->margin = 100 * plan->margin;
	o->target = c->target ? c->target : 1;
	o->E = (size_t)c->executions;
	o->K = (size_t)c->draws;
	o->budget = c->budget;
	o->aa = c->aa;
	o->aa_trials = (size_t)c->aa_trials;
	o->b_boots = !c->a_only;
	o->argv = argv;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	o->jobs = s->jobs > 0 ? s->jobs : cpus > 0 ? (int)cpus : 1;
	return 0;
}

int ab_same_main(const struct ab_plan *plan, char **argv)
{
	const struct ab_same_cli *c = &ab_same;
	struct placement_spec o;
	json_t *doc = NULL;
	int rc;

	placement_spec_init(&o);
	if ((rc = options(c, plan, &o, argv)))
		goto out;
	if (ab_same_prepare(&o)) {
		lace_err(NULL, "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	int err = placement_run(&o, &doc);
	if (err) {
		lace_err(NULL, "%s", lace_error_msg());
		rc = err == -EIO ? LACE_EXIT_FAIL : LACE_EXIT_USAGE;
		goto out;
	}
	FILE *f = session_cli_report_begin();
	if (session_cli.rdr.fmt == LACE_FMT_JSON) {
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
	} else {
		placement_render_text(f, doc);
	}
	rc = session_cli_report_end();
	if (!rc && !json_is_true(json_object_get(doc, "replay_equals_live"))) {
		lace_err("ab", "an execution replayed through its own build differs from its live counts");
		rc = LACE_EXIT_FAIL;
	}
out:
	json_decref(doc);
	free((char *)o.elf[0]);
	free((char *)o.elf[1]);
	placement_spec_release(&o);
	return rc;
}
