/* lace diff: what moved between two builds, what it costs the hot path,
 * and what is now risky.  The comparison is layout/diff.c (a pure function
 * over two images); renderings are layout/diff_output_*.c and layout/svg.c. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "layout/diff.h"
#include "layout/diff_output.h"
#include "layout/image.h"
#include "layout/svg.h"
#include "util/error.h"
#include "util/strbuf.h"

static int parse_align(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || !v || (v & (v - 1)) || v > (1ull << 30))
		return lace_usage_error("diff", "--min-align wants a power of two, not '%s'", s);
	*out = v;
	return 0;
}

/* "10", "10%" or "0.5%": a percentage, returned as a fraction. */
static int parse_growth(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e6)
		return lace_usage_error("diff", "--max-hot-growth wants a percentage such as 10%%, not '%s'", s);
	*out = v / 100.0;
	return 0;
}

static int write_file(const char *path, const struct strbuf *sb)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		lace_err(path, "cannot create: %s", strerror(errno));
		return -1;
	}
	size_t w = fwrite(sb->buf, 1, sb->len, f);
	if (w != sb->len || fclose(f)) {
		lace_err(path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static struct lace_image *load(const char *path, bool branches, int nth)
{
	struct lace_load_opts lo = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = false, .branches = branches };
	struct lace_image *img = NULL;
	/* a kernel takes seconds to load and decode: say so on a terminal */
	bool progress = isatty(STDERR_FILENO);

	if (progress)
		fprintf(stderr, "lace diff: loading %s (%d/2)...\r", path, nth);
	int err = image_load(path, &lo, &img);
	if (progress)
		fputs("\033[K", stderr);
	if (err < 0) {
		lace_err(path, "%s", lace_error_msg());
		return NULL;
	}
	return img;
}

static int cmd_diff(int argc, char **argv)
{
	enum { O_SVG = 256, O_HOT, O_MIN_ALIGN, O_MAX_GROWTH, O_FAIL_ON, O_RULE, O_ALL, O_NO_BRANCHES };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "md", no_argument, NULL, 'm' },
		{ "svg", required_argument, NULL, O_SVG },
		{ "hot", required_argument, NULL, O_HOT },
		{ "min-align", required_argument, NULL, O_MIN_ALIGN },
		{ "max-hot-growth", required_argument, NULL, O_MAX_GROWTH },
		{ "fail-on", required_argument, NULL, O_FAIL_ON },
		{ "rule", required_argument, NULL, O_RULE },
		{ "all", no_argument, NULL, O_ALL },
		{ "no-branches", no_argument, NULL, O_NO_BRANCHES },
		{ NULL, 0, NULL, 0 },
	};
	struct lace_diff_opts dopts = LACE_DIFF_OPTS_DEFAULT;
	struct lace_diff_print_opts po = { 0 };
	struct lace_rule_config rules;
	struct lace_hotset hs = { 0 };
	const char *svg = NULL, *hot = NULL;
	int fail_on = LACE_SEV_ERROR, formats = 0, c;
	bool json = false, csv = false, md = false, branches = true;

	rule_config_init(&rules);
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; formats++; break;
		case 'c': csv = true; formats++; break;
		case 'm': md = true; formats++; break;
		case O_SVG: svg = optarg; break;
		case O_HOT: hot = optarg; break;
		case O_ALL: po.all = true; break;
		case O_NO_BRANCHES: branches = false; break;
		case O_MIN_ALIGN:
			if (parse_align(optarg, &dopts.min_align))
				return LACE_EXIT_USAGE;
			break;
		case O_MAX_GROWTH:
			if (parse_growth(optarg, &dopts.max_hot_growth))
				return LACE_EXIT_USAGE;
			break;
		case O_FAIL_ON:
			fail_on = severity_parse(optarg, true);
			if (fail_on < 0)
				return lace_usage_error("diff", "--fail-on wants info, warning, error or never, not '%s'",
							optarg);
			break;
		case O_RULE:
			if (rule_config_set(&rules, optarg) < 0)
				return lace_usage_error("diff", "--rule %s", lace_error_msg());
			break;
		default:
			return lace_bad_option("diff", c, argv);
		}
	}
	if (formats > 1)
		return lace_usage_error("diff", "--json, --csv and --md exclude each other");
	if (argc - optind != 2)
		return lace_usage_error("diff", "wants two ELF files, OLD and NEW (got %d)", argc - optind);
	if (hot) {
		if (hotset_load(hot, &hs) < 0) {
			lace_err(hot, "%s", lace_error_msg());
			return LACE_EXIT_USAGE;
		}
		dopts.hot = &hs;
		po.hot_source = hot;
	}
	dopts.rules = &rules;

	const char *opath = argv[optind], *npath = argv[optind + 1];
	struct lace_image *old = load(opath, branches, 1), *new = old ? load(npath, branches, 2) : NULL;
	struct lace_diff *d = NULL;
	int rc = LACE_EXIT_USAGE;
	if (!old || !new)
		goto out;
	if (diff_images(old, new, &dopts, &d) < 0) {
		lace_err(npath, "%s", lace_error_msg());
		goto out;
	}

	struct strbuf sb = STRBUF_INIT;
	int err = 0;
	if (json)
		err = diff_output_json(d, &po, &sb);
	else if (csv)
		diff_output_csv(d, &po, &sb);
	else if (md)
		diff_output_md(d, &po, &sb);
	else
		diff_output_text(d, &po, &sb);
	if (err < 0) {
		lace_err(NULL, "%s", lace_error_msg());
		strbuf_release(&sb);
		rc = LACE_EXIT_FAIL;
		goto out;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	if (svg) {
		diff_svg_render(d, &sb);
		err = write_file(svg, &sb);
		strbuf_release(&sb);
		if (err) {
			rc = LACE_EXIT_USAGE;
			goto out;
		}
	}
	/* main() checks that stdout was written */
	rc = fail_on != LACE_SEV_OFF && diff_max_severity(d) >= fail_on ? LACE_EXIT_FAIL : LACE_EXIT_OK;
out:
	diff_free(d);
	if (new)
		image_free(new);
	if (old)
		image_free(old);
	hotset_free(&hs);
	return rc;
}

