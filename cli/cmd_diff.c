/* lace diff: what moved between two builds, what it costs the hot path,
 * and what is now risky.  The comparison is layout/diff.c (a pure function
 * over two images); renderings are layout/diff_output_*.c and layout/svg.c. */
#include <errno.h>
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
#include "util/fs.h"
#include "util/parse_num.h"
#include "util/parse_options.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static struct lace_diff_opts dopts;
static struct lace_diff_print_opts po;
static struct lace_rule_config rules;
static struct strvec expects;
static const char *svg, *hot;
static int fail_on;
static bool branches;
static const char *fmt_flag;
static int fmt; /* 0 text, 'j', 'c', 'm', 'b' */

static int format_cb(const struct lace_option *opt, const char *arg)
{
	if (fmt_flag && strcmp(fmt_flag, opt->long_name))
		return lace_error_set(EINVAL, "--json, --csv, --md and --bloat exclude each other");
	fmt_flag = opt->long_name;
	fmt = (int)opt->defval;
	return 0;
}

static int align_cb(const struct lace_option *opt, const char *arg)
{
	unsigned long v;

	if (parse_ulong(arg, &v) || !v || (v & (v - 1)) || v > (1ul << 30))
		return lace_error_set(EINVAL, "--min-align wants a power of two, not '%s'", arg);
	dopts.min_align = v;
	return 0;
}

/* "10", "10%" or "0.5%": a percentage from 0 to 10^6, kept as a fraction */
static int growth_cb(const struct lace_option *opt, const char *arg)
{
	double v;

	if (parse_percent(arg, -1, 1e6 + 1, &v) || v < 0 || v > 1e4)
		return lace_error_set(EINVAL, "--max-hot-growth wants a percentage such as 10%%, not '%s'", arg);
	dopts.max_hot_growth = v;
	return 0;
}

/* "4096", "4K", "2M" or "auto" (0: per image, lace-diff(1)) */
static int page_cb(const struct lace_option *opt, const char *arg)
{
	uint64_t v;

	if (!strcmp(arg, "auto")) {
		dopts.page_size = 0;
		return 0;
	}
	if (parse_size(arg, &v) || v < 64 || (v & (v - 1)) || v > (1ull << 30))
		return lace_error_set(EINVAL, "--page-size wants a power of two such as 4K or 2M (or auto), not '%s'",
				      arg);
	dopts.page_size = v;
	return 0;
}

static int fail_on_cb(const struct lace_option *opt, const char *arg)
{
	fail_on = severity_parse(arg, true);
	if (fail_on < 0)
		return lace_error_set(EINVAL, "--fail-on wants info, warning, error or never, not '%s'", arg);
	return 0;
}

static int rule_cb(const struct lace_option *opt, const char *arg)
{
	char why[256];

	if (rule_config_set(&rules, arg) < 0) {
		/* a copy: the message is formatted into the buffer it comes from */
		snprintf(why, sizeof(why), "%s", lace_error_msg());
		return lace_error_set(EINVAL, "--rule %s", why);
	}
	return 0;
}

#define OPT_FORMAT(name, f, h) OPT_CALLBACK_NOARG(0, name, NULL, h, format_cb, .defval = (f))

static const struct lace_option diff_options[] = {
	OPT_FORMAT("json", 'j', "everything as JSON (fields in lace-diff(1))"),
	OPT_FORMAT("csv", 'c', "the changed-function table, one row per change"),
	OPT_FORMAT("md", 'm', "a paste-ready Markdown summary"),
	OPT_FORMAT("bloat", 'b', "what scripts/bloat-o-meter -t OLD NEW prints, byte for\nbyte"),
	OPT_STRING(0, "svg", &svg, "FILE", "also write a layout map (4 KiB page strips) to FILE"),
	OPT_STRING(0, "hot", &hot, "FILE", "hot functions, one per line with an optional weight\n"
		   "(default: entry, irqentry, softirqentry and noinstr\ntext and functions with jump-label sites, less\n"
		   "init and cold code)"),
	OPT_CALLBACK(0, "page-size", NULL, "SIZE", "page of the page rules: 4K, 2M ... (auto: 2M for\n"
		     "x86-64 kernel text, mapped with 2 MiB pages, else 4K)", page_cb),
	OPT_CALLBACK(0, "min-align", NULL, "N", "hot-align-drop threshold in bytes (16)", align_cb),
	OPT_CALLBACK(0, "max-hot-growth", NULL, "PCT", "hot-footprint-growth threshold, percent (10)",
		     growth_cb),
	OPT_CALLBACK(0, "fail-on", NULL, "LEVEL",
		     "exit 1 on a finding at or above info|warning|error|never\n(error)", fail_on_cb,
		     .choices = "info warning error never"),
	OPT_CALLBACK(0, "rule", NULL, "ID=LEVEL",
		     "set a rule's severity (info|warning|error|off); repeatable", rule_cb),
	OPT_STRING_LIST(0, "expect", &expects, "KIND=RE",
			"a change the patch makes on purpose (KIND: entry, move,\n"
			"align, straddle; RE matches function names): its findings\n"
			"become notes that fail nothing; repeatable"),
	OPT_BOOLEAN(0, "all", &po.all, "also list functions that only shifted, and unchanged sites"),
	OPT_SET_BOOL(0, "no-branches", &branches, false,
		     "do not disassemble (no cross-region branch counts; faster)"),
	OPT_END(),
};

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
	/* a diff compares functions: of a stripped file it would say they
	 * all went away, and lace check would pass a gate on nothing */
	if (!img->has_symbols) {
		lace_err(path, "no symbol table (stripped): lace diff compares functions; give the "
			 "unstripped build (a vmlinux, not its bzImage)");
		image_free(img);
		return NULL;
	}
	return img;
}

