/* The SVG layout map of lace diff.
 *
 * Each image's code is drawn as a grid of 4 KiB page cells ("strip"),
 * old on the left, new on the right, pages in address order with gaps
 * between regions left out.  A cell takes the colour of the region holding
 * most of its function bytes; pages touched by hot functions get a dark
 * outline; functions that changed region are linked from their old page to
 * their new one.  Where the page rules use a larger page (2 MiB: x86-64
 * kernel text), a purple bar marks where a new one starts and a function
 * crossing one is outlined in purple.  Every cell and link carries a
 * <title> (tooltip). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/hotset.h"
#include "layout/svg.h"
#include "util/array.h"
#include "util/bsearch.h"
#include "util/xalloc.h"

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8",
};
#define NPAL (ARRAY_SIZE(palette))
#define MAX_LINKS 400
#define SVG_MAX_PAGES (1u << 16)

struct strip {
	const struct lace_image *img;
	uint64_t *pages;    /* sorted page numbers drawn */
	size_t n;
	int *colour;        /* palette slot per page, -1 none */
	bool *hot;
	bool *big;          /* a new rule page (2 MiB: kernel text) starts here */
	uint64_t rule_page; /* the diff's rule page of this side, when larger than a drawn page, else 0 */
	int x0, y0, cols, rows;
};

/* Colours go to regions holding code (in either image), in region order, so
 * the dozen palette entries are not spent on empty regions. */
static const char *region_colour(const struct lace_diff *d, int slot)
{
	int rank = 0;

	if (slot < 0 || (size_t)slot >= d->nregions)
		return "#cccccc";
	for (int i = 0; i < slot; i++)
		rank += d->regions[i].old_bytes || d->regions[i].new_bytes;
	return palette[rank % NPAL];
}

static bool region_shown(const struct lace_diff *d, size_t i)
{
	return d->regions[i].old_bytes || d->regions[i].new_bytes;
}

/* Last byte of f, clamped when a bogus size wraps the address space. */
static uint64_t func_last(const struct lace_function *f)
{
	uint64_t e = f->addr + f->size - 1;
	return e < f->addr ? UINT64_MAX : e;
}

static int page_cmp(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = *(const uint64_t *)elem;

	return a < b ? -1 : a > b;
}

static long page_index(const struct strip *s, uint64_t page)
{
	size_t i = bsearch_lower(&page, s->pages, s->n, sizeof(*s->pages), page_cmp);

	return i < s->n && s->pages[i] == page ? (long)i : -1;
}

static int region_slot(const struct lace_diff *d, const struct lace_image *img, int r)
{
	if (r < 0 || (size_t)r >= img->nregions)
		return -1;
	for (size_t i = 0; i < d->nregions; i++)
		if (!strcmp(d->regions[i].name, img->regions[r].name ? img->regions[r].name : ""))
			return (int)i;
	return -1;
}

