/* Regions: every code section, the ranges bracketed by marker symbols
 * inside them (the kernel's __entry_text_start/_end and friends, the
 * linker's __start_SEC/__stop_SEC), and the run of GCC .cold pieces where
 * .text.unlikely was merged into .text.  Marker regions may nest (the
 * kernel's irqentry text sits inside its entry text) but never cross; an
 * address belongs to the innermost region holding it. */
#include "layout/image_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/names.h"
#include "util/xalloc.h"

static void region_add(struct lace_image *img, size_t *alloc, const char *name,
		       enum lace_region_kind kind, uint64_t start, uint64_t end, int section,
		       const char *ssym, const char *esym)
{
	ALLOC_GROW(img->regions, img->nregions + 1, *alloc);
	struct lace_region *r = &img->regions[img->nregions++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->kind = kind;
	r->start = start;
	r->end = end;
	r->section = section;
	r->start_symbol = ssym ? xstrdup(ssym) : NULL;
	r->end_symbol = esym ? xstrdup(esym) : NULL;
	r->parent = -1;
}

/* "__entry_text_start" -> "entry"; "__start_foo" -> "foo" (the end
 * marker's name is written to *end_name). */
static char *marker_pair(const char *n, char **end_name)
{
	size_t l = strlen(n);
	static const char tail[] = "_text_start";
	const size_t tl = sizeof(tail) - 1;

	if (l > tl + 2 && !strncmp(n, "__", 2) && !strcmp(n + l - tl, tail)) {
		char *base = xstrndup(n + 2, l - tl - 2);
		size_t bl = strlen(base);
		*end_name = xmalloc(bl + sizeof("___text_end"));
		strcpy(*end_name, "__");
		strcat(*end_name, base);
		strcat(*end_name, "_text_end");
		return base;
	}
	if (l > 8 && !strncmp(n, "__start_", 8)) {
		*end_name = xmalloc(l);
		strcpy(*end_name, "__stop_");
		strcat(*end_name, n + 8);
		return xstrdup(n + 8);
	}
	return NULL;
}

static int cmp_region(const void *a, const void *b)
{
	const struct lace_region *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* enclosing first */
	return (int)x->kind - (int)y->kind;      /* section before marker */
}

static bool contains(const struct lace_region *outer, const struct lace_region *inner)
{
	return outer->start <= inner->start && inner->end <= outer->end;
}

/* The region holding [s,e) most tightly among regions[0..n), or -1. */
static int innermost(const struct lace_image *img, size_t n, uint64_t s, uint64_t e)
{
	int best = -1;
	for (size_t i = 0; i < n; i++) {
		const struct lace_region *r = &img->regions[i];
		if (r->start <= s && e <= r->end && (r->start < r->end || s == e) &&
		    (best < 0 || r->end - r->start <= img->regions[best].end - img->regions[best].start))
			best = (int)i;
	}
	return best;
}

static void rmap_build(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	size_t nb = 0;
	uint64_t *b = xmalloc((img->nregions * 2 + 1) * sizeof(*b));

	for (size_t i = 0; i < img->nregions; i++) {
		b[nb++] = img->regions[i].start;
		b[nb++] = img->regions[i].end;
	}
	/* sort boundaries (insertion: a few hundred at most) */
	for (size_t i = 1; i < nb; i++)
		for (size_t j = i; j && b[j - 1] > b[j]; j--) {
			uint64_t t = b[j]; b[j] = b[j - 1]; b[j - 1] = t;
		}
	free(p->rmap);
	p->rmap = xmalloc(nb * sizeof(*p->rmap));
	p->nrmap = 0;
	for (size_t i = 0; i + 1 < nb; i++) {
		if (b[i] == b[i + 1])
			continue;
		int r = innermost(img, img->nregions, b[i], b[i + 1]);
		if (r < 0)
			continue;
		if (p->nrmap && p->rmap[p->nrmap - 1].end == b[i] && p->rmap[p->nrmap - 1].region == r) {
			p->rmap[p->nrmap - 1].end = b[i + 1];
			continue;
		}
		p->rmap[p->nrmap].start = b[i];
		p->rmap[p->nrmap].end = b[i + 1];
		p->rmap[p->nrmap].region = r;
		p->nrmap++;
	}
	free(b);
}

static int span_cmp_end(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, e = ((const struct region_span *)elem)->end;

	return a < e ? -1 : a > e;
}

int image_region_at(const struct lace_image *img, uint64_t addr)
{
	const struct image_priv *p = image_priv(img);
	if (!p)
		return -1;
	/* the first span ending after addr */
	size_t lo = bsearch_upper(&addr, p->rmap, p->nrmap, sizeof(*p->rmap), span_cmp_end);
	if (lo < p->nrmap && p->rmap[lo].start <= addr)
		return p->rmap[lo].region;
	return -1;
}

static bool unlikely_section(const char *n)
{
	return !strncmp(n, ".text.unlikely", 14) || !strncmp(n, ".text.cold", 10);
}

/* The merged .text.unlikely: from the first .cold piece to the end of the
 * last one that sits directly in the section's region. */
static void cold_regions_add(struct lace_image *img, size_t *alloc)
{
	size_t nsec_regions = img->nregions;
	for (size_t ri = 0; ri < nsec_regions; ri++) {
		struct lace_region *r = &img->regions[ri];
		if (r->kind != LACE_REGION_SECTION || unlikely_section(r->name))
			continue;
		uint64_t lo = UINT64_MAX, hi = 0;
		size_t n = 0;
		for (size_t i = 0; i < img->nfuncs; i++) {
			const struct lace_function *f = &img->funcs[i];
			if (f->suffix != LACE_SUFFIX_COLD || f->addr < r->start || f->addr >= r->end)
				continue;
			int in = innermost(img, img->nregions, f->addr, f->addr + 1);
			if (in >= 0 && img->regions[in].kind != LACE_REGION_SECTION)
				continue; /* a cold piece inside a marker region stays there */
			lo = f->addr < lo ? f->addr : lo;
			hi = f->addr + f->size > hi ? f->addr + f->size : hi;
			n++;
		}
		if (!n)
			continue;
		if (hi > r->end)
			hi = r->end;
		/* never cross a marker region: stop at the first one inside */
		for (size_t j = 0; j < img->nregions; j++) {
			const struct lace_region *m = &img->regions[j];
			if (m->kind == LACE_REGION_MARKER && m->start < hi && m->end > lo &&
			    !(m->start <= lo && hi <= m->end)) {
				if (m->start > lo)
					hi = m->start < hi ? m->start : hi;
				else
					lo = m->end > lo ? m->end : lo;
			}
		}
		if (lo >= hi)
			continue;
		char name[256];
		if (!strcmp(img->regions[ri].name, ".text"))
			snprintf(name, sizeof(name), "cold");
		else
			snprintf(name, sizeof(name), "cold:%s", img->regions[ri].name);
		region_add(img, alloc, name, LACE_REGION_COLD, lo, hi, img->regions[ri].section, NULL, NULL);
	}
}

void regions_build(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	size_t alloc = 0;

	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		/* a section whose end wraps past 2^64 (a corrupt header) bounds
		 * no range: leaving it out keeps every region start < end */
		if (s->code && s->alloc && s->size && s->addr + s->size > s->addr)
			region_add(img, &alloc, s->name, LACE_REGION_SECTION, s->addr, s->addr + s->size,
				   (int)i, NULL, NULL);
	}
	size_t nsec = img->nregions;

	/* marker pairs bracketing code */
	for (size_t i = 0; i < p->nsyms; i++) {
		char *end_name = NULL;
		char *base = marker_pair(p->syms[i].name, &end_name);
		if (!base)
			continue;
		const struct image_symbol *st = &p->syms[i];
		const struct image_symbol *en = image_symbol_find(img, end_name);
		int sec = -1;
		for (size_t r = 0; r < nsec && en; r++)
			if (img->regions[r].start <= st->addr && st->addr <= img->regions[r].end &&
			    en->addr <= img->regions[r].end && st->addr <= en->addr)
				sec = img->regions[r].section;
		bool dup = false;
		for (size_t r = 0; r < img->nregions; r++)
			if (sec >= 0 && img->regions[r].start == st->addr && en && img->regions[r].end == en->addr &&
			    !strcmp(img->regions[r].name, base))
				dup = true; /* __start_SEC of an orphan section SEC: the section says it */
		if (sec >= 0 && !dup)
			region_add(img, &alloc, base, LACE_REGION_MARKER, st->addr, en->addr, sec,
				   st->name, en->name);
		free(base);
		free(end_name);
	}
	/* drop a marker region crossing an earlier one: regions nest or are apart */
	for (size_t i = nsec; i < img->nregions; i++) {
		for (size_t j = nsec; j < i; j++) {
			struct lace_region *a = &img->regions[j], *b = &img->regions[i];
			bool overlap = a->start < b->end && b->start < a->end;
			if (overlap && !contains(a, b) && !contains(b, a)) {
				image_warn(img, "marker region %s [%#llx, %#llx) crosses %s; ignored", b->name,
					   (unsigned long long)b->start, (unsigned long long)b->end, a->name);
				free(b->name);
				free(b->start_symbol);
				free(b->end_symbol);
				img->regions[i] = img->regions[--img->nregions];
				i--;
				break;
			}
		}
	}
	/* cold pieces need their suffix: functions_join_parents ran before */
	cold_regions_add(img, &alloc);

	/* regions is NULL when there are none: qsort(NULL, 0) is undefined */
	if (img->nregions > 1)
		qsort(img->regions, img->nregions, sizeof(*img->regions), cmp_region);
	for (size_t i = 0; i < img->nregions; i++) {
		struct lace_region *r = &img->regions[i];
		r->parent = -1;
		for (size_t j = 0; j < img->nregions; j++) {
			const struct lace_region *o = &img->regions[j];
			if (j == i || !contains(o, r) || (o->start == r->start && o->end == r->end && j > i))
				continue;
			if (r->parent < 0 || o->end - o->start <= img->regions[r->parent].end - img->regions[r->parent].start)
				r->parent = (int)j;
		}
	}
	rmap_build(img);
	for (size_t i = 0; i < img->nfuncs; i++) {
		struct lace_function *f = &img->funcs[i];
		f->region = image_region_at(img, f->addr);
		if (f->region >= 0) {
			img->regions[f->region].nfuncs++;
			img->regions[f->region].func_bytes += f->size;
		}
	}
}
