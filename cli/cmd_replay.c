/* lace replay: feed a recording (`lace stat --record FILE`) through the
 * front-end model again, for the recorded build and for other layouts of
 * the same code (measure/replay/replay.h); the function tables come from layout/. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/replay_layouts.h"
#include "cli/replay_print.h"
#include "layout/symkeys.h"
#include "measure/model_results.h"
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"
#include "util/error.h"
#include "util/file_probe.h"
#include "util/fs.h"
#include "util/parse_options.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static struct strvec layouts;
static const char *events_arg, *max_approx_arg, *base_arg, *family_arg, *maps_dir, *permute;
static bool json, csv, window_only;
static long nvirtual, jobs, hot;
static const char *write_edit, *cpu_profile;
static unsigned long edit_align = 4096;
static unsigned long seed = 1;
static struct replay_plan plan;

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
	OPT_GROUP("Virtual layouts"),
	OPT_INTEGER(0, "virtual", &nvirtual, 0, 100000, "N",
		    "replay through N virtual layouts of the recorded\n"
		    "build and of each --layout too: draw k of each is\n"
		    "laid out by the same draw (paired)"),
	OPT_STRING(0, "family", &family_arg, "FAMILY",
		   "function (default: the input sections, or functions,\n"
		   "in another order) or relink (pads at --pad-points)"),
	OPT_STRING(0, "permute", &permute, "SECTIONS",
		   "function family with a map: the statements of these\n"
		   "input sections are reordered (default: all but\n"
		   ".head.text's; * all)"),
	OPT_ULONG(0, "seed", &seed, "S", "the draws' seed (default 1)"),
	OPT_STRING(0, "pad-points", &plan.pad_points, "SPEC",
		   "the relink family's pad points:\n"
		   "after:SECTION:UNIT:MAX or before:SYMBOL:UNIT:MAX, ..."),
	OPT_STRING_LIST(0, "pads", &plan.pads, "P1,P2",
			"one more layout of each build: these pads (bytes)\n"
			"at the pad points (a real relink's; repeatable)"),
	OPT_STRING_LIST(0, "pads-from", &plan.pads_from, "MANIFEST",
			"one more layout of each build: the pads of a relink\n"
			"(its manifest.json from lace build kernel --shuffle)"),
	OPT_BOOLEAN(0, "no-map", &plan.no_map, "lay functions out even where a link map is there"),
	OPT_STRING_LIST(0, "edit", &plan.edits, "FILE",
			"one more build: the recorded one with this edit\n"
			"(lace-replay(1), EDITS; repeatable)"),
	OPT_INTEGER(0, "hot", &hot, 1, 100000, "N",
		    "print the N hottest functions of the recorded build\n"
		    "(with the piece and offset of each), nothing else"),
	OPT_STRING(0, "write-edit", &write_edit, "FILE",
		   "with --hot N: write an edit that starts the hottest\n"
		   "function of each of the N hottest pieces at one\n"
		   "offset modulo --edit-align (a positive control)"),
	OPT_ULONG(0, "edit-align", &edit_align, "A", "--write-edit's alignment (default 4096)"),
	OPT_STRING(0, "cpu-profile", &cpu_profile, "NAME",
		   "replay on this CPU profile's front end (default:\n"
		   "the recording's; the stream itself is the same)"),
	OPT_STRING(0, "write-maps", &maps_dir, "DIR",
		   "write each virtual layout as DIR/NAME.System.map"),
	OPT_INTEGER('j', "jobs", &jobs, 1, 1024, "N", "layouts replayed at once (default: the CPUs)"),
	OPT_GROUP("Output"),
	OPT_BOOLEAN(0, "json", &json, "JSON output"),
	OPT_BOOLEAN(0, "csv", &csv, "CSV output: layout,event,value"),
	OPT_END(),
};

#define MAX_EVENTS 16


/* Rows 1.. of the plan, a batch at a time: each one's pieces exist only
 * while its batch runs (hundreds of virtual layouts of a kernel). */
static int replay_rows(const char *file, const struct lace_record *rec, struct replay_row *rows,
		       size_t nrows, double limit)
{
	const char *object = !strcmp(rec->builds[0].role, "kernel") ? NULL : rec->builds[0].path;
	size_t batch = jobs > 8 ? (size_t)jobs : 8;

	for (size_t r0 = 1; r0 < nrows; r0 += batch) {
		size_t n = r0 + batch <= nrows ? batch : nrows - r0, failed = 0;
		struct replay_layout *lay = xcalloc(n, sizeof(*lay));
		const struct replay_layout **lp = xcalloc(n, sizeof(*lp));
		struct replay_result *res = xcalloc(n, sizeof(*res));
		char **names = xcalloc(n, sizeof(*names));
		int err = 0;

		for (size_t i = 0; i < n && !err; i++) {
			err = replay_plan_layout(&plan, r0 + i, object, &lay[i], &names[i]);
			lp[i] = &lay[i];
		}
		if (err)
			lace_err(NULL, "%s", lace_error_msg());
		else if ((err = replay_run_many(rec, lp, n, res, (unsigned)jobs, &failed)))
			lace_err(file, "%s", lace_error_msg());
		for (size_t i = 0; i < n; i++) {
			struct replay_row *row = &rows[r0 + i];

			row->name = names[i];
			row->res = res[i];
			row->carried = true;
			replay_plan_row(&plan, r0 + i, &row->info);
			/* the names of the approximate pieces point into the plan,
			 * which outlives the rows */
			if (!err && replay_refuse(names[i], &res[i], limit))
				err = -EINVAL;
			if (!err && maps_dir && (row->info.draw || row->info.pads ||
						 plan.builds[row->info.build].edit) &&
			    (err = replay_plan_write_map(&plan, r0 + i, maps_dir)))
				lace_err(maps_dir, "%s", lace_error_msg());
			free((void *)lay[i].new);
		}
		free(lay);
		free(lp);
		free(res);
		free(names);
		if (err)
			return err;
	}
	return 0;
}