static void strip_build(const struct lace_diff *d, struct strip *s, int side)
{
	const struct lace_image *img = side ? d->new : d->old;
	const int *map = side ? d->new_to_delta : d->old_to_delta;
	unsigned page = img->geom.page ? img->geom.page : 4096;
	size_t alloc = 0, m = 0;

	memset(s, 0, sizeof(*s));
	s->img = img;
	/* pages holding function bytes (cheaper and more telling than whole
	 * regions), from merged intervals, at most SVG_MAX_PAGES of them: a
	 * symbol claiming a huge size must not make the map huge */
	size_t n = 0, nint, cap = 0;
	uint64_t *st = xcalloc(img->nfuncs + 1, sizeof(*st)), *sz = xcalloc(img->nfuncs + 1, sizeof(*sz));
	for (size_t i = 0; i < img->nfuncs; i++) {
		if (map[i] < 0 || !img->funcs[i].size)
			continue;
		st[n] = img->funcs[i].addr;
		sz[n++] = img->funcs[i].size;
	}
	uint64_t *iv = ranges_units(st, sz, n, page, &nint);
	free(st);
	free(sz);
	for (size_t i = 0; i < nint && m < SVG_MAX_PAGES; i++) {
		for (uint64_t p = iv[2 * i]; m < SVG_MAX_PAGES; p++) {
			ALLOC_GROW(s->pages, m + 1, cap);
			s->pages[m++] = p;
			if (p == iv[2 * i + 1])
				break;
		}
	}
	free(iv);
	size_t k = m;
	s->n = k;
	(void)alloc;
	s->colour = xcalloc(k + 1, sizeof(int));
	s->hot = xcalloc(k + 1, sizeof(bool));
	s->big = xcalloc(k + 1, sizeof(bool));
	/* x86-64 kernel text is mapped with 2 MiB pages (the diff's rule
	 * page): mark where the drawn 4 KiB pages enter the next one */
	s->rule_page = d->rule_page[side] > page ? d->rule_page[side] : 0;
	for (size_t i = 1; s->rule_page && i < k; i++)
		s->big[i] = s->pages[i] * page / s->rule_page != s->pages[i - 1] * page / s->rule_page;
	size_t nr = d->nregions + 1; /* last slot: outside every region */
	uint64_t *bytes = xcalloc((k + 1) * nr, sizeof(uint64_t));
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (map[i] < 0 || !f->size)
			continue;
		int slot = region_slot(d, img, f->region);
		bool hot = d->funcs[map[i]].hot && f->suffix != LACE_SUFFIX_COLD;
		uint64_t first = f->addr / page, last = func_last(f) / page;
		if (last < first || last - first >= SVG_MAX_PAGES)
			last = first + SVG_MAX_PAGES - 1; /* absurd sizes: the map holds no more */
		for (uint64_t p = first; p <= last; p++) {
			long pi = page_index(s, p);
			if (pi < 0)
				continue;
			uint64_t lo = f->addr > p * page ? f->addr : p * page;
			uint64_t hi = func_last(f) < (p + 1) * page - 1 ? func_last(f) : (p + 1) * page - 1;
			bytes[(size_t)pi * nr + (slot >= 0 ? (size_t)slot : nr - 1)] += hi - lo + 1;
			s->hot[pi] |= hot;
		}
	}
	/* a page takes the colour of the region holding most of its function bytes */
	for (size_t i = 0; i < k; i++) {
		uint64_t best = 0;
		s->colour[i] = -1;
		for (size_t r = 0; r + 1 < nr; r++) {
			if (bytes[i * nr + r] > best) {
				best = bytes[i * nr + r];
				s->colour[i] = (int)r;
			}
		}
	}
	free(bytes);
}

static void cell_xy(const struct strip *s, long i, int cell, int *x, int *y)
{
	*x = s->x0 + (int)(i % s->cols) * cell;
	*y = s->y0 + (int)(i / s->cols) * cell;
}

static void strip_draw(const struct lace_diff *d, const struct strip *s, int cell, const char *title,
		       struct strbuf *sb)
{
	unsigned page = s->img->geom.page ? s->img->geom.page : 4096;

	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"h\">", s->x0, s->y0 - 26);
	strbuf_add_xml(sb, title);
	strbuf_addf(sb, "</text>\n<text x=\"%d\" y=\"%d\" class=\"s\">", s->x0, s->y0 - 10);
	strbuf_add_xml(sb, s->img->path ? s->img->path : "");
	strbuf_addf(sb, " (%zu pages)</text>\n<g>\n", s->n);
	for (size_t i = 0; i < s->n; i++) {
		int x, y;
		cell_xy(s, (long)i, cell, &x, &y);
		const char *fill = region_colour(d, s->colour[i]);
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s><title>0x%" PRIx64
			    " %s%s</title></rect>\n", x, y, cell - 1, cell - 1, fill,
			    s->hot[i] ? " class=\"hot\"" : "", s->pages[i] * page,
			    s->colour[i] >= 0 ? "" : "", s->hot[i] ? "(hot)" : "");
		/* page gaps (another region far away) start a visible break */
		if (i && s->pages[i] != s->pages[i - 1] + 1)
			strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"2\" height=\"%d\" fill=\"#000\"/>\n", x - 1, y,
				    cell - 1);
		if (s->big[i])
			strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"3\" height=\"%d\" class=\"big\"><title>%" PRIu64
				    " KiB page boundary: 0x%" PRIx64 "</title></rect>\n", x - 2, y - 1, cell + 1,
				    s->rule_page >> 10, s->pages[i] * page / s->rule_page * s->rule_page);
	}
	strbuf_addstr(sb, "</g>\n");
	(void)d;
}

/* ---- detailed map (small images): one bar per page, functions inside ---- */

#define DETAIL_MAX_PAGES 48
#define DW 480   /* page width in px */
#define DH 22    /* page row height */

