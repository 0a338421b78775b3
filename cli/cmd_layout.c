/* lace layout: where every piece of code in one ELF sits, and how it
 * branches.  Loading is layout/image.c; printing is layout/output_*.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "layout/image.h"
#include "layout/output.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/parse_options.h"

static struct lace_load_opts lo;
static enum layout_table what;
static bool json, csv;

/* --line, --page, --fetch: a power of two up to 1 GiB (0x40 too) */
static int pow2_cb(const struct lace_option *opt, const char *arg)
{
	unsigned long v;

	if (parse_ulong(arg, &v) || !v || v > (1ul << 30) || (v & (v - 1)))
		return lace_error_set(EINVAL, "--%s wants a power of two, not '%s'", opt->long_name, arg);
	*(unsigned *)opt->value = (unsigned)v;
	return 0;
}

/* one table at a time: --functions, --sections, ... */
static int table_cb(const struct lace_option *opt, const char *arg)
{
	enum layout_table t = (enum layout_table)(intptr_t)opt->defval;

	if (what != LAYOUT_ALL && what != t)
		return lace_error_set(EINVAL, "choose one of --functions, --sections, --regions, --jumps, --probes");
	what = t;
	return 0;
}

#define OPT_TABLE(name, t, h) OPT_CALLBACK_NOARG(0, name, NULL, h, table_cb, .defval = (t))

static const struct lace_option layout_options[] = {
	OPT_BOOLEAN(0, "json", &json, "the whole model as JSON (field names in lace-layout(1))"),
	OPT_BOOLEAN(0, "csv", &csv, "the function table as CSV (with --branches: one row\nper branch)"),
	OPT_BOOLEAN(0, "branches", &lo.branches,
		    "decode branches (libopcodes): kinds, cross-region\npairs, fetch offsets"),
	OPT_SET_BOOL(0, "no-dwarf", &lo.dwarf, false, "skip DWARF (source file:line, inlined instances)"),
	OPT_CALLBACK(0, "line", &lo.geom.line, "N", "cache line size in bytes (64)", pow2_cb),
	OPT_CALLBACK(0, "page", &lo.geom.page, "N", "page size in bytes (4096)", pow2_cb),
	OPT_CALLBACK(0, "fetch", &lo.geom.fetch, "N", "fetch block size in bytes (32)", pow2_cb),
	OPT_TABLE("functions", LAYOUT_FUNCTIONS, "print only the functions (text, JSON or CSV)"),
	OPT_TABLE("sections", LAYOUT_SECTIONS, "print only the sections"),
	OPT_TABLE("regions", LAYOUT_REGIONS, "print only the regions"),
	OPT_TABLE("jumps", LAYOUT_JUMPS, "print only the jump-label sites"),
	OPT_TABLE("probes", LAYOUT_PROBES, "print only the SDT probes"),
	OPT_END(),
};

/* Long loads (a vmlinux with DWARF takes seconds) say what they are doing
 * on a terminal; the line is erased before any other output. */
static void show_step(void *arg, const char *step)
{
	fprintf(stderr, "\rlace: %s: reading %s...\033[K", (const char *)arg, step);
}

static int cmd_layout(int argc, char **argv)
{
	lo = (struct lace_load_opts){ .geom = LACE_GEOMETRY_DEFAULT, .dwarf = true, .branches = false };
	what = LAYOUT_ALL;
	json = csv = false;
	int first = lace_parse_options("layout", argc, argv, layout_options, 0);
	if (first < 0)
		return LACE_EXIT_USAGE;
	if (json && csv)
		return lace_usage_error("layout", "--json and --csv exclude each other");
	if (first >= argc)
		return lace_usage_error("layout", "which ELF file?");
	if (argc - first > 1)
		return lace_usage_error("layout", "one ELF file at a time (got %d)", argc - first);
	if (lo.geom.line > lo.geom.page)
		return lace_usage_error("layout", "--line (%u) is larger than --page (%u)", lo.geom.line, lo.geom.page);

	const char *path = argv[first];
	struct lace_image *img;
	bool tty = isatty(STDERR_FILENO);
	if (tty) {
		lo.progress = show_step;
		lo.progress_arg = (void *)path;
	}
	int rc = image_load(path, &lo, &img);
	if (tty)
		fputs("\r\033[K", stderr);
	if (rc < 0) {
		lace_err(path, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	for (size_t i = 0; i < img->nwarnings; i++)
		lace_warn(path, "%s", img->warnings[i]);
	/* --branches with --csv (and no other table chosen) is the branch table */
	if (csv && lo.branches && what == LAYOUT_ALL)
		what = LAYOUT_BRANCHES;
	if (json)
		layout_print_json(stdout, img, what);
	else if (csv)
		layout_print_csv(stdout, img, what);
	else
		layout_print_text(stdout, img, what);
	image_free(img);
	return LACE_EXIT_OK; /* main() checks that stdout was written */
}

LACE_COMMAND(layout, .name = "layout", .summary = "where every piece of code in an ELF sits, and how it branches",
	     .usage = "usage: lace layout [--json|--csv] [--branches] [--no-dwarf] [--line N] [--page N] [--fetch N]\n"
		      "                   [--functions|--sections|--regions|--jumps|--probes] ELF\n"
		      "\n"
		      "Sections, regions (code sections, marker-bracketed ranges such as the kernel's\n"
		      "entry text, the run of .cold pieces), functions with alignment, padding, lines and\n"
		      "pages spanned, jump-label sites, SDT probes, and with --branches every branch.\n"
		      "\n",
	     .options = layout_options,
	     .run = cmd_layout, .order = 10);