static void options_reset(void)
{
	strvec_clear(&layouts);
	strvec_clear(&plan.pads);
	strvec_clear(&plan.pads_from);
	strvec_clear(&plan.edits);
	hot = 0;
	write_edit = cpu_profile = NULL;
	edit_align = 4096;
	events_arg = max_approx_arg = base_arg = family_arg = maps_dir = permute = NULL;
	json = csv = window_only = false;
	nvirtual = 0;
	jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	seed = 1;
	plan = (struct replay_plan){ .pads = STRVEC_INIT, .pads_from = STRVEC_INIT, .edits = STRVEC_INIT };
}

static int cmd_replay(int argc, char **argv)
{
	struct lace_record rec;
	struct replay_row *rows = NULL;
	size_t nrows = 0;
	int ev[MAX_EVENTS], nev, i, rc = LACE_EXIT_OK;
	double limit = 1.0;
	char *own = NULL;

	options_reset();
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
	if (family_arg && vl_family_parse(family_arg, &plan.fam.kind))
		return lace_usage_error("replay", "--family: %s", lace_error_msg());
	plan.fam.seed = seed;
	plan.fam.permute = permute;
	plan.nvirtual = (unsigned)nvirtual;
	if (write_edit && !hot)
		return lace_usage_error("replay", "--write-edit needs --hot N (how many pieces)");
	if (!edit_align || edit_align & (edit_align - 1))
		return lace_usage_error("replay", "--edit-align %lu: not a power of two", edit_align);
	if (maps_dir && !fs_is_dir(maps_dir))
		return lace_usage_error("replay", "--write-maps %s: not a folder", maps_dir);
	if ((nev = replay_events_parse(events_arg, ev, MAX_EVENTS)) < 0)
		return LACE_EXIT_USAGE;

	record_init(&rec);
	if (record_file_read(argv[i], &rec)) {
		lace_err(NULL, "%s", lace_error_msg());
		record_free(&rec);
		return LACE_EXIT_USAGE;
	}
	if (cpu_profile && (rc = replay_record_profile(&rec, cpu_profile)))
		goto out;
	bool win = window_only || rec.window,
	     more = layouts.nr || nvirtual || plan.pads.nr || plan.pads_from.nr || plan.edits.nr || hot;
	if (more && !rec.nbuilds) {
		lace_err(argv[i], "the recording names no build to carry addresses from");
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (more && (!(own = replay_recorded_elf(argv[i], &rec.builds[0], base_arg)) ||
		     !replay_same_machine(own, &layouts))) {
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	/* a recording of a kernel in large pages: each layout maps its own */
	if (rec.cfg.large_page && rec.cfg.large_lo < rec.cfg.large_hi) {
		plan.large_page = rec.cfg.large_page;
		plan.page = rec.cfg.page;
	}
	if (more && replay_plan_load(&plan, own, (const char *const *)layouts.v, layouts.nr)) {
		lace_err(NULL, "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (hot) {
		json_t *h = replay_plan_hot(&plan, &rec, write_edit ? SIZE_MAX : (size_t)hot);
		if (!h) {
			lace_err(argv[i], "%s", lace_error_msg());
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		if (write_edit && (rc = replay_write_hot_edit(&h, hot, edit_align, write_edit)))
			goto out;
		replay_print_hot(h, json);
		json_decref(h);
		goto out;
	}
	nrows = more ? replay_plan_nrows(&plan) : 1;
	rows = xcalloc(nrows, sizeof(*rows));
	rows[0].name = xstrdup("recorded");
	if (replay_run(&rec, NULL, &rows[0].res)) {
		lace_err(argv[i], "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (replay_rows(argv[i], &rec, rows, nrows, limit)) {
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	replay_print(argv[i], &rec, rows, nrows, ev, nev, win, json ? 1 : csv ? 2 : 0);
out:
	for (size_t r = 0; r < nrows; r++) {
		free((char *)rows[r].name);
		replay_result_free(&rows[r].res);
	}
	free(rows);
	free(own);
	replay_plan_free(&plan);
	record_free(&rec);
	strvec_clear(&layouts);
	strvec_clear(&plan.pads);
	strvec_clear(&plan.pads_from);
	strvec_clear(&plan.edits);
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