static void func_rects(const struct lace_diff *d, const struct strip *s, int side, int x0, int y0,
		       struct strbuf *sb)
{
	const struct lace_image *img = s->img;
	const int *map = side ? d->new_to_delta : d->old_to_delta;
	unsigned page = img->geom.page ? img->geom.page : 4096;

	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (map[i] < 0 || !f->size)
			continue;
		const struct lace_func_delta *fd = &d->funcs[map[i]];
		int slot = region_slot(d, img, f->region);
		const char *fill = region_colour(d, slot);
		bool hot = fd->hot && f->suffix != LACE_SUFFIX_COLD;
		bool crosses = s->rule_page && f->addr / s->rule_page != func_last(f) / s->rule_page;
		uint64_t first = f->addr / page, last = func_last(f) / page;
		if (last < first || last - first >= DETAIL_MAX_PAGES)
			last = first + DETAIL_MAX_PAGES - 1;
		for (uint64_t p = first; p <= last; p++) {
			long pi = page_index(s, p);
			if (pi < 0)
				continue;
			uint64_t lo = f->addr > p * page ? f->addr : p * page;
			uint64_t hi = func_last(f) < (p + 1) * page - 1 ? func_last(f) : (p + 1) * page - 1;
			double x = x0 + (double)(lo - p * page) * DW / page, w = (double)(hi - lo + 1) * DW / page;
			int y = y0 + (int)pi * DH;
			if (w < 1.5)
				w = 1.5;
			strbuf_addf(sb, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s><title>",
				    x, y + 2, w, DH - 6, fill,
				    crosses ? " class=\"cross\"" : hot ? " class=\"hot\"" : "");
			strbuf_add_xml(sb, f->name);
			strbuf_addf(sb, " 0x%" PRIx64 " +%" PRIu64 "%s", f->addr, f->size, hot ? " (hot)" : "");
			if (crosses)
				strbuf_addf(sb, " crosses a %" PRIu64 " KiB page boundary", s->rule_page >> 10);
			strbuf_addstr(sb, "</title></rect>\n");
			/* a name label when it fits (about 6 px per character at 10 px) */
			if (w >= 6.0 * (double)strlen(f->name) + 4) {
				strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" class=\"fn\">", x + 2, y + DH - 8);
				strbuf_add_xml(sb, f->name);
				strbuf_addstr(sb, "</text>\n");
			}
		}
	}
}

/* The legend line of the large pages, when a side's rule page is larger
 * than the drawn 4 KiB one (2 MiB for x86-64 kernel text). */
static void big_legend(const struct lace_diff *d, const struct strip s[2], int x, int y, struct strbuf *sb)
{
	uint64_t rp = s[1].rule_page ? s[1].rule_page : s[0].rule_page;

	if (!rp)
		return;
	strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" class=\"big\"/>"
		    "<text x=\"%d\" y=\"%d\" class=\"l\">%" PRIu64 " KiB page boundary (the page rules' page%s)",
		    x, y + 5, x + 20, y + 12, rp >> 10, rp == 2u << 20 ? ": x86-64 kernel text is mapped with 2 MiB pages" : "");
	if (rp == 2u << 20)
		strbuf_addf(sb, "; hot 2 MiB pages %zu -> %zu", d->hot_old.hugepages, d->hot_new.hugepages);
	strbuf_addstr(sb, "</text>\n");
}

