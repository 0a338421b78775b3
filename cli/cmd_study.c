/* lace study: the built-in case study end to end. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "pipeline/study.h"
#include "util/error.h"

static const char study_usage[] =
"usage: lace study [--backend auto|hw|sim] [--quick] [--out DIR] [--shuffle K]\n"
"                  [--seed S] [--no-build] [--report-only]\n"
"\n"
"Builds every placement variant of the built-in study code (lace build --all)\n"
"and K randomized-layout builds of baseline, diffs each against baseline, measures\n"
"the workloads on each, and answers four questions with numbers and figures:\n"
"  1. the cost of a disabled tracepoint in the hash-fault path, against the\n"
"     layout noise floor of the randomized builds;\n"
"  2. PTEs created old vs young;\n"
"  3. instructions per call of the 4K and 64K insert paths;\n"
"  4. entry text moved out and slow paths pushed cold, with lace ab verdicts\n"
"     next to the lace diff findings.\n"
"Writes DIR/report.md, DIR/report.html (self-contained, SVG figures) and\n"
"DIR/results.json, and prints a summary.\n"
"\n"
"  --backend B     auto (default): hardware counters when the CPU counts\n"
"                  L1-icache and iTLB events, else the simulator; hw; sim\n"
"  --quick         smaller workloads and 2 randomized builds (about a minute)\n"
"  --out DIR       output folder (default build/study)\n"
"  --shuffle K     randomized builds of baseline (default 5; --quick: 2)\n"
"  --seed S        seed of the randomized builds (default 1)\n"
"  --no-build      reuse DIR/variants when it exists\n"
"  --report-only   re-render the reports from DIR/results.json\n"
"\n"
"Exit status: 0, 1 when a step could not be measured, 2 on usage errors or\n"
"when nothing could be built.\n";

/* Steps that recorded "not_measured": the report says why for each. */
static size_t count_not_measured(const json_t *j)
{
	size_t n = 0, i;
	const char *k;
	json_t *v;

	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v)
			n += !strcmp(k, "not_measured") ? 1 : count_not_measured(v);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			n += count_not_measured(v);
	}
	return n;
}

static int cmd_study(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "quick", no_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "shuffle", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-build", no_argument, NULL, 'n' },
		{ "report-only", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct study_opts o = { .out_dir = "build/study", .backend = "auto", .seed = 1,
				.progress = isatty(2) };
	int shuffle = -1, c;
	bool report_only = false;

	while ((c = getopt_long(argc, argv, ":b:qo:k:s:nR", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'b':
			if (strcmp(optarg, "auto") && strcmp(optarg, "hw") && strcmp(optarg, "sim"))
				return lace_usage_error("study", "--backend wants auto, hw or sim, not '%s'", optarg);
			o.backend = optarg;
			break;
		case 'q': o.quick = true; break;
		case 'o': o.out_dir = optarg; break;
		case 'k':
			shuffle = (int)strtol(optarg, &end, 10);
			if (*end || shuffle < 0 || shuffle > 100)
				return lace_usage_error("study", "--shuffle wants 0..100, not '%s'", optarg);
			break;
		case 's':
			o.seed = strtoul(optarg, &end, 10);
			if (*end || !*optarg)
				return lace_usage_error("study", "--seed wants a number, not '%s'", optarg);
			break;
		case 'n': o.keep_variants = true; break;
		case 'R': report_only = true; break;
		default:
			return lace_bad_option("study", c, argv);
		}
	}
	if (optind < argc)
		return lace_usage_error("study", "unexpected argument '%s'", argv[optind]);
	o.shuffle = shuffle >= 0 ? (unsigned)shuffle : o.quick ? 2 : 5;

	json_t *res = NULL;
	if (report_only) {
		char path[4096];
		json_error_t je;
		snprintf(path, sizeof(path), "%s/results.json", o.out_dir);
		res = json_load_file(path, 0, &je);
		if (!res) {
			lace_err(path, "%s", je.text);
			return LACE_EXIT_USAGE;
		}
	} else if (study_run(&o, &res) < 0) {
		lace_err("study", "%s", lace_error_msg());
		/* keep whatever was measured */
		if (res)
			study_write_reports(res, o.out_dir);
		json_decref(res);
		return LACE_EXIT_USAGE;
	}
	if (study_write_reports(res, o.out_dir) < 0) {
		lace_err("study", "%s", lace_error_msg());
		json_decref(res);
		return LACE_EXIT_USAGE;
	}
	study_print_summary(res, stdout);
	printf("\nreport: %s/report.md, %s/report.html, %s/results.json\n", o.out_dir, o.out_dir,
	       o.out_dir);
	size_t missing = count_not_measured(res);
	json_decref(res);
	if (missing) {
		lace_err("study", "%zu step%s could not be measured (see the report)", missing,
			 missing == 1 ? "" : "s");
		return LACE_EXIT_FAIL;
	}
	return 0;
}

LACE_COMMAND(study, .name = "study", .summary = "the built-in case study end to end: build, diff, measure, report",
	     .usage = study_usage, .run = cmd_study, .order = 70);
