#include "variants/plan.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, f);
	strbuf_vaddf(&sb, f, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void plan_init(struct plan *p, const struct variants_config *cfg, const char *extra_cflags)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->extra_cflags = dup_or_null(extra_cflags);
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct plan_variant *v = &p->v[i];

		free(v->name);
		free(v->script);
		free(v->script_path);
		free(v->ldflags);
		free(v->description);
		strvec_clear(&v->cflags);
		free(v->dir);
		free(v->objdir);
	}
	free(p->v);
	free(p->extra_cflags);
	memset(p, 0, sizeof(*p));
}

/* Add a variant built from conf (its script, cflags, ldflags) and compute
 * what follows from it. */
static struct plan_variant *plan_add(struct plan *p, const struct variant *conf,
				     const char *name, const char *description)
{
	struct plan_variant *v;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	v = &p->v[p->nr++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->script = xstrdup(conf->script);
	if (conf->script[0] == '/')
		v->script_path = xstrdup(conf->script);
	else
		v->script_path = fmt("%s/linker_scripts/%s", p->cfg->src, conf->script);
	v->ldflags = dup_or_null(conf->ldflags);
	v->description = dup_or_null(description);
	strvec_init(&v->cflags);
	strvec_split(&v->cflags, conf->cflags);
	strvec_split(&v->cflags, p->extra_cflags);
	for (size_t i = 0; i < v->cflags.nr; i++)
		for (const char *s = v->cflags.v[i]; ; s++) {
			h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
			if (!*s)
				break;
		}
	v->flags_hash = h;
	return v;
}

void plan_add_all(struct plan *p)
{
	for (size_t i = 0; i < p->cfg->nvariants; i++) {
		const struct variant *c = &p->cfg->variants[i];

		plan_add(p, c, c->name, c->description);
	}
}

int plan_add_named(struct plan *p, const char *name)
{
	const struct variant *c = variants_config_variant(p->cfg, name);
	struct strbuf known = STRBUF_INIT;
	int rc;

	if (c) {
		plan_add(p, c, c->name, c->description);
		return 0;
	}
	for (size_t k = 0; k < p->cfg->nvariants; k++)
		strbuf_addf(&known, "%s%s", k ? ", " : "", p->cfg->variants[k].name);
	rc = lace_error_set(EINVAL, "no variant '%s' (known: %s)", name, known.buf);
	strbuf_release(&known);
	return rc;
}

int plan_add_ldscript(struct plan *p, const char *file)
{
	const struct variant *base = variants_config_variant(p->cfg, "baseline");
	char abs[PATH_MAX], *bn, *name, *dot;
	struct variant conf = { 0 };
	int rc = 0;

	if (!realpath(file, abs))
		return lace_error_set(errno, "%s", strerror(errno));
	bn = xstrdup(file);
	name = basename(bn);
	if ((dot = strrchr(name, '.')) && dot != name)
		*dot = 0;
	if (!variant_name_ok(name)) {
		rc = lace_error_set(EINVAL, "--ldscript %s: '%s' is not a usable variant name",
				    file, name);
	} else {
		conf.script = abs;
		conf.cflags = base && base->cflags ? base->cflags : "";
		plan_add(p, &conf, name,
			 "custom linker script (--ldscript) with the baseline's flags");
	}
	free(bn);
	return rc;
}

int plan_add_shuffled(struct plan *p, unsigned long k, unsigned long long seed)
{
	const struct variant *base = variants_config_variant(p->cfg, "baseline");
	struct variant conf;

	if (!base)
		return lace_error_set(ENOENT, "variants.conf has no baseline to shuffle");
	/* the baseline compiled with one section per function, so that the
	 * generated script can order them */
	conf = *base;
	if (base->cflags && strstr(base->cflags, "-ffunction-sections"))
		/* baseline already is: its randomized builds relink its own
		 * objects, so the layout is the only difference */
		conf.cflags = xstrdup(base->cflags);
	else
		conf.cflags = fmt("%s%s-ffunction-sections", base->cflags ? base->cflags : "",
				  base->cflags ? " " : "");
	for (unsigned long i = 1; i <= k; i++) {
		char *name = fmt("baseline-shuffle-%lu", i);
		struct plan_variant *v = plan_add(p, &conf, name,
			"baseline with a seeded order and padding of its text input sections");

		v->shuffle = (unsigned)i;
		v->seed = seed;
		free(name);
	}
	free(conf.cflags);
	return 0;
}

void plan_set_out(struct plan *p, const char *out)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct plan_variant *v = &p->v[i];

		free(v->dir);
		free(v->objdir);
		v->dir = fmt("%s/%s", out, v->name);
		v->objdir = fmt("%s/.obj-%016llx/obj", out, (unsigned long long)v->flags_hash);
	}
}
