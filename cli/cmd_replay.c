/* lace replay: feed a recording (`lace stat --record FILE`) through the
 * front-end model again, for the recorded build and for other layouts of
 * the same code (measure/replay/replay.h); the function tables come from layout/. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/replay_print.h"
#include "layout/symkeys.h"
#include "measure/model_results.h"
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"
#include "util/error.h"
#include "util/file_probe.h"
#include "util/parse_options.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static struct strvec layouts;
static const char *events_arg, *max_approx_arg, *base_arg;
static bool json, csv, window_only;

static const struct lace_option replay_options[] = {
	OPT_STRING_LIST(0, "layout", &layouts, "ELF",
			"replay through this build of the same code too\n(repeatable)"),
	OPT_STRING(0, "base", &base_arg, "ELF",
		   "the recorded build, when it is not where the\n"
		   "recording says (its build-id must be the recorded one)"),
	OPT_STRING('e', "events", &events_arg, "EVENTS",
		   "comma-separated simulator events (default:\n"
		   "instructions, L1-icache-load-misses, iTLB-load-misses,\n"
		   "stlb-misses, fetch-blocks)"),
	OPT_STRING(0, "max-approx", &max_approx_arg, "PCT",
		   "refuse a layout when more than PCT% of the executed\n"
		   "instructions are carried over approximately (default 1)"),
	OPT_BOOLEAN(0, "window", &window_only, "count the measurement windows (default: what\n"
						"the recorded run counted)"),
	OPT_BOOLEAN(0, "json", &json, "JSON output"),
	OPT_BOOLEAN(0, "csv", &csv, "CSV output: layout,event,value"),
	OPT_END(),
};

#define MAX_EVENTS 16

/* The events asked for, as sim_event_index()es; a count or -1 (printed). */
static int events_parse(int *idx)
{
	const char *def = "instructions,L1-icache-load-misses,iTLB-load-misses,stlb-misses,"
			  "fetch-blocks";
	char *copy = xstrdup(events_arg ? events_arg : def), *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = sim_event_index(tok);
		if (i < 0 || n == MAX_EVENTS) {
			lace_usage_error("replay", "-e %s: not an event the simulator counts", tok);
			free(copy);
			return -1;
		}
		idx[n++] = i;
	}
	free(copy);
	if (!n)
		lace_usage_error("replay", "-e: no event");
	return n ? n : -1;
}

static struct replay_sym *syms_of(const struct symkeys *k)
{
	struct replay_sym *v = xcalloc(k->n, sizeof(*v));

	for (size_t i = 0; i < k->n; i++)
		v[i] = (struct replay_sym){ k->v[i].key, k->v[i].name, k->v[i].addr, k->v[i].size };
	return v;
}

/* The recording's own build ("user" or "kernel"), or NULL. */
static const struct lace_record_build *own_build(const struct lace_record *r)
{
	return r->nbuilds ? &r->builds[0] : NULL;
}

