/* lace build kernel ARCH (or lace build --kernel ARCH): its options, parsed
 * with its own table; the work is variants/kernel_build.c's.  This file
 * chooses what to build, prints progress and the summary, and picks the
 * exit status. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build_kernel.h"
#include "cli/command.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/parse_options.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "variants/config.h"
#include "variants/kernel_build.h"

#define CMD "build"

static void duration(struct strbuf *sb, double s)
{
	if (s >= 60)
		strbuf_addf(sb, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		strbuf_addf(sb, "%.1fs", s);
}

/* On a terminal: the phase with the time it took last time, then its time
 * when it ends; make's own output goes to the logs in the cache. */
static void print_phase(void *data, const char *phase, double s, int end)
{
	const char *arch = data;
	struct strbuf sb = STRBUF_INIT;

	if (!end) {
		strbuf_addf(&sb, "lace build: %s %s", arch, phase);
		if (s > 0) {
			strbuf_addstr(&sb, " (about ");
			duration(&sb, s);
			strbuf_addstr(&sb, ", as last time)");
		}
		fprintf(stderr, "%s ...", sb.buf);
	} else {
		duration(&sb, s);
		fprintf(stderr, " %s\n", sb.buf);
	}
	strbuf_release(&sb);
}

static void list(const struct kernel_config *c, const char *arch)
{
	for (size_t i = 0; i < c->nvariants; i++) {
		const struct kernel_variant *v = &c->variants[i];
		if (arch && strcmp(arch, v->arch))
			continue;
		printf("%-8s %-16s %s\n", v->arch, v->name, v->description ? v->description : "");
	}
}

static int build_all(struct kernel_build *b, const struct kernel_config *c, const struct strvec *names,
		     const char *out)
{
	struct strbuf sum = STRBUF_INIT;
	double total = 0, s;
	size_t n = 0;

	if (kernel_build_start(b, out)) {
		lace_err(CMD, "%s", lace_error_msg());
		return LACE_EXIT_FAIL;
	}
	for (size_t i = 0; i < c->nvariants; i++) {
		const struct kernel_variant *v = &c->variants[i];
		if (strcmp(v->arch, b->arch->name) || (names->nr && strvec_find(names, v->name) < 0))
			continue;
		if (kernel_build_variant(b, v, &s)) {
			if (b->base_failed)   /* no variant's: every one needs it */
				lace_err(CMD, "%s", lace_error_msg());
			else
				lace_err(CMD, "%s %s: %s", v->arch, v->name, lace_error_msg());
			return LACE_EXIT_FAIL;
		}
		printf("%s/%s-%s\n", b->out, v->arch, v->name);
		total += s;
		n++;
	}
	/* one line, terminal or not: what this run cost, phase by phase */
	strbuf_addf(&sum, "lace build: %s: %zu kernel%s (", b->arch->name, n, n == 1 ? "" : "s");
	if (b->t_source) {
		strbuf_addstr(&sum, "source ");
		duration(&sum, b->t_source);
		strbuf_addstr(&sum, ", ");
	}
	if (b->t_configure) {
		strbuf_addstr(&sum, "configure ");
		duration(&sum, b->t_configure);
		strbuf_addstr(&sum, ", ");
	}
	strbuf_addstr(&sum, "base ");
	duration(&sum, b->t_base);
	strbuf_addstr(&sum, ", variants ");
	duration(&sum, total);
	if (b->up_to_date)
		strbuf_addf(&sum, "; %u up to date, kept", b->up_to_date);
	strbuf_addf(&sum, "); logs in %s", b->kdir);
	fprintf(stderr, "%s\n", sum.buf);
	strbuf_release(&sum);
	return LACE_EXIT_OK;
}

struct build_kernel_opts {
	const char *arch;          /* NULL with list: every arch */
	struct strvec names;       /* variants; empty: all of the arch */
	struct strvec layouts;     /* --layout files */
	unsigned long shuffle, seed;
	const char *out;           /* NULL: build/kernels */
	long jobs;                 /* 0: online CPUs */
	bool list, have_seed;
};

static struct build_kernel_opts opts = { .names = STRVEC_INIT, .layouts = STRVEC_INIT, .seed = 1 };

static int variant_cb(const struct lace_option *opt, const char *arg)
{
	struct strvec *l = opt->value;

	for (const char *q = arg; *q;) {
		size_t n = strcspn(q, ",");
		if (n)
			strvec_pushf(l, "%.*s", (int)n, q);
		q += n + (q[n] == ',');
	}
	return 0;
}

static int shuffle_cb(const struct lace_option *opt, const char *arg)
{
	long v;

	if (parse_long(arg, 1, 1000, &v))
		return lace_error_set(EINVAL, "--shuffle takes a count from 1 to 1000, not '%s'", arg);
	opts.shuffle = (unsigned long)v;
	return 0;
}

static const struct lace_option build_kernel_options[] = {
	OPT_CALLBACK('v', "variant", &opts.names, "NAME", "build this variant (repeatable, or\n"
		     "comma-separated); default all of ARCH", variant_cb),
	OPT_CALLBACK('k', "shuffle", NULL, "K", "K relinks of baseline with random padding after\n"
		     "the head code", shuffle_cb),
	OPT_STRING_LIST(0, "layout", &opts.layouts, "FILE", "baseline-NAME, laid out by NAME.edit or\n"
			"NAME.order (lace replay --edit, --write-maps); repeatable"),
	OPT_ULONG('s', "seed", &opts.seed, "S", "seed of the relinks (default 1)",
		  .seen = &opts.have_seed),
	OPT_STRING('o', "out", &opts.out, "DIR", "output folder (default build/kernels)"),
	OPT_INTEGER('j', "jobs", &opts.jobs, 1, 256, "N", "parallel make jobs (default: online CPUs)"),
	OPT_BOOLEAN('l', "list", &opts.list, "list the kernel variants and exit"),
	OPT_END(),
};

