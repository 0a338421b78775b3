/* lace compare: two sides of saved batches (lace stat results, perf stat
 * -x or -j output), unpaired, with lace ab's verdicts.  The options and
 * printing; reading is measure/perf_import.c's, the analysis
 * measure/stats/compare.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/command.h"
#include "measure/stats/compare.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/parse_options.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static struct strvec side_a, side_b;
static long runs;
static double margin, confidence, session_noise;
static struct layout_noise layout_noise;
static const char *sep;
static bool json;

static int layout_noise_cb(const struct lace_option *opt, const char *arg)
{
	return layout_noise_parse(opt->value, arg);
}

static const struct lace_option compare_options[] = {
	OPT_STRING_LIST('A', NULL, &side_a, "FILE", "a batch of side A (repeat: A1, A2 ...)"),
	OPT_STRING_LIST('B', NULL, &side_b, "FILE", "a batch of side B (repeat)"),
	OPT_INTEGER(0, "runs", &runs, 2, 1000000, "N",
		    "perf stat -r N output: N (perf does not print it);\nFILE@N sets it for one file"),
	OPT_STRING('x', "field-separator", &sep, "SEP", "perf stat -x SEP output's separator (default ,)"),
	OPT_PERCENT(0, "margin", &margin, 0, 100, "PCT", "equivalence margin in percent (default 1)"),
	OPT_PERCENT(0, "confidence", &confidence, 50, 100, "PCT",
		    "confidence level in percent (default 95)"),
	OPT_PERCENT(0, "session-noise", &session_noise, 0, 100, "PCT",
		    "with one batch a side: how much two sessions may differ\nby themselves (a verdict must clear it)"),
	OPT_CALLBACK(0, "layout-noise", &layout_noise, "[EVENT=]PCT",
		     "A and B two builds: the sd of an event (of every one\nwithout EVENT=) across layouts of one build, folded\ninto its interval; repeatable", layout_noise_cb),
	OPT_BOOLEAN(0, "json", &json, "one JSON object (schema lace-compare)"),
	OPT_END(),
};

/* FILE@N: N runs for that file, unless FILE@N itself exists */
static int load(struct lace_import *im, const char *arg)
{
	const char *at = strrchr(arg, '@');
	long n = runs;
	struct stat st;
	char *path = xstrdup(arg);

	if (at && stat(arg, &st)) {
		if (parse_long(at + 1, 2, 1000000, &n)) {
			free(path);
			memset(im, 0, sizeof(*im));
			return lace_error_set(EINVAL, "%s: the runs after @ must be a number >= 2", arg);
		}
		path[at - arg] = '\0';
	}
	int err = import_load(im, path, sep, (size_t)n);
	free(path);
	return err;
}

static int load_side(struct compare_side *s, const struct strvec *files)
{
	s->batches = xcalloc(files->nr, sizeof(*s->batches));
	for (size_t i = 0; i < files->nr; i++) {
		if (load(&s->batches[i], files->v[i])) {
			import_release(&s->batches[i]); /* what it read before the error */
			return -1;
		}
		s->nbatches++;
	}
	return 0;
}

static int compare_main(int argc, char **argv)
{
	struct compare c = { 0 };
	int i = lace_parse_options("compare", argc, argv, compare_options, 0);

	if (i < 0)
		return LACE_EXIT_USAGE;
	if (i < argc) {
		if (side_a.nr || side_b.nr || argc - i != 2)
			return lace_usage_error("compare", "give two batches, A B, or each side with -A FILE -B FILE");
		strvec_push(&side_a, argv[i]);
		strvec_push(&side_b, argv[i + 1]);
	}
	if (!side_a.nr || !side_b.nr)
		return lace_usage_error("compare", "need batches of both sides: A B, or -A FILE ... -B FILE ...");
	c.margin = margin;
	c.confidence = confidence;
	c.session_noise = session_noise;
	c.layout_noise = layout_noise; /* compare_release() frees it */
	memset(&layout_noise, 0, sizeof(layout_noise));
	if (load_side(&c.a, &side_a) || load_side(&c.b, &side_b) || compare_analyze(&c)) {
		fprintf(stderr, "lace: compare: %s\n", lace_error_msg());
		compare_release(&c);
		return LACE_EXIT_USAGE;
	}
	if (json) {
		json_t *j = compare_json(&c);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		compare_render_text(stdout, &c);
	}
	compare_release(&c);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "lace: compare: cannot write the output: %s\n", strerror(errno));
		return LACE_EXIT_FAIL;
	}
	return LACE_EXIT_OK;
}

static int cmd_compare(int argc, char **argv)
{
	strvec_init(&side_a);
	strvec_init(&side_b);
	runs = 0;
	margin = 0.01;
	confidence = 0.95;
	session_noise = 0;
	memset(&layout_noise, 0, sizeof(layout_noise));
	sep = NULL;
	json = false;
	int rc = compare_main(argc, argv);
	layout_noise_release(&layout_noise); /* when compare_main() did not take it */
	strvec_clear(&side_a);
	strvec_clear(&side_b);
	return rc;
}

LACE_COMMAND(compare, .name = "compare",
	     .summary = "compare saved batches of two sessions (reboots), with a verdict per event",
	     .usage = "usage: lace compare [options] A B\n"
		      "       lace compare [options] -A A1 -B B1 [-A A2 -B B2 ...]\n"
		      "\n"
		      "Compare batches saved in separate sessions, e.g. on two kernels: lace stat results\n"
		      "files (-o), perf stat -x SEP output, perf stat -j output (told apart by content).\n"
		      "Unpaired (Welch's t on the log ratio of the means); several batches per side are\n"
		      "pooled and drift between them is called out.  Verdicts as lace ab's: slower /\n"
		      "faster / equivalent / inconclusive with the margin.  Between two builds (or\n"
		      "batches that cannot say, as perf output) a verdict judges the two binaries, not\n"
		      "their placement: the output says so (lace ab --same-execution asks that).\n"
		      "\n",
	     .options = compare_options,
	     .usage_tail = "\n"
			   "Exit status: 0, 2 usage error or a file that cannot be read. See lace-compare(1).\n",
	     .run = cmd_compare, .order = 43);