static int cmd_replay(int argc, char **argv)
{
	struct lace_record rec;
	struct symkeys own = { 0 };
	struct replay_sym *own_syms = NULL;
	struct replay_row *rows = NULL;
	size_t nrows = 0;
	int ev[MAX_EVENTS], nev, i, rc = LACE_EXIT_OK;
	double limit = 1.0;
	unsigned own_machine = 0;   /* e_machine of the recorded build, 0: unknown */

	strvec_clear(&layouts);
	events_arg = max_approx_arg = base_arg = NULL;
	json = csv = window_only = false;
	i = lace_parse_options("replay", argc, argv, replay_options, 0);
	if (i < 0)
		return LACE_EXIT_USAGE;
	if (i + 1 != argc)
		return lace_usage_error("replay", "one recording expected (lace replay FILE)");
	if (json && csv)
		return lace_usage_error("replay", "--json and --csv exclude each other");
	if (max_approx_arg) {
		char *end;
		limit = strtod(max_approx_arg, &end);
		if (end == max_approx_arg || *end || limit < 0 || limit > 100)
			return lace_usage_error("replay", "--max-approx %s: a percentage, 0 to 100",
						max_approx_arg);
	}
	if ((nev = events_parse(ev)) < 0)
		return LACE_EXIT_USAGE;

	record_init(&rec);
	if (record_file_read(argv[i], &rec)) {
		lace_err(NULL, "%s", lace_error_msg());
		record_free(&rec);
		return LACE_EXIT_USAGE;
	}
	bool win = window_only || rec.window;
	const struct lace_record_build *b = own_build(&rec);
	if (layouts.nr) {
		if (!b) {
			lace_err(argv[i], "the recording names no build to carry addresses from");
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		/* a kernel's recorded build is its boot image (bzImage): the
		 * vmlinux beside it holds the functions */
		char *src = base_arg || strcmp(b->role, "kernel") ? NULL : symkeys_build_of(b->path);
		int lerr = symkeys_load(base_arg ? base_arg : src ? src : b->path, &own);
		struct file_facts f;

		/* the layouts must be builds for the same machine */
		if (!lerr && !file_probe(base_arg ? base_arg : src ? src : b->path, &f))
			own_machine = f.machine;
		free(src);
		if (lerr) {
			lace_err(NULL, "%s (the recorded build)", lace_error_msg());
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		if (b->build_id[0] && strcmp(b->build_id, own.build_id)) {
			if (base_arg)
				lace_err(base_arg, "not the recorded build (build-id %s; %s recorded "
					 "build-id %s of %s)", own.build_id[0] ? own.build_id : "none",
					 argv[i], b->build_id, b->path);
			else
				lace_err(b->path, "not the recorded build any more (build-id %s, recorded %s)",
					 own.build_id[0] ? own.build_id : "none", b->build_id);
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		own_syms = syms_of(&own);
	}
	rows = xcalloc(layouts.nr + 1, sizeof(*rows));
	rows[0].name = "recorded";
	if (replay_run(&rec, NULL, &rows[0].res)) {
		lace_err(argv[i], "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	nrows = 1;
	for (size_t l = 0; l < layouts.nr; l++) {
		struct symkeys nk;
		struct replay_sym *nsyms;
		struct file_facts lf;
		if (symkeys_load(layouts.v[l], &nk)) {
			lace_err(NULL, "%s", lace_error_msg());
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		/* one line of lace's own, not "all of it carried approximately" */
		if (own_machine && !file_probe(layouts.v[l], &lf) && lf.machine != own_machine) {
			lace_err(layouts.v[l], "an ELF for machine %u, the recorded build's is %u: "
				 "not a build of the same code", lf.machine, own_machine);
			symkeys_free(&nk);
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		if (!nk.n) {
			lace_err(layouts.v[l], "no function symbols (stripped?): nothing to carry "
				 "the executed addresses by");
			symkeys_free(&nk);
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		nsyms = syms_of(&nk);
		struct replay_layout lay = { own_syms, own.n, nsyms, nk.n,
					     !strcmp(b->role, "kernel") ? NULL : b->path };
		struct replay_row *r = &rows[nrows];
		r->name = layouts.v[l];
		r->carried = true;
		int err = replay_run(&rec, &lay, &r->res);
		nrows++;
		free(nsyms);
		/* the names of the approximate functions point into nk: copy */
		for (size_t f = 0; f < r->res.napprox_fns; f++)
			r->res.approx_fns[f].name = xstrdup(r->res.approx_fns[f].name);
		symkeys_free(&nk);
		if (err) {
			lace_err(argv[i], "%s", lace_error_msg());
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		if (replay_refuse(layouts.v[l], &r->res, limit)) {
			rc = LACE_EXIT_USAGE;
			goto out;
		}
	}
	replay_print(argv[i], &rec, rows, nrows, ev, nev, win, json ? 1 : csv ? 2 : 0);
out:
	for (size_t r = 0; r < nrows; r++) {
		if (rows[r].carried)
			for (size_t f = 0; f < rows[r].res.napprox_fns; f++)
				free((char *)rows[r].res.approx_fns[f].name);
		replay_result_free(&rows[r].res);
	}
	free(rows);
	free(own_syms);
	symkeys_free(&own);
	record_free(&rec);
	strvec_clear(&layouts);
	return rc;
}

LACE_COMMAND(replay, .name = "replay",
	     .summary = "replay a recording through the model, for other layouts too",
	     .usage = "usage: lace replay [options] FILE\n"
		      "\n"
		      "Feed the code stream recorded by 'lace stat --record FILE' through lace's\n"
		      "front-end model again: for the recorded build (the counts of the recorded\n"
		      "run, exactly), and for each --layout, another build of the same code, with\n"
		      "every executed address carried over by function and offset.\n"
		      "\n",
	     .options = replay_options,
	     .usage_tail = "\n"
			   "Exit status: 0; 2 usage error, a file that is not a recording, or a\n"
			   "layout whose code differs (above --max-approx).\n"
			   "See lace-replay(1) and doc/record-format.md.\n",
	     .run = cmd_replay, .order = 45);
