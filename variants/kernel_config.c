/* kernel/kernel.conf; see kernel_config.h. */
#include "variants/kernel_config.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/vlayout.h"
#include "util/error.h"
#include "util/parse_num.h"
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

/* "ANCHOR UNIT MAX" (the anchor may hold blanks: the last two words are
 * the numbers); NULL when malformed */
static struct kernel_pad_point *pad_point_add(struct kernel_arch *a, const char *value)
{
	struct strvec w = STRVEC_INIT;
	struct kernel_pad_point pt = { 0 };
	struct strbuf anchor = STRBUF_INIT;
	unsigned long unit, max;

	strvec_split(&w, value);
	if (w.nr < 3 || parse_ulong(w.v[w.nr - 2], &unit) || parse_ulong(w.v[w.nr - 1], &max) ||
	    !unit || !max) {
		lace_error_clear();
		strvec_clear(&w);
		return NULL;
	}
	for (size_t i = 0; i + 2 < w.nr; i++)
		strbuf_addf(&anchor, "%s%s", i ? " " : "", w.v[i]);
	pt.anchor = strbuf_detach(&anchor, NULL);
	pt.unit = unit;
	pt.max = max;
	strvec_clear(&w);
	ALLOC_GROW(a->pads, a->npads + 1, a->apads);
	a->pads[a->npads] = pt;
	return &a->pads[a->npads++];
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
			    : !strcmp(key, "layout_file") ? &a->layout_file
			    : !strcmp(key, "layout_anchor") ? &a->layout_anchor
			    : !strcmp(key, "virtual_pads") ? &a->virtual_pads : NULL;
		if (slot)
			set_string(slot, value);
		else if (!strcmp(key, "shuffle_pad"))
			slot = (char **)pad_point_add(a, value);
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

/* a draw from 0..n-1 */
static unsigned long draw(struct prng *r, unsigned long n)
{
	return (unsigned long)(prng_next(r) % n);
}

unsigned long kernel_variant_pad_total(const struct kernel_variant *v)
{
	unsigned long t = 0;

	for (size_t i = 0; i < v->npad; i++)
		t += v->pad[i];
	return t;
}

int kernel_config_add_shuffled(struct kernel_config *c, const char *arch, unsigned long k,
			       unsigned long seed)
{
	const struct kernel_arch *a = kernel_config_arch(c, arch);
	double space = 1;

	if (!a || !a->npads)
		return lace_error_set(EINVAL, "[arch %s] has no shuffle_pad points for --shuffle", arch);
	for (size_t j = 0; j < a->npads; j++)
		space *= (double)a->pads[j].max + (j ? 1 : 0);
	if ((double)k > space)
		return lace_error_set(EINVAL, "--shuffle %lu: [arch %s] has only %.0f distinct paddings", k,
				      arch, space);
	unsigned long *draws = xcalloc(k * a->npads, sizeof(*draws));
	for (unsigned long i = 0; i < k; i++) {
		unsigned long *d = draws + i * a->npads;
		struct prng rng;
		bool repeat;

		/* relink i+1's own stream of the seed (util/prng.h), as lace
		 * build --shuffle draws build i: the same seed gives the same
		 * relinks anywhere, and a relink does not depend on k.  It
		 * draws on until it differs from every earlier relink: two
		 * relinks of one layout would count one layout twice */
		prng_init(&rng, seed, i + 1);
		do {
			for (size_t j = 0; j < a->npads; j++) {
				const struct kernel_pad_point *pt = &a->pads[j];
				d[j] = (j ? draw(&rng, pt->max + 1) : 1 + draw(&rng, pt->max)) * pt->unit;
			}
			repeat = false;
			for (unsigned long e = 0; e < i && !repeat; e++)
				repeat = !memcmp(d, draws + e * a->npads, a->npads * sizeof(*d));
		} while (repeat);
	}
	for (unsigned long i = 1; i <= k; i++) {
		struct strbuf name = STRBUF_INIT;

		strbuf_addf(&name, "baseline-shuffle-%lu", i);
		struct kernel_variant *v = variant_get(c, arch, name.buf);
		free(v->pad);
		v->npad = a->npads;
		v->pad = xcalloc(v->npad, sizeof(*v->pad));
		memcpy(v->pad, draws + (i - 1) * a->npads, v->npad * sizeof(*v->pad));
		v->seed = seed;
		v->index = i;
		strbuf_reset(&name);
		strbuf_addstr(&name, "baseline relinked with padding");
		for (size_t j = 0; j < v->npad; j++)
			strbuf_addf(&name, "%s%lu bytes after %s", j ? ", " : " of ", v->pad[j],
				    a->pads[j].anchor);
		strbuf_addf(&name, " (seed %lu, %lu of %lu)", seed, i, k);
		set_string(&v->description, name.buf);
		strbuf_release(&name);
	}
	free(draws);
	return 0;
}

void kernel_config_release(struct kernel_config *c)
{
	for (size_t i = 0; i < c->narches; i++) {
		struct kernel_arch *a = &c->arches[i];
		free(a->name); free(a->make); free(a->base); free(a->config);
		free(a->target); free(a->image); free(a->shuffle_file);
		free(a->layout_file); free(a->layout_anchor);
		free(a->virtual_pads);
		for (size_t j = 0; j < a->npads; j++)
			free(a->pads[j].anchor);
		free(a->pads);
	}
	for (size_t i = 0; i < c->nvariants; i++) {
		struct kernel_variant *v = &c->variants[i];
		free(v->arch); free(v->name); free(v->description); free(v->pad);
		free(v->layout_lines);
		strvec_clear(&v->patches);
	}
	free(c->arches);
	free(c->variants);
	free(c->dir); free(c->package); free(c->tarball); free(c->srcdir);
	memset(c, 0, sizeof(*c));
}

/* ---- variants laid out by a file ----------------------------------------- */

/* an edit (lace replay --edit): each unit aligned, padded, placed.  A
 * file is named as a member of any archive ("*:PATH": the kernel links
 * its objects from the thin archive vmlinux.a, and a plain PATH would be
 * loaded a second time), quoted: the script goes through cpp, which would
 * expand a name's "unix" or "linux" (net/unix/af_unix.o) as macros */
static int edit_lines(const char *path, struct strbuf *out)
{
	struct vl_edit e;
	int err = vl_edit_load(path, &e);

	if (err)
		return err;
	for (size_t i = 0; !err && i < e.n; i++) {
		const char *colon = strrchr(e.keys[i], ':');
		uint64_t pad = (e.align - e.offsets[i] % e.align) % e.align;

		if (!colon)
			err = lace_error_set(EINVAL, "%s: %s is not OBJECT:SECTION (an edit of a link map's "
					     "input sections)", path, e.keys[i]);
		else
			strbuf_addf(out, "\t\t. = ALIGN(0x%llx); . = . + 0x%llx; \"*:%.*s\"(%s)\t\\\n",
				    (unsigned long long)e.align, (unsigned long long)pad,
				    (int)(colon - e.keys[i]), e.keys[i], colon + 1);
	}
	vl_edit_free(&e);
	return err;
}

/* an order (NAME.order of lace replay --write-maps): the largest group's
 * input sections, one statement each, in order (an object's .text and
 * .text.fixup are two lines, as the map has them) */
static int order_lines(const char *path, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	long best = -1;
	size_t best_n = 0;
	int err = strbuf_read_file(&sb, path);

	if (err < 0) {
		strbuf_release(&sb);
		return lace_error_set(-err, "%s: cannot read: %s", path, strerror(-err));
	}
	/* the group with the most lines: the main text's statement */
	for (int pass = 0; pass < 2; pass++) {
		long g_prev = -2;
		size_t n = 0;
		for (char *p = sb.buf; p && *p;) {
			char *nl = strchr(p, '\n'), obj[512], sec[128];
			long g;
			if (*p != '#' && sscanf(p, "%ld\t%511[^\t]\t%127[^\t]", &g, obj, sec) == 3) {
				if (!pass) {
					n = g == g_prev ? n + 1 : 1;
					if (n > best_n)
						best_n = n, best = g;
					g_prev = g;
				} else if (g == best) {
					strbuf_addf(out, "\t\t\"*:%s\"(%s)\t\\\n", obj, sec);
				}
			}
			p = nl ? nl + 1 : NULL;
		}
	}
	if (best < 0)
		err = lace_error_set(EINVAL, "%s: no lines of a lace-vlayout-order file", path);
	strbuf_release(&sb);
	return err < 0 ? err : 0;
}

int kernel_config_add_layout(struct kernel_config *c, const char *arch, const char *path)
{
	const struct kernel_arch *a = kernel_config_arch(c, arch);
	const char *base = strrchr(path, '/');
	struct strbuf name = STRBUF_INIT, lines = STRBUF_INIT, desc = STRBUF_INIT;
	size_t len;
	bool edit;
	int err;

	base = base ? base + 1 : path;
	len = strlen(base);
	edit = len > 5 && !strcmp(base + len - 5, ".edit");
	if (!edit && !(len > 6 && !strcmp(base + len - 6, ".order")))
		return lace_error_set(EINVAL, "%s: not an .edit or an .order file", path);
	if (!a || !a->layout_file || !a->layout_anchor)
		return lace_error_set(EINVAL, "[arch %s] has no layout_file and layout_anchor for "
				      "--layout", arch);
	err = edit ? edit_lines(path, &lines) : order_lines(path, &lines);
	if (!err) {
		strbuf_addf(&name, "baseline-%.*s", (int)(len - (edit ? 5 : 6)), base);
		struct kernel_variant *v = variant_get(c, arch, name.buf);
		free(v->layout_lines);
		v->layout_lines = strbuf_detach(&lines, NULL);
		strbuf_addf(&desc, "baseline with its main text laid out by %s (%s)", base,
			    edit ? "an edit: units aligned and padded before it" :
			    "a virtual layout's order, made real");
		set_string(&v->description, desc.buf);
	}
	strbuf_release(&name);
	strbuf_release(&lines);
	strbuf_release(&desc);
	return err;
}
