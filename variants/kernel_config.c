/* kernel/kernel.conf; see kernel_config.h. */
#include "variants/kernel_config.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/prng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const struct kernel_arch *kernel_config_arch(const struct kernel_config *c, const char *name)
{
	for (size_t i = 0; i < c->narches; i++)
		if (!strcmp(c->arches[i].name, name))
			return &c->arches[i];
	return NULL;
}

struct kernel_variant *kernel_config_variant(const struct kernel_config *c, const char *arch,
					     const char *name)
{
	for (size_t i = 0; i < c->nvariants; i++)
		if (!strcmp(c->variants[i].arch, arch) && !strcmp(c->variants[i].name, name))
			return &c->variants[i];
	return NULL;
}

static struct kernel_arch *arch_get(struct kernel_config *c, const char *name)
{
	struct kernel_arch *a = (struct kernel_arch *)kernel_config_arch(c, name);

	if (a)
		return a;
	ALLOC_GROW(c->arches, c->narches + 1, c->aarches);
	a = &c->arches[c->narches++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	return a;
}

static struct kernel_variant *variant_get(struct kernel_config *c, const char *arch, const char *name)
{
	struct kernel_variant *v = kernel_config_variant(c, arch, name);

	if (v)
		return v;
	ALLOC_GROW(c->variants, c->nvariants + 1, c->avariants);
	v = &c->variants[c->nvariants++];
	memset(v, 0, sizeof(*v));
	v->arch = xstrdup(arch);
	v->name = xstrdup(name);
	strvec_init(&v->patches);
	return v;
}

static void set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

/* inih: nonzero = line accepted; 0 makes ini_parse return its number */
static int kernel_ini(void *user, const char *section, const char *key, const char *value)
{
	struct kernel_config *c = user;
	const char *sp = strchr(section, ' ');

	if (!strcmp(section, "source")) {
		char **slot = !strcmp(key, "package") ? &c->package
			    : !strcmp(key, "tarball") ? &c->tarball
			    : !strcmp(key, "dir") ? &c->srcdir : NULL;
		if (!slot)
			return 0;
		set_string(slot, value);
		return 1;
	}
	if (!sp || strchr(sp + 1, ' '))
		return 0;
	char *first = xstrndup(section, (size_t)(sp - section));
	int ok = 1;
	if (!strcmp(first, "arch")) {
		struct kernel_arch *a = arch_get(c, sp + 1);
		char **slot = !strcmp(key, "make") ? &a->make
			    : !strcmp(key, "base") ? &a->base
			    : !strcmp(key, "config") ? &a->config
			    : !strcmp(key, "target") ? &a->target
			    : !strcmp(key, "image") ? &a->image
			    : !strcmp(key, "shuffle_file") ? &a->shuffle_file
			    : !strcmp(key, "shuffle_after") ? &a->shuffle_after : NULL;
		if (slot)
			set_string(slot, value);
		ok = slot != NULL;
	} else {
		struct kernel_variant *v = variant_get(c, first, sp + 1);
		if (!strcmp(key, "patches"))
			strvec_split(&v->patches, value);
		else if (!strcmp(key, "description"))
			set_string(&v->description, value);
		else
			ok = 0;
	}
	free(first);
	return ok;
}

int kernel_config_load(struct kernel_config *c, const char *src)
{
	struct strbuf path = STRBUF_INIT;
	int line, rc = 0;

	memset(c, 0, sizeof(*c));
	strbuf_addf(&path, "%s/kernel", src);
	c->dir = xstrdup(path.buf);
	strbuf_addstr(&path, "/kernel.conf");
	line = ini_parse(path.buf, kernel_ini, c);
	if (line < 0)
		rc = lace_error_set(ENOENT, "%s: cannot read", path.buf);
	else if (line > 0)
		rc = lace_error_set(EINVAL, "%s:%d: unknown section or key", path.buf, line);
	else if (!c->package || !c->tarball || !c->srcdir)
		rc = lace_error_set(EINVAL, "%s: [source] needs package, tarball and dir", path.buf);
	for (size_t i = 0; !rc && i < c->narches; i++) {
		const struct kernel_arch *a = &c->arches[i];
		if (!a->make || !a->base || !a->config || !a->target || !a->image)
			rc = lace_error_set(EINVAL, "%s: [arch %s] needs make, base, config, target and image",
					    path.buf, a->name);
	}
	for (size_t i = 0; !rc && i < c->nvariants; i++)
		if (!kernel_config_arch(c, c->variants[i].arch))
			rc = lace_error_set(EINVAL, "%s: [%s %s]: no [arch %s]", path.buf,
					    c->variants[i].arch, c->variants[i].name, c->variants[i].arch);
	strbuf_release(&path);
	return rc;
}

void kernel_config_add_shuffled(struct kernel_config *c, const char *arch, unsigned long k,
				unsigned long seed)
{
	for (unsigned long i = 1; i <= k; i++) {
		struct strbuf name = STRBUF_INIT;

		strbuf_addf(&name, "baseline-shuffle-%lu", i);
		struct kernel_variant *v = variant_get(c, arch, name.buf);
		/* relink i's own stream of the seed (util/prng.h), as lace
		 * build --shuffle draws build i: the same seed gives the same
		 * relinks anywhere, and relink i does not depend on k */
		struct prng rng;

		prng_init(&rng, seed, i);
		v->pad = 16 * (1 + prng_next(&rng) % 255);
		v->seed = seed;
		v->index = i;
		strbuf_reset(&name);
		strbuf_addf(&name, "baseline relinked with %lu bytes of padding after the head code "
			    "(seed %lu, %lu of %lu)", v->pad, seed, i, k);
		set_string(&v->description, name.buf);
		strbuf_release(&name);
	}
}

void kernel_config_release(struct kernel_config *c)
{
	for (size_t i = 0; i < c->narches; i++) {
		struct kernel_arch *a = &c->arches[i];
		free(a->name); free(a->make); free(a->base); free(a->config);
		free(a->target); free(a->image); free(a->shuffle_file); free(a->shuffle_after);
	}
	for (size_t i = 0; i < c->nvariants; i++) {
		struct kernel_variant *v = &c->variants[i];
		free(v->arch); free(v->name); free(v->description);
		strvec_clear(&v->patches);
	}
	free(c->arches);
	free(c->variants);
	free(c->dir); free(c->package); free(c->tarball); free(c->srcdir);
	memset(c, 0, sizeof(*c));
}
