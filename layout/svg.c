/* The SVG layout map of lace diff.
 *
 * Each image's code is drawn as a grid of 4 KiB page cells ("strip"),
 * old on the left, new on the right, pages in address order with gaps
 * between regions left out.  A cell takes the colour of the region holding
 * most of its function bytes; pages touched by hot functions get a dark
 * outline; functions that changed region are linked from their old page to
 * their new one.  Every cell and link carries a <title> (tooltip). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/svg.h"
#include "util/xalloc.h"

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8",
};
#define NPAL (sizeof(palette) / sizeof(palette[0]))
#define MAX_LINKS 400

struct strip {
	const struct lace_image *img;
	uint64_t *pages;    /* sorted page numbers drawn */
	size_t n;
	int *colour;        /* palette slot per page, -1 none */
	bool *hot;
	int x0, y0, cols, rows;
};

static void xml_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default:
			/* control bytes and stray high bytes are not valid XML text */
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x80)
				strbuf_addch(sb, '?');
			else
				strbuf_addch(sb, *s);
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static long page_index(const struct strip *s, uint64_t page)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->pages[mid] == page)
			return (long)mid;
		if (s->pages[mid] < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
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
	/* pages holding function bytes (cheaper and more telling than whole regions) */
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (map[i] < 0 || !f->size)
			continue;
		for (uint64_t p = f->addr / page; p <= (f->addr + f->size - 1) / page; p++) {
			if (m && s->pages[m - 1] == p)
				continue;
			ALLOC_GROW(s->pages, m + 1, alloc);
			s->pages[m++] = p;
		}
	}
	if (m)
		qsort(s->pages, m, sizeof(*s->pages), cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		if (!k || s->pages[k - 1] != s->pages[i])
			s->pages[k++] = s->pages[i];
	s->n = k;
	s->colour = xcalloc(k + 1, sizeof(int));
	s->hot = xcalloc(k + 1, sizeof(bool));
	uint64_t *best = xcalloc(k + 1, sizeof(uint64_t));
	for (size_t i = 0; i < k; i++)
		s->colour[i] = -1;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (map[i] < 0 || !f->size)
			continue;
		int slot = region_slot(d, img, f->region);
		bool hot = d->funcs[map[i]].hot && f->suffix != LACE_SUFFIX_COLD;
		for (uint64_t p = f->addr / page; p <= (f->addr + f->size - 1) / page; p++) {
			long pi = page_index(s, p);
			if (pi < 0)
				continue;
			uint64_t lo = f->addr > p * page ? f->addr : p * page;
			uint64_t hi = f->addr + f->size < (p + 1) * page ? f->addr + f->size : (p + 1) * page;
			/* majority region by bytes; ties keep the first */
			if (hi - lo > best[pi]) {
				best[pi] = hi - lo;
				s->colour[pi] = slot;
			}
			s->hot[pi] |= hot;
		}
	}
	free(best);
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
	xml_text(sb, title);
	strbuf_addf(sb, "</text>\n<text x=\"%d\" y=\"%d\" class=\"s\">", s->x0, s->y0 - 10);
	xml_text(sb, s->img->path ? s->img->path : "");
	strbuf_addf(sb, " (%zu pages)</text>\n<g>\n", s->n);
	for (size_t i = 0; i < s->n; i++) {
		int x, y;
		cell_xy(s, (long)i, cell, &x, &y);
		const char *fill = s->colour[i] >= 0 ? palette[s->colour[i] % NPAL] : "#cccccc";
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s><title>0x%" PRIx64
			    " %s%s</title></rect>\n", x, y, cell - 1, cell - 1, fill,
			    s->hot[i] ? " class=\"hot\"" : "", s->pages[i] * page,
			    s->colour[i] >= 0 ? "" : "", s->hot[i] ? "(hot)" : "");
		/* page gaps (another region far away) start a visible break */
		if (i && s->pages[i] != s->pages[i - 1] + 1)
			strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"2\" height=\"%d\" fill=\"#000\"/>\n", x - 1, y,
				    cell - 1);
	}
	strbuf_addstr(sb, "</g>\n");
	(void)d;
}

void diff_svg_render(const struct lace_diff *d, struct strbuf *sb)
{
	struct strip s[2];
	strip_build(d, &s[0], 0);
	strip_build(d, &s[1], 1);
	size_t n = s[0].n > s[1].n ? s[0].n : s[1].n;
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
		    ".l{font-size:12px}.hot{stroke:#000;stroke-width:1.5}"
		    ".ln{stroke:#d62728;stroke-width:1.2;fill:none;opacity:0.75}</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", w, h, w, h);
	strbuf_addf(sb, "<text x=\"%d\" y=\"24\" class=\"h\">lace diff layout map: 4 KiB pages, %d per row, "
		    "coloured by region; outlined = hot; red = moved to another region</text>\n", margin, cols);
	strip_draw(d, &s[0], cell, "old", sb);
	strip_draw(d, &s[1], cell, "new", sb);

	/* links for functions that changed region */
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
		xml_text(sb, f->name);
		strbuf_addf(sb, ": %s -> %s</title></path>\n", image_func_region_name(d->old, f->old_idx),
			    image_func_region_name(d->new, f->new_idx));
		links++;
	}
	strbuf_addstr(sb, "</g>\n");

	/* legend */
	int ly = top + rows * cell + 30;
	for (size_t i = 0; i < d->nregions; i++) {
		int lx = margin + (int)(i % 4) * 260, y = ly + (int)(i / 4) * 20;
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" class=\"l\">", lx, y, palette[i % NPAL], lx + 20, y + 12);
		xml_text(sb, d->regions[i].name);
		strbuf_addf(sb, " (%" PRIu64 " -> %" PRIu64 " B)</text>\n", d->regions[i].old_bytes,
			    d->regions[i].new_bytes);
	}
	ly += (int)((d->nregions + 3) / 4) * 20;
	strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#fff\" class=\"hot\"/>"
		    "<text x=\"%d\" y=\"%d\" class=\"l\">hot page (%zu -> %zu)</text>", margin, ly,
		    margin + 20, ly + 12, d->hot_old.pages, d->hot_new.pages);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"l\">%zu functions changed region%s</text>\n",
		    margin + 260, ly + 12, d->counts.region, skipped ? " (first 400 linked)" : "");
	strbuf_addstr(sb, "</svg>\n");
	for (int k = 0; k < 2; k++) {
		free(s[k].pages);
		free(s[k].colour);
		free(s[k].hot);
	}
}
