/* lace report: re-render a results file of lace stat or lace ab, finished
 * or interrupted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "measure/stats/render.h"
#include "measure/results.h"
#include "util/error.h"
#include "util/parse_options.h"

static struct lace_render_opts rdr;
static const char *fmt_flag;

static int json_cb(const struct lace_option *opt, const char *arg)
{
	return lace_format_set((int *)&rdr.fmt, &fmt_flag, LACE_FMT_JSON, "--json");
}

static int md_cb(const struct lace_option *opt, const char *arg)
{
	return lace_format_set((int *)&rdr.fmt, &fmt_flag, LACE_FMT_MD, "--md");
}

static int csv_cb(const struct lace_option *opt, const char *arg)
{
	if (!*arg)
		return lace_error_set(EINVAL, "-x needs a separator");
	rdr.sep = arg; /* any string, as perf takes it */
	return lace_format_set((int *)&rdr.fmt, &fmt_flag, LACE_FMT_CSV, "-x");
}

static const struct lace_option report_options[] = {
	OPT_CALLBACK_NOARG(0, "json", NULL, "one JSON object, as the command's --json", json_cb),
	OPT_CALLBACK_NOARG(0, "md", NULL, "Markdown", md_cb),
	OPT_CALLBACK('x', "field-separator", NULL, "SEP", "CSV (lace stat batches)", csv_cb),
	OPT_BOOLEAN('v', "verbose", &rdr.verbose, "add min / median / max (lace stat batches)"),
	OPT_END(),
};

static int cmd_report(int argc, char **argv)
{
	rdr = (struct lace_render_opts){ .fmt = LACE_FMT_TEXT, .sep = "," };
	fmt_flag = NULL;
	int first = lace_parse_options("report", argc, argv, report_options, 0);
	if (first < 0)
		return LACE_EXIT_USAGE;
	if (first != argc - 1)
		return lace_usage_error("report", "expected one results file");

	const char *path = argv[first];
	struct lace_batch b;
	char warning[512];
	if (batch_load(&b, path, warning, sizeof(warning))) {
		fprintf(stderr, "lace: %s\n", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	if (warning[0])
		fprintf(stderr, "lace: warning: %s\n", warning);
	if (!strcmp(b.kind, "ab")) {
		if (rdr.fmt == LACE_FMT_CSV) {
			batch_release(&b);
			return lace_usage_error("report", "-x applies to lace stat results; use --json or --md");
		}
		struct lace_ab_event *ev = ab_analyze(&b);
		ab_render(stdout, &b, ev, &rdr);
		free(ev);
	} else {
		stat_render(stdout, &b, &rdr);
	}
	batch_release(&b);
	return LACE_EXIT_OK;
}

LACE_COMMAND(report, .name = "report", .summary = "re-render a results file of lace stat or lace ab",
	     .usage = "usage: lace report [--json | --md | -x SEP] [-v] FILE\n"
		      "\n"
		      "Re-render a results file written by lace stat or lace ab (--results), also one\n"
		      "of an interrupted or crashed batch; a last line cut short is ignored with a\n"
		      "warning.\n"
		      "\n",
	     .options = report_options,
	     .usage_tail = "\n"
			   "Exit status: 0, 2 when the file cannot be read. See lace-report(1).\n",
	     .run = cmd_report, .order = 42);
