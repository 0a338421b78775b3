/* lace layout: where every piece of code in one ELF sits, and how it
 * branches.  Loading is layout/image.c; printing is layout/output_*.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "layout/image.h"
#include "layout/output.h"
#include "util/error.h"

static int parse_size(const char *opt, const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || !v || v > (1ul << 30) || (v & (v - 1)) || s[0] == '-')
		return lace_usage_error("layout", "%s wants a power of two, not '%s'", opt, s);
	*out = (unsigned)v;
	return 0;
}

/* Long loads (a vmlinux with DWARF takes seconds) say what they are doing
 * on a terminal; the line is erased before any other output. */
static void show_step(void *arg, const char *step)
{
	fprintf(stderr, "\rlace: %s: reading %s...\033[K", (const char *)arg, step);
}

static int cmd_layout(int argc, char **argv)
{
	enum { O_NO_DWARF = 256, O_LINE, O_PAGE, O_FETCH, O_FUNCS, O_SECS, O_REGS, O_JUMPS, O_PROBES };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "branches", no_argument, NULL, 'b' },
		{ "no-dwarf", no_argument, NULL, O_NO_DWARF },
		{ "line", required_argument, NULL, O_LINE },
		{ "page", required_argument, NULL, O_PAGE },
		{ "fetch", required_argument, NULL, O_FETCH },
		{ "functions", no_argument, NULL, O_FUNCS },
		{ "sections", no_argument, NULL, O_SECS },
		{ "regions", no_argument, NULL, O_REGS },
		{ "jumps", no_argument, NULL, O_JUMPS },
		{ "probes", no_argument, NULL, O_PROBES },
		{ NULL, 0, NULL, 0 },
	};
	struct lace_load_opts lo = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = true, .branches = false };
	enum layout_table what = LAYOUT_ALL;
	bool json = false, csv = false;
	int c;

	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'c': csv = true; break;
		case 'b': lo.branches = true; break;
		case O_NO_DWARF: lo.dwarf = false; break;
		case O_LINE: if (parse_size("--line", optarg, &lo.geom.line)) return LACE_EXIT_USAGE; break;
		case O_PAGE: if (parse_size("--page", optarg, &lo.geom.page)) return LACE_EXIT_USAGE; break;
		case O_FETCH: if (parse_size("--fetch", optarg, &lo.geom.fetch)) return LACE_EXIT_USAGE; break;
		case O_FUNCS:
		case O_SECS:
		case O_REGS:
		case O_JUMPS:
		case O_PROBES: {
			enum layout_table t = c == O_FUNCS ? LAYOUT_FUNCTIONS : c == O_SECS ? LAYOUT_SECTIONS
					    : c == O_REGS  ? LAYOUT_REGIONS
					    : c == O_JUMPS ? LAYOUT_JUMPS : LAYOUT_PROBES;
			if (what != LAYOUT_ALL && what != t)
				return lace_usage_error("layout", "choose one of --functions, --sections, --regions, --jumps, --probes");
			what = t;
			break;
		}
		default:
			return lace_bad_option("layout", c, argv);
		}
	}
	if (json && csv)
		return lace_usage_error("layout", "--json and --csv exclude each other");
	if (optind >= argc)
		return lace_usage_error("layout", "which ELF file?");
	if (argc - optind > 1)
		return lace_usage_error("layout", "one ELF file at a time (got %d)", argc - optind);
	if (lo.geom.line > lo.geom.page)
		return lace_usage_error("layout", "--line (%u) is larger than --page (%u)", lo.geom.line, lo.geom.page);

	const char *path = argv[optind];
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
		      "\n"
		      "  --json          the whole model as JSON (field names in lace-layout(1))\n"
		      "  --csv           the function table as CSV (with --branches: one row per branch)\n"
		      "  --branches      decode branches (libopcodes): kinds, cross-region pairs, fetch offsets\n"
		      "  --no-dwarf      skip DWARF (source file:line, inlined instances)\n"
		      "  --line N        cache line size in bytes (64)\n"
		      "  --page N        page size in bytes (4096)\n"
		      "  --fetch N       fetch block size in bytes (32)\n"
		      "  --functions, --sections, --regions, --jumps, --probes\n"
		      "                  print only that table (text, JSON or CSV)\n",
	     .run = cmd_layout, .order = 10);