static int build_kernel(const struct build_kernel_opts *o)
{
	struct kernel_config c;
	struct kernel_build b = { 0 };
	char *src = NULL;
	int rc = LACE_EXIT_OK;

	if (variants_find_srcdir(&src) || kernel_config_load(&c, src)) {
		lace_err(CMD, "%s", lace_error_msg());
		free(src);
		return LACE_EXIT_USAGE;
	}
	if (o->arch && !kernel_config_arch(&c, o->arch)) {
		struct strbuf known = STRBUF_INIT;
		for (size_t i = 0; i < c.narches; i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", c.arches[i].name);
		rc = lace_usage_error(CMD, "kernel: no arch '%s' in kernel/kernel.conf (%s)", o->arch,
				      known.buf);
		strbuf_release(&known);
		goto out;
	}
	for (size_t i = 0; i < o->names.nr; i++)
		if (!kernel_config_variant(&c, o->arch, o->names.v[i])) {
			rc = lace_usage_error(CMD, "no kernel variant '%s' for %s (lace build --kernel %s --list)",
					      o->names.v[i], o->arch, o->arch);
			goto out;
		}
	if (o->shuffle && kernel_config_add_shuffled(&c, o->arch, o->shuffle, o->seed)) {
		rc = lace_usage_error(CMD, "%s", lace_error_msg());
		goto out;
	}
	for (size_t i = 0; i < o->layouts.nr; i++)
		if (kernel_config_add_layout(&c, o->arch, o->layouts.v[i])) {
			lace_err(CMD, "%s", lace_error_msg());
			rc = LACE_EXIT_USAGE;
			goto out;
		}
	if (o->list) {
		list(&c, o->arch);
		goto out;
	}
	b.cfg = &c;
	b.arch = kernel_config_arch(&c, o->arch);
	b.jobs = o->jobs > 0 ? (int)o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b.jobs < 1)
		b.jobs = 1;
	if (isatty(2)) {
		b.progress = print_phase;
		b.progress_data = (void *)o->arch;
	}
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < o->names.nr; i++)
		strvec_push(&names, o->names.v[i]);
	/* --shuffle or --layout alone: just those (and the base they come from) */
	if ((o->shuffle || o->layouts.nr) && !names.nr)
		for (size_t i = 0; i < c.nvariants; i++)
			if (!strcmp(c.variants[i].arch, o->arch) &&
			    (c.variants[i].npad || c.variants[i].layout_lines))
				strvec_push(&names, c.variants[i].name);
	rc = build_all(&b, &c, &names, o->out ? o->out : "build/kernels");
	strvec_clear(&names);
out:
	kernel_build_release(&b);
	kernel_config_release(&c);
	free(src);
	return rc;
}

int build_kernel_run(int argc, char **argv)
{
	int i = lace_parse_options(CMD, argc, argv, build_kernel_options, 0);
	int rc;

	if (i < 0)
		return LACE_EXIT_USAGE;
	if (i < argc)
		opts.arch = argv[i++];
	if (i < argc)
		return lace_usage_error(CMD, "unexpected argument '%s'", argv[i]);
	/* --list alone lists every arch's variants */
	if (!opts.arch && (!opts.list || opts.names.nr || opts.shuffle))
		return lace_usage_error(CMD, "kernel needs ARCH (lace build kernel --list names them)");
	if (opts.have_seed && !opts.shuffle)
		return lace_usage_error(CMD, "--seed needs --shuffle");
	rc = build_kernel(&opts);
	strvec_clear(&opts.names);
	strvec_clear(&opts.layouts);
	return rc;
}

/* `lace build --kernel ARCH ...` (the older spelling, which kernel/ and
 * pipeline/ callers use) is `lace build kernel ARCH ...`: the option and
 * its value become the subcommand word and its operand. */
static int alias_run(int argc, char **argv)
{
	struct strvec v = STRVEC_INIT;
	const char *arch = NULL;
	int rc;

	strvec_push(&v, "kernel");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!arch && (!strcmp(a, "--kernel") || !strcmp(a, "-K"))) {
			if (i + 1 == argc) {
				strvec_clear(&v);
				return lace_usage_error(CMD, "option '%s' needs a value", a);
			}
			arch = argv[++i];
		} else if (!arch && !strncmp(a, "--kernel=", 9)) {
			arch = a + 9;
		} else if (!arch && !strncmp(a, "-K", 2)) {
			arch = a + 2;
		} else {
			strvec_push(&v, a);
		}
	}
	strvec_push(&v, arch);
	rc = build_kernel_run((int)v.nr, (char **)v.v);
	strvec_clear(&v);
	return rc;
}

bool build_kernel_alias(int argc, char **argv, int *rc)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--kernel") || !strncmp(a, "--kernel=", 9) || !strncmp(a, "-K", 2)) {
			*rc = alias_run(argc, argv);
			return true;
		}
	}
	return false;
}
