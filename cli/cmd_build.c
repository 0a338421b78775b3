/* lace build: compile the study code (probes/, hashmmu/, the workloads in
 * bench/) once per placement variant: a linker script from
 * linker_scripts/ plus compiler flags, both named in
 * linker_scripts/variants.conf.  Optionally K randomized-layout builds of
 * the baseline (--shuffle K --seed S), to measure how much layout alone
 * moves the numbers.
 *
 * Each variant goes to OUT/<name>/: the programs, obj/, link.ld (shuffled
 * builds), build.log and manifest.json.  The engine is variants/ (the INI
 * model, the plan, shuffled scripts, the driver, the manifest); this file
 * parses the options, prints, and picks the exit status. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build_kernel.h"
#include "cli/command.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "variants/build.h"
#include "variants/config.h"
#include "variants/plan.h"

#define CMD "build"

static void print_progress(void *data, const char *phase, size_t done, size_t total, int end)
{
	if (end)
		fputc('\n', stderr);
	else
		fprintf(stderr, "\rlace build: %s %zu/%zu ", phase, done, total);
}

static void list_variants(const struct variants_config *c)
{
	for (size_t i = 0; i < c->nvariants; i++)
		printf("%-16s %-22s %s\n", c->variants[i].name, c->variants[i].script,
		       c->variants[i].description ? c->variants[i].description : "");
}

/* a count in [0, max] (decimal), or with max ULONG_MAX a seed (0x too) */
static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	long v;

	if (max == ULONG_MAX)
		return parse_ulong(s, out);
	if (parse_long(s, 0, (long)max, &v))
		return -1;
	*out = (unsigned long)v;
	return 0;
}

static void split_commas(struct strvec *l, const char *s)
{
	char *save = NULL, *copy = xstrdup(s);

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		strvec_push(l, t);
	free(copy);
}

struct build_opts {
	struct strvec names, programs;
	unsigned long shuffle, seed, jobs;
	const char *out, *ldscript, *cflags;
	int all, list, have_seed, have_out;
};

/* The options; LACE_EXIT_OK or a usage error already printed. */
static int parse_options(int argc, char **argv, struct build_opts *o)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "all", no_argument, NULL, 'a' },
		{ "shuffle", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "ldscript", required_argument, NULL, 'T' },
		{ "cflags", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "program", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, ":v:ak:s:T:c:o:j:lp:", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			split_commas(&o->names, optarg);
			break;
		case 'p':
			split_commas(&o->programs, optarg);
			break;
		case 'a':
			o->all = 1;
			break;
		case 'k':
			if (parse_count(optarg, 1000, &o->shuffle) || !o->shuffle)
				return lace_usage_error(CMD, "--shuffle takes a count from 1 to 1000, not '%s'",
							optarg);
			break;
		case 's':
			if (parse_count(optarg, ULONG_MAX, &o->seed))
				return lace_usage_error(CMD, "--seed takes a non-negative integer, not '%s'",
							optarg);
			o->have_seed = 1;
			break;
		case 'T':
			o->ldscript = optarg;
			break;
		case 'c':
			o->cflags = optarg;
			break;
		case 'o':
			o->out = optarg;
			o->have_out = 1;
			break;
		case 'j':
			if (parse_count(optarg, 256, &o->jobs) || !o->jobs)
				return lace_usage_error(CMD, "-j takes a count from 1 to 256, not '%s'", optarg);
			break;
		case 'l':
			o->list = 1;
			break;
		default:
			return lace_bad_option(CMD, c, argv);
		}
	}
	if (optind < argc)
		return lace_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (o->have_seed && !o->shuffle)
		return lace_usage_error(CMD, "--seed needs --shuffle");
	if (o->all && o->names.nr)
		return lace_usage_error(CMD, "--all and --variant exclude each other");
	return LACE_EXIT_OK;
}

/* What to build: named variants, else all (unless only shuffled builds or
 * a custom script were asked for), then --ldscript, then --shuffle. */