static int cmd_diff(int argc, char **argv)
{
	struct lace_hotset hs = { 0 };

	dopts = (struct lace_diff_opts)LACE_DIFF_OPTS_DEFAULT;
	po = (struct lace_diff_print_opts){ 0 };
	svg = hot = fmt_flag = NULL;
	fail_on = LACE_SEV_ERROR;
	fmt = 0;
	branches = true;
	rule_config_init(&rules);
	struct lace_expect_set es = { 0 };
	struct lace_image *old = NULL, *new = NULL;
	struct lace_diff *d = NULL;
	int rc = LACE_EXIT_USAGE;
	int first = lace_parse_options("diff", argc, argv, diff_options, 0);
	if (first < 0)
		goto out;
	if (argc - first != 2) {
		rc = lace_usage_error("diff", "wants two ELF files, OLD and NEW (got %d)", argc - first);
		goto out;
	}
	for (size_t i = 0; i < expects.nr; i++) {
		if (expect_add(&es, expects.v[i]) < 0) {
			rc = lace_usage_error("diff", "--expect %s", lace_error_msg());
			goto out;
		}
	}
	dopts.expect = &es;
	if (hot) {
		if (hotset_load(hot, &hs) < 0) {
			lace_err(hot, "%s", lace_error_msg());
			goto out;
		}
		dopts.hot = &hs;
		po.hot_source = hot;
	}
	dopts.rules = &rules;

	if (fmt == 'b')
		branches = false; /* symbol sizes only */
	const char *opath = argv[first], *npath = argv[first + 1];
	old = load(opath, branches, 1);
	new = old ? load(npath, branches, 2) : NULL;
	if (!old || !new)
		goto out;
	if (diff_images(old, new, &dopts, &d) < 0) {
		lace_err(npath, "%s", lace_error_msg());
		goto out;
	}

	struct strbuf sb = STRBUF_INIT;
	int err = 0;
	if (fmt == 'j')
		err = diff_output_json(d, &po, &sb);
	else if (fmt == 'c')
		diff_output_csv(d, &po, &sb);
	else if (fmt == 'm')
		diff_output_md(d, &po, &sb);
	else if (fmt == 'b')
		diff_output_bloat(d, &sb);
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
	/* a declaration that excuses nothing is stale, like an unused option */
	for (size_t i = 0; i < es.n; i++)
		if (!d->expect_matched[i])
			lace_warn(NULL, "--expect %s matched no finding (a stale declaration?)", es.v[i].spec);
	if (svg) {
		diff_svg_render(d, &sb);
		err = fs_write_file(svg, sb.buf, sb.len);
		strbuf_release(&sb);
		if (err) {
			lace_err(NULL, "%s", lace_error_msg());
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
	expect_release(&es);
	strvec_clear(&expects);
	return rc;
}

LACE_COMMAND(diff, .name = "diff", .summary = "what moved between two builds, what it costs the hot path, what is risky",
	     .usage = "usage: lace diff [--json|--csv|--md|--bloat] [--svg FILE] [--hot FILE] [--min-align N]\n"
		      "                 [--max-hot-growth PCT] [--fail-on LEVEL] [--rule ID=LEVEL]... [--all]\n"
		      "                 [--page-size SIZE] [--expect KIND=RE]... [--no-branches] OLD NEW\n"
		      "\n"
		      "Compares the code layout of two builds: functions matched by name (statics by file\n"
		      "and order, compiler suffixes ignored) that changed region, size, alignment or page/\n"
		      "line straddling; per-region sizes; cross-region branches; jump-label slow paths;\n"
		      "the hot set's footprint in lines and pages; risk findings.\n"
		      "\n",
	     .options = diff_options,
	     .usage_tail = "\n"
			   "rules: noprobe-region, hot-page-straddle, hot-align-drop, jump-slowpath-hot,\n"
			   "       hot-footprint-growth, region-change, cross-region-branches, hot-layout-churn,\n"
			   "       noprobe-enter\n"
			   "expect kinds: entry (into/out of no-probe text), move (any region change),\n"
			   "       align (hot-align-drop), straddle (hot-page-straddle)\n"
			   "exit: 0 ok, 1 a finding at or above --fail-on (expected ones never), 2 bad\n"
			   "      usage or input\n",
	     .run = cmd_diff, .order = 20);
