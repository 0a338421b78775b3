/* Suffix parsing and joining cold/part/clone pieces to their parent. */
#include "layout/names.h"
#include "layout/image_priv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static enum lace_suffix word_kind(const char *w, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(w, lit, n))
	if (IS("cold"))
		return LACE_SUFFIX_COLD;
	if (IS("part"))
		return LACE_SUFFIX_PART;
	if (IS("isra"))
		return LACE_SUFFIX_ISRA;
	if (IS("constprop"))
		return LACE_SUFFIX_CONSTPROP;
	if (IS("llvm"))
		return LACE_SUFFIX_LLVM;
#undef IS
	return LACE_SUFFIX_OTHER;
}

enum lace_suffix name_parse_suffix(const char *name, size_t *base_len)
{
	const char *dot = name[0] ? strchr(name + 1, '.') : NULL;
	enum lace_suffix kind = LACE_SUFFIX_NONE;

	if (!dot || name[0] == '.') {
		*base_len = strlen(name);
		return LACE_SUFFIX_NONE;
	}
	*base_len = (size_t)(dot - name);
	for (const char *p = dot + 1; *p;) {
		const char *e = strchr(p, '.');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!all_digits(p, n)) {
			enum lace_suffix k = word_kind(p, n);
			if (k == LACE_SUFFIX_COLD)
				kind = LACE_SUFFIX_COLD;
			else if (kind == LACE_SUFFIX_NONE)
				kind = k;
		}
		if (!e)
			break;
		p = e + 1;
	}
	/* "f.1" (a numbered local) is a suffix too, of no known kind */
	return kind == LACE_SUFFIX_NONE ? LACE_SUFFIX_OTHER : kind;
}

size_t name_strip_last(const char *name)
{
	size_t base;
	size_t len = strlen(name);

	if (name_parse_suffix(name, &base) == LACE_SUFFIX_NONE)
		return len;
	/* drop a trailing ".N", then the word before it: "x.part.3" -> "x",
	 * "x.cold" -> "x", "x.isra.0.cold.2" -> "x.isra.0" */
	size_t end = len;
	const char *dot = memrchr(name, '.', end);
	if (dot && all_digits(dot + 1, end - (size_t)(dot - name) - 1) && (size_t)(dot - name) > base) {
		end = (size_t)(dot - name);
		dot = memrchr(name, '.', end);
	}
	if (dot && (size_t)(dot - name) >= base)
		end = (size_t)(dot - name);
	return end < base ? base : end;
}

const char *suffix_name(enum lace_suffix s)
{
	switch (s) {
	case LACE_SUFFIX_NONE: return "";
	case LACE_SUFFIX_COLD: return "cold";
	case LACE_SUFFIX_PART: return "part";
	case LACE_SUFFIX_ISRA: return "isra";
	case LACE_SUFFIX_CONSTPROP: return "constprop";
	case LACE_SUFFIX_LLVM: return "llvm";
	case LACE_SUFFIX_OTHER: return "other";
	}
	return "";
}

/* Name -> function index, open addressing; chains of equal names are
 * visited in full so a local piece finds the parent from its own file. */
struct name_map {
	int *slot;
	size_t mask;
};

static size_t hash_mem(const char *s, size_t n)
{
	size_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void map_build(struct name_map *m, const struct lace_image *img)
{
	size_t cap = 16;
	while (cap < img->nfuncs * 2)
		cap <<= 1;
	m->slot = xmalloc(cap * sizeof(*m->slot));
	memset(m->slot, -1, cap * sizeof(*m->slot));
	m->mask = cap - 1;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const char *n = img->funcs[i].name;
		size_t h = hash_mem(n, strlen(n)) & m->mask;
		while (m->slot[h] >= 0)
			h = (h + 1) & m->mask;
		m->slot[h] = (int)i;
	}
}

static bool same_file(const struct lace_function *a, const struct lace_function *b)
{
	if (!a->file || !b->file)
		return !a->file && !b->file;
	return !strcmp(a->file, b->file);
}

/* The best function named name[0..n) for piece p: a local of p's own file
 * first, then a global, then any. */
static int map_find(const struct name_map *m, const struct lace_image *img, const char *name,
		    size_t n, const struct lace_function *p)
{
	int any = -1, glob = -1;
	for (size_t h = hash_mem(name, n) & m->mask; m->slot[h] >= 0; h = (h + 1) & m->mask) {
		const struct lace_function *f = &img->funcs[m->slot[h]];
		if (strlen(f->name) != n || memcmp(f->name, name, n) || f == p)
			continue;
		if (!f->global && !p->global && same_file(f, p))
			return m->slot[h];
		if (f->global && glob < 0)
			glob = m->slot[h];
		if (any < 0)
			any = m->slot[h];
	}
	return glob >= 0 ? glob : any;
}

void functions_join_parents(struct lace_image *img)
{
	struct name_map m;

	for (size_t i = 0; i < img->nfuncs; i++) {
		struct lace_function *f = &img->funcs[i];
		size_t base;
		f->suffix = name_parse_suffix(f->name, &base);
		f->base_name = xstrndup(f->name, base);
		f->parent = -1;
	}
	map_build(&m, img);
	for (size_t i = 0; i < img->nfuncs; i++) {
		struct lace_function *f = &img->funcs[i];
		if (f->suffix == LACE_SUFFIX_NONE)
			continue;
		/* strip one suffix step at a time: the nearest existing ancestor
		 * ("a.constprop.0.cold" -> "a.constprop.0" before "a") */
		char *name = xstrdup(f->name);
		for (;;) {
			size_t n = name_strip_last(name);
			if (n == strlen(name))
				break;
			name[n] = '\0';
			int p = map_find(&m, img, name, n, f);
			if (p >= 0) {
				f->parent = p;
				break;
			}
		}
		free(name);
	}
	free(m.slot);
}
