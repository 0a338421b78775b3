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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build_kernel.h"
#include "cli/command.h"
#include "util/array.h"
#include "util/error.h"
#include "util/parse_options.h"
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

struct build_opts {
	struct strvec names, programs;
	unsigned long shuffle, seed;
	long jobs;
	const char *out, *ldscript, *cflags;
	bool all, list, have_seed;
};

/* one command per process: the table points into this */
static struct build_opts bo = { .names = STRVEC_INIT, .programs = STRVEC_INIT, .seed = 1,
				.out = "build/variants" };

static int commas_cb(const struct lace_option *opt, const char *arg)
{
	char *save = NULL, *copy = xstrdup(arg);

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		strvec_push(opt->value, t);
	free(copy);
	return 0;
}

static int shuffle_cb(const struct lace_option *opt, const char *arg)
{
	long v;

	if (parse_long(arg, 1, 1000, &v))
		return lace_error_set(EINVAL, "--shuffle takes a count from 1 to 1000, not '%s'", arg);
	bo.shuffle = (unsigned long)v;
	return 0;
}

static const struct lace_option build_options[] = {
	OPT_CALLBACK('v', "variant", &bo.names, "NAME", "build this variant (repeatable, or comma-separated)",
		     commas_cb),
	OPT_BOOLEAN('a', "all", &bo.all, "build every variant (the default without --shuffle)"),
	OPT_CALLBACK('k', "shuffle", NULL, "K", "also build K randomized layouts of baseline,\n"
		     "DIR/baseline-shuffle-<1..K>", shuffle_cb),
	OPT_ULONG('s', "seed", &bo.seed, "S", "seed of the randomized layouts (default 1)",
		  .seen = &bo.have_seed),
	OPT_STRING('T', "ldscript", &bo.ldscript, "FILE", "build one more variant with this linker script\n"
		   "and the baseline's flags, named after FILE"),
	OPT_STRING('c', "cflags", &bo.cflags, "STR", "extra compiler flags for every variant"),
	OPT_STRING('o', "out", &bo.out, "DIR", "output folder (default build/variants)"),
	OPT_INTEGER('j', "jobs", &bo.jobs, 1, 256, "N", "parallel compiler jobs (default: online CPUs)"),
	OPT_CALLBACK('p', "program", &bo.programs, "NAME", "build only these programs (hashmmu-driver or a\n"
		     "workload of bench/workloads.conf); default all", commas_cb),
	OPT_BOOLEAN('l', "list", &bo.list, "list the variants and exit"),
	OPT_END(),
};

/* The options; LACE_EXIT_OK or a usage error already printed. */
static int build_options_parse(int argc, char **argv, struct build_opts *o)
{
	int i = lace_parse_options(CMD, argc, argv, build_options, 0);

	if (i < 0)
		return LACE_EXIT_USAGE;
	if (i < argc)
		return lace_usage_error(CMD, "unexpected argument '%s'", argv[i]);
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
	struct variants_config cfg = { 0 };
	struct variants_build b = { 0 };
	struct plan plan = { 0 };
	char *src = NULL;
	int rc = build_options_parse(argc, argv, &bo);

	if (rc)
		goto out;
	if (variants_find_srcdir(&src) || variants_config_load(&cfg, src)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (bo.list) {
		list_variants(&cfg);
		goto out;
	}
	if (bo.programs.nr && variants_config_keep_programs(&cfg, &bo.programs)) {
		rc = lace_usage_error(CMD, "%s", lace_error_msg());
		goto out;
	}
	plan_init(&plan, &cfg, bo.cflags);
	if ((rc = select_variants(&plan, &bo)))
		goto out;
	b.cfg = &cfg;
	b.plan = &plan;
	b.cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "gcc";
	b.jobs = bo.jobs ? (int)bo.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b.jobs < 1)
		b.jobs = 1;
	if (isatty(2))
		b.progress = print_progress;
	rc = build(&b, bo.out);
out:
	variants_build_release(&b);
	plan_release(&plan);
	variants_config_release(&cfg);
	free(src);
	strvec_clear(&bo.names);
	strvec_clear(&bo.programs);
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
		for (size_t i = 0; i < ARRAY_SIZE(build_cmds); i++)
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
		      "\n",
	     .options = build_options,
	     .usage_tail =
		      "\n"
		      "lace build kernel ARCH (also spelled lace build --kernel ARCH) builds real\n"
		      "kernels instead, from kernel/kernel.conf (x86_64, ppc64le ...): Debian's\n"
		      "linux-source in the cache, a base build, and each variant relinked from it,\n"
		      "into DIR/ARCH-VARIANT/.  Its options:\n"
		      "  -v, --variant NAME      build this variant (repeatable, or\n"
		      "                          comma-separated); default all of ARCH\n"
		      "  -k, --shuffle K         K relinks of baseline, each padded differently\n"
		      "                          where the variants move code and data\n"
		      "                          (kernel.conf shuffle_pad)\n"
		      "  -s, --seed S            seed of the relinks (default 1)\n"
		      "  -o, --out DIR           output folder (default build/kernels)\n"
		      "  -j, --jobs N            parallel make jobs (default: online CPUs)\n"
		      "  -l, --list              list the kernel variants (no ARCH: every\n"
		      "                          arch's) and exit\n"
		      "\n"
		      "Sources: $LACE_SRCDIR, else the tree lace was built from, else\n"
		      "<prefix>/share/lace/src.  Compiler: $CC, else gcc.\n",
	     .run = cmd_build, .order = 60);
