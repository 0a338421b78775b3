/* Alignment, lines/pages spanned and straddles of each function. */
#include "layout/geometry.h"
#include "layout/image_priv.h"

#include <stdlib.h>

#include "util/xalloc.h"

uint64_t geom_alignment(uint64_t addr, uint64_t cap)
{
	if (!addr)
		return cap;
	uint64_t a = addr & -addr; /* lowest set bit */
	return a < cap ? a : cap;
}

unsigned geom_span(uint64_t addr, uint64_t size, uint64_t unit)
{
	if (!size)
		return 0;
	uint64_t first = addr / unit, last = (addr + size - 1) / unit;
	return (unsigned)(last - first + 1);
}

unsigned geom_min_span(uint64_t size, uint64_t unit)
{
	return (unsigned)((size + unit - 1) / unit);
}

bool geom_straddles(uint64_t addr, uint64_t size, uint64_t unit)
{
	return geom_span(addr, size, unit) > geom_min_span(size, unit);
}

static bool pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

bool geom_valid(const struct lace_geometry *g)
{
	return pow2(g->line) && pow2(g->page) && pow2(g->fetch) && g->line <= g->page;
}

/* In a relocatable file lace chose the section's address, aligned to
 * sh_addralign and no more: the linker promises nothing beyond it, so a
 * function at offset 0 of a 16-aligned .text is 16-aligned, not 4096. */
static uint64_t function_align_cap(const struct lace_image *img, const struct lace_function *f)
{
	uint64_t cap = img->geom.page;

	if (img->relocatable && f->section >= 0) {
		unsigned pw = img->sections[f->section].align_pow;
		uint64_t sa = (uint64_t)1 << (pw < 32 ? pw : 32);
		if (sa < cap)
			cap = sa;
	}
	return cap;
}

void geometry_compute(struct lace_image *img)
{
	const struct lace_geometry *g = &img->geom;
	/* previous function end per section: functions are sorted by address,
	 * so the last one seen in a section is the one just before */
	uint64_t *prev_end = xcalloc(img->nsections, sizeof(*prev_end));
	bool *seen = xcalloc(img->nsections, sizeof(*seen));

	for (size_t i = 0; i < img->nfuncs; i++) {
		struct lace_function *f = &img->funcs[i];

		f->alignment = geom_alignment(f->addr, function_align_cap(img, f));
		f->lines = geom_span(f->addr, f->size, g->line);
		f->pages = geom_span(f->addr, f->size, g->page);
		f->straddles_line = geom_straddles(f->addr, f->size, g->line);
		f->straddles_page = geom_straddles(f->addr, f->size, g->page);
		f->pad_before = 0;
		if (f->section < 0)
			continue;
		uint64_t from = seen[f->section] ? prev_end[f->section] : img->sections[f->section].addr;
		if (f->addr > from)
			f->pad_before = f->addr - from;
		uint64_t end = f->addr + f->size;
		if (!seen[f->section] || end > prev_end[f->section])
			prev_end[f->section] = end;
		seen[f->section] = true;
	}
	free(prev_end);
	free(seen);
}