static int select_variants(struct plan *plan, const struct build_opts *o)
{
	int rc;

	if (!o->names.nr && !o->ldscript && (o->all || !o->shuffle))
		plan_add_all(plan);
	for (size_t i = 0; i < o->names.nr; i++)
		if (plan_add_named(plan, o->names.v[i]))
			return lace_usage_error(CMD, "%s", lace_error_msg());
	if (o->ldscript && (rc = plan_add_ldscript(plan, o->ldscript))) {
		if (rc == -EINVAL)
			return lace_usage_error(CMD, "%s", lace_error_msg());
		lace_err(o->ldscript, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	if (o->shuffle && plan_add_shuffled(plan, o->shuffle, o->seed)) {
		lace_err(CMD, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	return LACE_EXIT_OK;
}

static int build(struct variants_build *b, const char *out)
{
	if (variants_build_start(b, out)) {
		lace_err(out, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	if (variants_build_run(b)) {
		lace_err(CMD, "%s", lace_error_msg());
		return LACE_EXIT_FAIL;
	}
	for (size_t i = 0; i < b->plan->nr; i++) {
		if (variants_write_manifest(b, &b->plan->v[i])) {
			lace_err(CMD, "%s", lace_error_msg());
			return LACE_EXIT_FAIL;
		}
		printf("%s\n", b->plan->v[i].dir);
	}
	return LACE_EXIT_OK;
}

static int build_study_run(int argc, char **argv)
{
	struct build_opts o = { STRVEC_INIT, STRVEC_INIT, 0, 1, 0, "build/variants", NULL, NULL,
				0, 0, 0, 0 };
	struct variants_config cfg = { 0 };
	struct variants_build b = { 0 };
	struct plan plan = { 0 };
	char *src = NULL;
	int rc = parse_options(argc, argv, &o);

	if (rc)
		goto out;
	if (variants_find_srcdir(&src) || variants_config_load(&cfg, src)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (o.list) {
		list_variants(&cfg);
		goto out;
	}
	if (o.programs.nr && variants_config_keep_programs(&cfg, &o.programs)) {
		rc = lace_usage_error(CMD, "%s", lace_error_msg());
		goto out;
	}
	plan_init(&plan, &cfg, o.cflags);
	if ((rc = select_variants(&plan, &o)))
		goto out;
	b.cfg = &cfg;
	b.plan = &plan;
	b.cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "gcc";
	b.jobs = o.jobs ? (int)o.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b.jobs < 1)
		b.jobs = 1;
	if (isatty(2))
		b.progress = print_progress;
	rc = build(&b, o.out);
out:
	variants_build_release(&b);
	plan_release(&plan);
	variants_config_release(&cfg);
	free(src);
	strvec_clear(&o.names);
	strvec_clear(&o.programs);
	return rc;
}

/* Subcommands, as bpftool's `struct cmd` table; no name: the study code. */
static const struct build_cmd {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
} build_cmds[] = {
	{ "kernel", build_kernel_run },
	{ "study", build_study_run },
};

static int cmd_build(int argc, char **argv)
{
	if (argc > 1)
		for (size_t i = 0; i < sizeof(build_cmds) / sizeof(build_cmds[0]); i++)
			if (!strcmp(argv[1], build_cmds[i].name))
				return build_cmds[i].run(argc - 1, argv + 1);
	int rc;

	return build_kernel_alias(argc, argv, &rc) ? rc : build_study_run(argc, argv);
}

LACE_COMMAND(build, .name = "build",
	     .summary = "build the study code once per layout variant",
	     .usage = "usage: lace build [--variant NAME[,NAME]... | --all] [--shuffle K [--seed S]]\n"
		      "                  [--ldscript FILE] [--cflags STR] [--out DIR] [-j N]\n"
		      "                  [--program NAME[,NAME]...] [--list]\n"
		      "       lace build kernel ARCH [--variant NAME,...] [--shuffle K [--seed S]]\n"
		      "                  [--out DIR] [-j N] [--list]\n"
		      "\n"
		      "Compile probes/, hashmmu/ and the workloads of bench/workloads.conf once per\n"
		      "placement variant of linker_scripts/variants.conf, into DIR/<variant>/ with a\n"
		      "manifest.json (variant, script, flags, compiler, sha256 of each output).\n"
		      "\n"
		      "  -v, --variant NAME   build this variant (repeatable, or comma-separated)\n"
		      "  -a, --all            build every variant (the default without --shuffle)\n"
		      "  -k, --shuffle K      also build K randomized layouts of baseline,\n"
		      "                       DIR/baseline-shuffle-<1..K>\n"
		      "  -s, --seed S         seed of the randomized layouts (default 1)\n"
		      "  -T, --ldscript FILE  build one more variant with this linker script and\n"
		      "                       the baseline's flags, named after FILE\n"
		      "  -c, --cflags STR     extra compiler flags for every variant\n"
		      "  -o, --out DIR        output folder (default build/variants)\n"
		      "  -j, --jobs N         parallel compiler jobs (default: online CPUs)\n"
		      "  -p, --program NAME   build only these programs (hashmmu-driver or a\n"
		      "                       workload of bench/workloads.conf); default all\n"
		      "  -l, --list           list the variants and exit\n"
		      "\n"
		      "lace build kernel ARCH (also spelled lace build --kernel ARCH) builds real\n"
		      "kernels instead, from kernel/kernel.conf (x86_64, ppc64le ...): Debian's\n"
		      "linux-source in the cache, a base build, and each variant relinked from it,\n"
		      "into DIR/ARCH-VARIANT/.  Its options:\n"
		      "  -v, --variant NAME   build this variant (repeatable, or comma-separated);\n"
		      "                       default all of ARCH\n"
		      "  -k, --shuffle K      K relinks of baseline with random padding after the\n"
		      "                       head code\n"
		      "  -s, --seed S         seed of the relinks (default 1)\n"
		      "  -o, --out DIR        output folder (default build/kernels)\n"
		      "  -j, --jobs N         parallel make jobs (default: online CPUs)\n"
		      "  -l, --list           list the kernel variants (no ARCH: every arch's)\n"
		      "\n"
		      "Sources: $LACE_SRCDIR, else the tree lace was built from, else\n"
		      "<prefix>/share/lace/src.  Compiler: $CC, else gcc.\n",
	     .run = cmd_build, .order = 60);