static void render_detail(const struct lace_diff *d, struct strip s[2], struct strbuf *sb)
{
	int margin = 30, label = 96, gap = 170, top = 90;
	int x[2] = { margin + label, margin + label + DW + gap + label };
	size_t n = s[0].n > s[1].n ? s[0].n : s[1].n;
	int rows = n ? (int)n : 1;
	int legend_rows = (int)((d->nregions + 3) / 4) + 2;
	int w = x[1] + DW + margin, h = top + rows * DH + 30 + legend_rows * 20 + margin;

	strbuf_addf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		    " font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
		    "<style>.h{font-size:16px;font-weight:bold}.s{font-size:11px;fill:#444}"
		    ".l{font-size:12px}.fn{font-size:10px;fill:#fff}.a{font-size:10px;fill:#444;font-family:monospace}"
		    ".hot{stroke:#000;stroke-width:1.5}.pg{fill:#f4f4f4;stroke:#bbb;stroke-width:0.5}"
		    ".big{fill:#9400d3}.cross{stroke:#9400d3;stroke-width:2.5}"
		    ".ln{stroke:#d62728;stroke-width:1.4;fill:none;opacity:0.8}"
		    ".lo{stroke:#ff7f0e;stroke-width:1;fill:none;opacity:0.7;stroke-dasharray:4 2}</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", w, h, w, h);
	strbuf_addf(sb, "<text x=\"%d\" y=\"24\" class=\"h\">lace diff layout map: one bar per 4 KiB page, "
		    "functions coloured by region; outlined = hot</text>\n", margin);
	strbuf_addf(sb, "<text x=\"%d\" y=\"42\" class=\"s\">red links: changed region; dashed orange: other "
		    "changes (aligned, resized, straddle)</text>\n", margin);
	/* links first, so the page bars cover them except in the gutter:
	 * old position -> new position of each changed function */
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct lace_func_delta *f = &d->funcs[i];
		if (!(f->changes & LACE_CH_REAL) || f->old_idx < 0 || f->new_idx < 0)
			continue;
		const struct lace_function *of = &d->old->funcs[f->old_idx], *nf = &d->new->funcs[f->new_idx];
		unsigned po = d->old->geom.page ? d->old->geom.page : 4096, pn = d->new->geom.page ? d->new->geom.page : 4096;
		long a = page_index(&s[0], of->addr / po), b = page_index(&s[1], nf->addr / pn);
		if (a < 0 || b < 0)
			continue;
		double x1 = x[0] + (double)((of->addr % po) + of->size / 2) * DW / po;
		double x2 = x[1] + (double)(nf->addr % pn) * DW / pn;
		int y1 = top + (int)a * DH + DH / 2, y2 = top + (int)b * DH + DH / 2;
		if (x1 > x[0] + DW)
			x1 = x[0] + DW;
		double mx1 = x[0] + DW + gap / 2.0, mx2 = x[1] - label - gap / 2.0 + label;
		strbuf_addf(sb, "<path class=\"%s\" d=\"M%.1f %d C%.1f %d %.1f %d %.1f %d\"><title>",
			    f->changes & LACE_CH_REGION ? "ln" : "lo", x1, y1, mx1 + 40, y1, mx2 - 40, y2, x2, y2);
		strbuf_add_xml(sb, f->name);
		strbuf_addf(sb, "</title></path>\n");
	}
	for (int k = 0; k < 2; k++) {
		unsigned page = s[k].img->geom.page ? s[k].img->geom.page : 4096;
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"h\">%s</text>\n<text x=\"%d\" y=\"%d\" class=\"s\">",
			    x[k], top - 24, k ? "new" : "old", x[k] + 40, top - 24);
		strbuf_add_xml(sb, s[k].img->path ? s[k].img->path : "");
		strbuf_addf(sb, " (%zu pages)</text>\n", s[k].n);
		for (size_t i = 0; i < s[k].n; i++) {
			int y = top + (int)i * DH;
			strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"pg\"/>"
				    "<text x=\"%d\" y=\"%d\" class=\"a\">0x%" PRIx64 "</text>\n",
				    x[k], y + 1, DW, DH - 4, x[k] - label, y + DH - 8, s[k].pages[i] * page);
			/* a 2 MiB page starts at (or, past a gap, before) this row */
			if (s[k].big[i])
				strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"3\" class=\"big\"><title>%"
					    PRIu64 " KiB page boundary: 0x%" PRIx64 "</title></rect>\n", x[k] - label, y - 2,
					    DW + label, s[k].rule_page >> 10,
					    s[k].pages[i] * page / s[k].rule_page * s[k].rule_page);
		}
		func_rects(d, &s[k], k, x[k], top, sb);
	}
	int ly = top + rows * DH + 30;
	for (size_t i = 0, k = 0; i < d->nregions; i++) {
		if (!region_shown(d, i))
			continue;
		int lx = margin + (int)(k % 4) * 260, y = ly + (int)(k / 4) * 20;
		k++;
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" class=\"l\">", lx, y, region_colour(d, (int)i), lx + 20, y + 12);
		strbuf_add_xml(sb, d->regions[i].name);
		strbuf_addf(sb, " (%" PRIu64 " -> %" PRIu64 " B)</text>\n", d->regions[i].old_bytes,
			    d->regions[i].new_bytes);
	}
	ly += (int)((d->nregions + 3) / 4) * 20;
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"l\">%zu functions changed (%zu changed region); hot "
		    "footprint %zu -> %zu lines, %zu -> %zu pages</text>\n", margin, ly + 12,
		    d->counts.changed, d->counts.region, d->hot_old.lines, d->hot_new.lines, d->hot_old.pages,
		    d->hot_new.pages);
	big_legend(d, s, margin, ly + 20, sb);
	strbuf_addstr(sb, "</svg>\n");
}

