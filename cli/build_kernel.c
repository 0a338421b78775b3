/* lace build --kernel ARCH: options checked by cmd_build.c, the work done
 * by variants/kernel_build.c; this file chooses what to build, prints
 * progress and the summary, and picks the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build_kernel.h"
#include "cli/command.h"
#include "util/error.h"
#include "util/strbuf.h"
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
	int rc = LACE_EXIT_OK;

	if (kernel_build_start(b, out)) {
		lace_err(CMD, "%s", lace_error_msg());
		return LACE_EXIT_FAIL;
	}
	for (size_t i = 0; i < c->nvariants && !rc; i++) {
		const struct kernel_variant *v = &c->variants[i];
		if (strcmp(v->arch, b->arch->name) || (names->nr && strvec_find(names, v->name) < 0))
			continue;
		if (kernel_build_variant(b, v, &s)) {
			lace_err(CMD, "%s %s: %s", v->arch, v->name, lace_error_msg());
			rc = LACE_EXIT_FAIL;
			break;
		}
		printf("%s/%s-%s\n", b->out, v->arch, v->name);
		total += s;
		n++;
	}
	if (rc)
		return rc;
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
	return rc;
}

int build_kernel(const struct build_kernel_opts *o)
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
		rc = lace_usage_error(CMD, "--kernel: no arch '%s' in kernel/kernel.conf (%s)", o->arch,
				      known.buf);
		strbuf_release(&known);
		goto out;
	}
	for (size_t i = 0; i < o->names->nr; i++)
		if (!kernel_config_variant(&c, o->arch, o->names->v[i])) {
			rc = lace_usage_error(CMD, "no kernel variant '%s' for %s (lace build --kernel %s --list)",
					      o->names->v[i], o->arch, o->arch);
			goto out;
		}
	if (o->shuffle && kernel_config_add_shuffled(&c, o->arch, o->shuffle, o->seed)) {
		rc = lace_usage_error(CMD, "%s", lace_error_msg());
		goto out;
	}
	if (o->list) {
		list(&c, o->arch);
		goto out;
	}
	b.cfg = &c;
	b.arch = kernel_config_arch(&c, o->arch);
	b.jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b.jobs < 1)
		b.jobs = 1;
	if (isatty(2)) {
		b.progress = print_phase;
		b.progress_data = (void *)o->arch;
	}
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < o->names->nr; i++)
		strvec_push(&names, o->names->v[i]);
	/* --shuffle alone: just the relinks (and the base they come from) */
	if (o->shuffle && !names.nr)
		for (size_t i = 0; i < c.nvariants; i++)
			if (!strcmp(c.variants[i].arch, o->arch) && c.variants[i].npad)
				strvec_push(&names, c.variants[i].name);
	rc = build_all(&b, &c, &names, o->out ? o->out : "build/kernels");
	strvec_clear(&names);
out:
	kernel_build_release(&b);
	kernel_config_release(&c);
	free(src);
	return rc;
}