LACE_COMMAND(diff, .name = "diff", .summary = "what moved between two builds, what it costs the hot path, what is risky",
	     .usage = "usage: lace diff [--json|--csv|--md] [--svg FILE] [--hot FILE] [--min-align N]\n"
		      "                 [--max-hot-growth PCT] [--fail-on LEVEL] [--rule ID=LEVEL]... [--all]\n"
		      "                 [--no-branches] OLD NEW\n"
		      "\n"
		      "Compares the code layout of two builds: functions matched by name (statics by file\n"
		      "and order, compiler suffixes ignored) that changed region, size, alignment or page/\n"
		      "line straddling; per-region sizes; cross-region branches; jump-label slow paths;\n"
		      "the hot set's footprint in lines and pages; risk findings.\n"
		      "\n"
		      "  --json              everything as JSON (fields in lace-diff(1))\n"
		      "  --csv               the changed-function table, one row per change\n"
		      "  --md                a paste-ready Markdown summary\n"
		      "  --svg FILE          also write a layout map (4 KiB page strips) to FILE\n"
		      "  --hot FILE          hot functions, one per line with an optional weight\n"
		      "                      (default: the entry region and functions with jump-label sites)\n"
		      "  --min-align N       hot-align-drop threshold in bytes (16)\n"
		      "  --max-hot-growth P  hot-footprint-growth threshold, percent (10)\n"
		      "  --fail-on LEVEL     exit 1 on a finding at or above info|warning|error|never (error)\n"
		      "  --rule ID=LEVEL     set a rule's severity (info|warning|error|off); repeatable\n"
		      "  --all               also list functions that only shifted, and unchanged sites\n"
		      "  --no-branches       do not disassemble (no cross-region branch counts; faster)\n"
		      "\n"
		      "rules: noprobe-region, hot-page-straddle, hot-align-drop, jump-slowpath-hot,\n"
		      "       hot-footprint-growth, region-change, cross-region-branches\n"
		      "exit: 0 ok, 1 a finding at or above --fail-on, 2 bad usage or input\n",
	     .run = cmd_diff, .order = 20);
