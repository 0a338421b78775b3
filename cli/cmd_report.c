/* lace report: re-render a results file of lace stat or lace ab, finished
 * or interrupted. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "measure/render.h"
#include "measure/results.h"
#include "util/error.h"

#define REPORT_USAGE                                                                   \
	"usage: lace report [--json | --md | -x SEP] [-v] FILE\n"                       \
	"\n"                                                                             \
	"Re-render a results file written by lace stat or lace ab (--results), also one\n" \
	"of an interrupted or crashed batch; a last line cut short is ignored with a\n"   \
	"warning.\n"                                                                     \
	"\n"                                                                             \
	"      --json              one JSON object, as the command's --json\n"            \
	"      --md                Markdown\n"                                           \
	"  -x, --field-separator SEP  CSV (lace stat batches)\n"                          \
	"  -v, --verbose           add min / median / max (lace stat batches)\n"          \
	"\n"                                                                             \
	"Exit status: 0, 2 when the file cannot be read. See lace-report(1).\n"

enum { OPT_JSON = 256, OPT_MD };

int cmd_report(int argc, char **argv);
int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "md", no_argument, NULL, OPT_MD },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct lace_render_opts rdr = { .fmt = LACE_FMT_TEXT, .sep = "," };
	const char *fmt_flag = NULL;
	int c;

	while ((c = getopt_long(argc, argv, ":x:v", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			if (lace_format_flag("report", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_JSON, "--json"))
				return LACE_EXIT_USAGE;
			break;
		case OPT_MD:
			if (lace_format_flag("report", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_MD, "--md"))
				return LACE_EXIT_USAGE;
			break;
		case 'x':
			if (!*optarg)
				return lace_usage_error("report", "-x needs a separator");
			if (lace_format_flag("report", (int *)&rdr.fmt, &fmt_flag, LACE_FMT_CSV, "-x"))
				return LACE_EXIT_USAGE;
			rdr.sep = optarg; /* any string, as perf takes it */
			break;
		case 'v': rdr.verbose = true; break;
		default:
			return lace_bad_option("report", c, argv);
		}
	}
	if (optind != argc - 1)
		return lace_usage_error("report", "expected one results file");

	const char *path = argv[optind];
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
	     .usage = REPORT_USAGE, .run = cmd_report, .order = 42);