void diff_svg_render(const struct lace_diff *d, struct strbuf *sb)
{
	struct strip s[2];
	strip_build(d, &s[0], 0);
	strip_build(d, &s[1], 1);
	size_t n = s[0].n > s[1].n ? s[0].n : s[1].n;
	if (n <= DETAIL_MAX_PAGES) {
		render_detail(d, s, sb);
		goto out;
	}
	int cols = n > 4096 ? 96 : n > 1024 ? 64 : n > 64 ? 32 : 16;
	int cell = n > 4096 ? 7 : n > 1024 ? 9 : n > 64 ? 14 : 24;
	int gap = 120, margin = 30, top = 90;
	int rows = (int)((n + cols - 1) / cols);
	if (rows < 1)
		rows = 1;
	int w = 2 * margin + 2 * cols * cell + gap;
	int legend_rows = (int)((d->nregions + 3) / 4) + 2;
	int h = top + rows * cell + 30 + legend_rows * 20 + margin;

	for (int k = 0; k < 2; k++) {
		s[k].cols = cols;
		s[k].rows = rows;
		s[k].x0 = margin + k * (cols * cell + gap);
		s[k].y0 = top;
	}
	strbuf_addf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		    " font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
		    "<style>.h{font-size:16px;font-weight:bold}.s{font-size:11px;fill:#444}"
		    ".l{font-size:12px}.hot{stroke:#000;stroke-width:1.5}.big{fill:#9400d3}"
		    ".ln{stroke:#d62728;stroke-width:1.2;fill:none;opacity:0.75}</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", w, h, w, h);
	strbuf_addf(sb, "<text x=\"%d\" y=\"24\" class=\"h\">lace diff layout map: 4 KiB pages, %d per row, "
		    "coloured by region; outlined = hot; red = moved to another region</text>\n", margin, cols);
	/* links for functions that changed region, under the page cells */
	size_t links = 0, skipped = 0;
	strbuf_addstr(sb, "<g>\n");
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct lace_func_delta *f = &d->funcs[i];
		if (!(f->changes & LACE_CH_REGION) || f->old_idx < 0 || f->new_idx < 0)
			continue;
		if (links >= MAX_LINKS) {
			skipped++;
			continue;
		}
		const struct lace_function *of = &d->old->funcs[f->old_idx], *nf = &d->new->funcs[f->new_idx];
		long a = page_index(&s[0], of->addr / (d->old->geom.page ? d->old->geom.page : 4096));
		long b = page_index(&s[1], nf->addr / (d->new->geom.page ? d->new->geom.page : 4096));
		if (a < 0 || b < 0)
			continue;
		int x1, y1, x2, y2;
		cell_xy(&s[0], a, cell, &x1, &y1);
		cell_xy(&s[1], b, cell, &x2, &y2);
		x1 += cell / 2, y1 += cell / 2, x2 += cell / 2, y2 += cell / 2;
		int mx = (x1 + x2) / 2;
		strbuf_addf(sb, "<path class=\"ln\" d=\"M%d %d C%d %d %d %d %d %d\"><title>", x1, y1, mx, y1, mx, y2,
			    x2, y2);
		strbuf_add_xml(sb, f->name);
		strbuf_addf(sb, ": %s -> %s</title></path>\n", image_func_region_name(d->old, f->old_idx),
			    image_func_region_name(d->new, f->new_idx));
		links++;
	}
	strbuf_addstr(sb, "</g>\n");
	strip_draw(d, &s[0], cell, "old", sb);
	strip_draw(d, &s[1], cell, "new", sb);

	/* legend */
	int ly = top + rows * cell + 30;
	for (size_t i = 0, k = 0; i < d->nregions; i++) {
		if (!region_shown(d, i))
			continue;
		int lx = margin + (int)(k % 4) * 260, y = ly + (int)(k / 4) * 20;
		k++;
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" class=\"l\">", lx, y, region_colour(d, (int)i), lx + 20, y + 12);
		strbuf_add_xml(sb, d->regions[i].name);
		strbuf_addf(sb, " (%" PRIu64 " -> %" PRIu64 " B)</text>\n", d->regions[i].old_bytes,
			    d->regions[i].new_bytes);
	}
	ly += (int)((d->nregions + 3) / 4) * 20;
	strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#fff\" class=\"hot\"/>"
		    "<text x=\"%d\" y=\"%d\" class=\"l\">hot page (%zu -> %zu)</text>", margin, ly,
		    margin + 20, ly + 12, d->hot_old.pages, d->hot_new.pages);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"l\">%zu functions changed region%s</text>\n",
		    margin + 260, ly + 12, d->counts.region, skipped ? " (first 400 linked)" : "");
	big_legend(d, s, margin, ly + 20, sb);
	strbuf_addstr(sb, "</svg>\n");
out:
	for (int k = 0; k < 2; k++) {
		free(s[k].pages);
		free(s[k].colour);
		free(s[k].hot);
		free(s[k].big);
	}
}
