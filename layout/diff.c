/* lace diff core: match functions, classify their changes, compare region
 * sizes, cross-region branches, jump-label slow paths and the hot-set
 * footprint, then run the finding rules.  Pure over two lace_images. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/branch_stats.h"
#include "layout/diff.h"
#include "layout/match.h"
#include "util/array.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const change_names[] = {
	"added", "removed", "region", "resized", "realigned", "straddle", "padded", "shifted",
};

const char *change_name(unsigned bit)
{
	for (unsigned i = 0; i < ARRAY_SIZE(change_names); i++)
		if (bit == 1u << i)
			return change_names[i];
	return "?";
}

/* "entry", ".entry.text", "entry_text" -> "entry" (in buf). */
const char *region_norm(const char *name, char *buf, size_t len)
{
	size_t n;

	while (*name == '.')
		name++;
	snprintf(buf, len, "%s", name);
	n = strlen(buf);
	if (n > 5 && (!strcmp(buf + n - 5, ".text") || !strcmp(buf + n - 5, "_text")))
		buf[n - 5] = 0;
	return buf;
}

bool region_is_noprobe(const char *name)
{
	char buf[64];

	if (!name || !*name)
		return false;
	region_norm(name, buf, sizeof(buf));
	return !strcmp(buf, "entry") || !strcmp(buf, "irqentry") || !strcmp(buf, "noinstr") ||
	       !strcmp(buf, "kprobes");
}

bool region_is_entry_path(const char *name)
{
	char buf[64];

	if (!name || !*name)
		return false;
	region_norm(name, buf, sizeof(buf));
	return !strcmp(buf, "entry") || !strcmp(buf, "irqentry") || !strcmp(buf, "softirqentry") ||
	       !strcmp(buf, "noinstr");
}

const char *region_name(const struct lace_image *img, int r)
{
	return r >= 0 && (size_t)r < img->nregions && img->regions[r].name ? img->regions[r].name : "";
}

const char *image_func_region_name(const struct lace_image *img, int idx)
{
	return idx < 0 ? "" : region_name(img, img->funcs[idx].region);
}

/* Sections the kernel frees after boot (or never runs from), by name:
 * .init.text, .exit.text, .meminit.text ... and .text.unlikely*, where GCC
 * and the kernel put code that is cold on purpose. */
static bool section_is_cold_or_init(const char *name)
{
	if (!name)
		return false;
	return !strncmp(name, ".init.", 6) || !strncmp(name, ".exit.", 6) || strstr(name, "init.text") ||
	       strstr(name, "exit.text") || !strncmp(name, ".text.unlikely", 14) ||
	       !strncmp(name, ".text.startup", 13);
}

bool func_is_cold_or_init(const struct lace_image *img, int idx)
{
	if (idx < 0 || (size_t)idx >= img->nfuncs)
		return false;
	const struct lace_function *f = &img->funcs[idx];
	if (f->suffix == LACE_SUFFIX_COLD)
		return true;
	if (f->region >= 0 && (size_t)f->region < img->nregions && img->regions[f->region].kind == LACE_REGION_COLD)
		return true;
	return f->section >= 0 && (size_t)f->section < img->nsections &&
	       section_is_cold_or_init(img->sections[f->section].name);
}

uint64_t diff_rule_page(const struct lace_image *img)
{
	/* x86-64 Linux maps kernel text (the kernel half of the address
	 * space) with 2 MiB pages: a 4 KiB straddle there costs no iTLB entry */
	if (img->arch == LACE_ARCH_X86_64 && !img->relocatable)
		for (size_t i = 0; i < img->nsections; i++)
			if (img->sections[i].code && img->sections[i].addr >= 0xffff800000000000ull)
				return 2u << 20;
	return img->geom.page ? img->geom.page : 4096;
}

static uint64_t align_capped(uint64_t a, uint64_t cap)
{
	return a > cap ? cap : a;
}

/* The alignment an image's functions are built with: the largest power of
 * two up to a cache line that at least 90% of its sized, non-cold functions
 * have (cold pieces and asm stubs are often less aligned).  A function that
 * moves from 0x1010 to 0x1020 went from 16- to 32-aligned by accident; only
 * a change below this unit (or of the unit itself, -falign-functions=64)
 * is a realignment. */
static uint64_t align_unit(const struct lace_image *img, const int *map)
{
	unsigned line = img->geom.line ? img->geom.line : 64;
	size_t hist[64] = { 0 }, n = 0;
	uint64_t unit = 1;

	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (map[i] < 0 || !f->size || f->suffix == LACE_SUFFIX_COLD)
			continue;
		uint64_t a = align_capped(f->alignment ? f->alignment : 1, line);
		hist[__builtin_ctzll(a)]++;
		n++;
	}
	size_t at_least = 0;
	for (int b = 63; b >= 0; b--) {
		at_least += hist[b];
		if (at_least * 10 >= n * 9 && at_least) {
			unit = 1ull << b;
			break;
		}
	}
	return unit;
}

static unsigned func_changes(const struct lace_image *old, const struct lace_function *o,
			     const struct lace_image *new, const struct lace_function *n, uint64_t unit)
{
	unsigned ch = 0;

	if (strcmp(region_name(old, o->region), region_name(new, n->region)))
		ch |= LACE_CH_REGION;
	if (o->size != n->size)
		ch |= LACE_CH_RESIZED;
	if (align_capped(o->alignment, unit) != align_capped(n->alignment, unit))
		ch |= LACE_CH_REALIGNED;
	if (o->straddles_line != n->straddles_line || o->straddles_page != n->straddles_page ||
	    (o->size == n->size && (o->lines != n->lines || o->pages != n->pages)))
		ch |= LACE_CH_STRADDLE;
	if (o->pad_before != n->pad_before)
		ch |= LACE_CH_PADDED;
	if (o->addr != n->addr)
		ch |= LACE_CH_SHIFTED;
	return ch;
}

/* ---- hot set ----------------------------------------------------------- */

static bool *jump_holders(const struct lace_image *img)
{
	bool *h = xcalloc(img->nfuncs, sizeof(*h));

	for (size_t i = 0; i < img->njumps; i++) {
		int f = img->jumps[i].func;
		if (f >= 0 && (size_t)f < img->nfuncs)
			h[f] = true;
	}
	return h;
}

static void mark_hot(struct lace_diff *d)
{
	const struct lace_image *img[2] = { d->old, d->new };
	const struct lace_hotset *hs = d->opts.hot;
	bool *seen = hs ? xcalloc(hs->n, sizeof(*seen)) : NULL;
	bool *holders[2] = { jump_holders(d->old), jump_holders(d->new) };

	for (size_t k = 0; k < d->nfuncs; k++) {
		struct lace_func_delta *fd = &d->funcs[k];
		int idx[2] = { fd->old_idx, fd->new_idx };
		for (int s = 0; s < 2; s++) {
			if (idx[s] < 0)
				continue;
			const struct lace_function *f = &img[s]->funcs[idx[s]];
			if (f->suffix == LACE_SUFFIX_COLD)
				continue; /* the cold piece is the point of being cold */
			if (hs) {
				long h = hotset_find(hs, f->name, f->base_name);
				if (h >= 0) {
					seen[h] = true;
					if (hs->weights[h] > 0 && hs->weights[h] > fd->weight) {
						fd->hot = true;
						fd->weight = hs->weights[h];
					}
				}
			} else if ((region_is_entry_path(region_name(img[s], f->region)) || holders[s][idx[s]]) &&
				   !func_is_cold_or_init(img[s], idx[s])) {
				/* the entry path (innermost region: irqentry lies inside
				 * entry) and jump-label holders, less what is freed after
				 * boot or cold on purpose */
				fd->hot = true;
				fd->weight = 1;
			}
		}
	}
	if (hs)
		for (size_t i = 0; i < hs->n; i++)
			d->hot_unmatched += !seen[i];
	free(seen);
	free(holders[0]);
	free(holders[1]);
}

/* Footprint of the hot functions present in side s; also returns the hot
 * pages (ranges_units() intervals) for the slow-path rule. */
static uint64_t *footprint(struct lace_diff *d, int s, struct lace_footprint *fp, size_t *npages)
{
	const struct lace_image *img = s ? d->new : d->old;
	uint64_t *start = xcalloc(d->nfuncs, sizeof(*start));
	uint64_t *size = xcalloc(d->nfuncs, sizeof(*size));
	size_t n = 0;
	unsigned line = img->geom.line ? img->geom.line : 64;
	unsigned page = img->geom.page ? img->geom.page : 4096;
	const uint64_t huge = 2u << 20;
	struct lace_span_count sc;

	memset(fp, 0, sizeof(*fp));
	for (size_t k = 0; k < d->nfuncs; k++) {
		const struct lace_func_delta *fd = &d->funcs[k];
		int idx = s ? fd->new_idx : fd->old_idx;
		if (!fd->hot || idx < 0)
			continue;
		const struct lace_function *f = &img->funcs[idx];
		if (f->suffix == LACE_SUFFIX_COLD)
			continue;
		start[n] = f->addr;
		size[n] = f->size;
		n++;
		fp->funcs++;
		fp->bytes += f->size;
	}
	ranges_count(start, size, n, line, page, huge, &sc);
	fp->lines = sc.lines;
	fp->pages = sc.pages;
	fp->hugepages = sc.hugepages;
	fp->ideal_lines = (fp->bytes + line - 1) / line;
	fp->ideal_pages = (fp->bytes + page - 1) / page;
	fp->ideal_hugepages = (fp->bytes + huge - 1) / huge;
	uint64_t *pages = ranges_units(start, size, n, page, npages);
	free(start);
	free(size);
	return pages;
}

/* ---- regions and cross-region branches ------------------------------- */

static size_t name_slot(const char ***names, size_t *n, size_t *alloc, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return i;
	ALLOC_GROW(*names, *n + 1, *alloc);
	(*names)[*n] = name;
	return (*n)++;
}

static void diff_regions(struct lace_diff *d)
{
	const struct lace_image *img[2] = { d->old, d->new };
	const char **names = NULL;
	size_t n = 0, alloc = 0;
	size_t *slot[2];

	for (int s = 0; s < 2; s++) {
		slot[s] = xcalloc(img[s]->nregions, sizeof(size_t));
		for (size_t r = 0; r < img[s]->nregions; r++)
			slot[s][r] = name_slot(&names, &n, &alloc, region_name(img[s], (int)r));
	}
	d->regions = xcalloc(n, sizeof(*d->regions));
	d->nregions = n;
	for (size_t i = 0; i < n; i++)
		d->regions[i].name = xstrdup(names[i]);
	for (int s = 0; s < 2; s++) {
		for (size_t r = 0; r < img[s]->nregions; r++) {
			struct lace_region_delta *rd = &d->regions[slot[s][r]];
			const struct lace_region *rg = &img[s]->regions[r];
			uint64_t span = rg->end > rg->start ? rg->end - rg->start : 0;
			if (s) {
				rd->in_new = true;
				rd->new_span += span;
				rd->new_own += span;
			} else {
				rd->in_old = true;
				rd->old_span += span;
				rd->old_own += span;
			}
		}
		/* own bytes: a nested region's span is taken out of its parent's,
		 * so the own spans of one section add up to the section's extent
		 * and a region that grew by padding alone shows it */
		for (size_t r = 0; r < img[s]->nregions; r++) {
			const struct lace_region *rg = &img[s]->regions[r];
			if (rg->parent < 0 || (size_t)rg->parent >= img[s]->nregions)
				continue;
			struct lace_region_delta *pd = &d->regions[slot[s][rg->parent]];
			uint64_t span = rg->end > rg->start ? rg->end - rg->start : 0;
			uint64_t *own = s ? &pd->new_own : &pd->old_own;
			*own = *own > span ? *own - span : 0;
		}
		const int *map = s ? d->new_to_delta : d->old_to_delta;
		for (size_t i = 0; i < img[s]->nfuncs; i++) {
			const struct lace_function *f = &img[s]->funcs[i];
			if (map[i] < 0 || f->region < 0 || (size_t)f->region >= img[s]->nregions)
				continue; /* markers and code outside every region */
			struct lace_region_delta *rd = &d->regions[slot[s][f->region]];
			if (s) {
				rd->new_bytes += f->size;
				rd->new_funcs++;
			} else {
				rd->old_bytes += f->size;
				rd->old_funcs++;
			}
		}
	}

	/* cross-region branch matrix over the union of region names */
	size_t nn = n * n + 1, xalloc = 0;
	size_t *cnt[2] = { xcalloc(nn, sizeof(size_t)), xcalloc(nn, sizeof(size_t)) };
	/* the region-pair matrix of `lace layout --branches` (direct jumps,
	 * conditional jumps and calls with a known target), folded by name */
	for (int s = 0; s < 2; s++) {
		struct branch_matrix m;
		branch_matrix_compute(img[s], BRANCH_KINDS_DIRECT, &m);
		for (size_t f = 0; f < img[s]->nregions; f++)
			for (size_t t = 0; t < img[s]->nregions; t++)
				if (slot[s][f] != slot[s][t])
					cnt[s][slot[s][f] * n + slot[s][t]] += branch_matrix_get(&m, (int)f, (int)t);
		branch_matrix_release(&m);
	}
	d->branches_old = d->old->disassembled;
	d->branches_new = d->new->disassembled;
	for (size_t i = 0; i < n * n; i++) {
		if (!cnt[0][i] && !cnt[1][i])
			continue;
		ALLOC_GROW(d->xbranches, d->nxbranches + 1, xalloc);
		d->xbranches[d->nxbranches++] = (struct lace_xbranch){
			d->regions[i / n].name, d->regions[i % n].name, cnt[0][i], cnt[1][i] };
	}
	free(cnt[0]);
	free(cnt[1]);
	free(slot[0]);
	free(slot[1]);
	free(names);
}

/* ---- jump-label sites ------------------------------------------------- */

struct jrec {
	int dk;          /* delta index of the holding function, -1 none */
	const char *key; /* key symbol */
	int side;
	uint64_t off;    /* code - function start (or code) */
	int idx;
};

static int cmp_jrec(const void *a, const void *b)
{
	const struct jrec *x = a, *y = b;

	if (x->dk != y->dk)
		return x->dk < y->dk ? -1 : 1;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void add_jump(struct lace_diff *d, size_t *alloc, int oi, int ni, const struct jrec *r,
		     const uint64_t *hot_pages[2], const size_t nhot[2])
{
	const struct lace_image *img[2] = { d->old, d->new };
	int idx[2] = { oi, ni };
	struct lace_jump_delta jd = { "?", r->key, oi, ni, 0, 0, 0, "", "", false, false };

	if (r->dk >= 0)
		jd.func = d->funcs[r->dk].name;
	for (int s = 0; s < 2; s++) {
		if (idx[s] < 0)
			continue;
		const struct lace_jump_site *j = &img[s]->jumps[idx[s]];
		unsigned page = img[s]->geom.page ? img[s]->geom.page : 4096;
		int64_t dist = (int64_t)(j->target - j->code);
		const char *tr = region_name(img[s], j->target_region);
		bool same = j->target_region >= 0 && j->target_region == j->region &&
			    (size_t)j->target_region < img[s]->nregions &&
			    img[s]->regions[j->target_region].kind != LACE_REGION_COLD;
		bool hot = same || units_contain(hot_pages[s], nhot[s], j->target / page);
		if (s) {
			jd.new_distance = dist;
			jd.new_target_region = tr;
			jd.new_hot = hot;
		} else {
			jd.old_distance = dist;
			jd.old_target_region = tr;
			jd.old_hot = hot;
		}
	}
	if (oi < 0)
		jd.changes |= LACE_JCH_ADDED;
	else if (ni < 0)
		jd.changes |= LACE_JCH_REMOVED;
	else {
		if (strcmp(jd.old_target_region, jd.new_target_region))
			jd.changes |= LACE_JCH_REGION;
		if (jd.old_distance != jd.new_distance)
			jd.changes |= LACE_JCH_DISTANCE;
		if (jd.new_hot && !jd.old_hot)
			jd.changes |= LACE_JCH_HOT;
	}
	ALLOC_GROW(d->jumps, d->njumps + 1, *alloc);
	d->jumps[d->njumps++] = jd;
}

static void diff_jumps(struct lace_diff *d, const uint64_t *hot_pages[2], const size_t nhot[2])
{
	const struct lace_image *img[2] = { d->old, d->new };
	size_t m = 0, alloc = 0;
	struct jrec *v = xcalloc(d->old->njumps + d->new->njumps + 1, sizeof(*v));

	for (int s = 0; s < 2; s++) {
		const int *map = s ? d->new_to_delta : d->old_to_delta;
		for (size_t i = 0; i < img[s]->njumps; i++) {
			const struct lace_jump_site *j = &img[s]->jumps[i];
			int f = j->func >= 0 && (size_t)j->func < img[s]->nfuncs ? j->func : -1;
			v[m++] = (struct jrec){ f >= 0 ? map[f] : -1, j->key_symbol ? j->key_symbol : "", s,
						f >= 0 ? j->code - img[s]->funcs[f].addr : j->code, (int)i };
		}
	}
	qsort(v, m, sizeof(*v), cmp_jrec);
	for (size_t i = 0; i < m;) {
		size_t j = i, no = 0;
		while (j < m && v[j].dk == v[i].dk && !strcmp(v[j].key, v[i].key)) {
			no += v[j].side == 0;
			j++;
		}
		size_t nn = j - i - no;
		/* the k-th site of a key in a function pairs with the k-th */
		for (size_t k = 0; k < no || k < nn; k++)
			add_jump(d, &alloc, k < no ? v[i + k].idx : -1, k < nn ? v[i + no + k].idx : -1,
				 k < no ? &v[i + k] : &v[i + no + k], hot_pages, nhot);
		i = j;
	}
	free(v);
}

/* ---- the whole diff ----------------------------------------------------- */

static void count_changes(struct lace_diff *d)
{
	struct lace_diff_counts *c = &d->counts;

	memset(c, 0, sizeof(*c));
	for (size_t k = 0; k < d->nfuncs; k++) {
		unsigned ch = d->funcs[k].changes;
		c->matched += d->funcs[k].old_idx >= 0 && d->funcs[k].new_idx >= 0;
		c->added += !!(ch & LACE_CH_ADDED);
		c->removed += !!(ch & LACE_CH_REMOVED);
		c->region += !!(ch & LACE_CH_REGION);
		c->resized += !!(ch & LACE_CH_RESIZED);
		c->realigned += !!(ch & LACE_CH_REALIGNED);
		c->straddle += !!(ch & LACE_CH_STRADDLE);
		c->shifted += !!(ch & LACE_CH_SHIFTED);
		c->padded += !!(ch & LACE_CH_PADDED);
		c->changed += !!(ch & LACE_CH_REAL);
	}
}

static bool image_sane(const struct lace_image *img)
{
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (f->region >= (int)img->nregions || (i && f->addr < img->funcs[i - 1].addr))
			return false;
	}
	return true;
}

int diff_images(const struct lace_image *old, const struct lace_image *new,
		const struct lace_diff_opts *opts, struct lace_diff **out)
{
	static const struct lace_diff_opts defaults = LACE_DIFF_OPTS_DEFAULT;
	struct lace_diff *d;

	*out = NULL;
	if (!old || !new)
		return lace_error_set(EINVAL, "diff needs two images");
	if (!image_sane(old) || !image_sane(new))
		return lace_error_set(EINVAL, "image model is inconsistent (unsorted functions or bad region index)");
	d = xcalloc(1, sizeof(*d));
	d->old = old;
	d->new = new;
	d->opts = opts ? *opts : defaults;
	d->default_hot = !d->opts.hot;
	d->rule_page[0] = d->opts.page_size ? d->opts.page_size : diff_rule_page(old);
	d->rule_page[1] = d->opts.page_size ? d->opts.page_size : diff_rule_page(new);

	int *o2n = xcalloc(old->nfuncs + 1, sizeof(int)), *n2o = xcalloc(new->nfuncs + 1, sizeof(int));
	funcs_match(old, new, o2n, n2o);
	{
		uint64_t uo = align_unit(old, o2n), un = align_unit(new, n2o);
		d->align_unit = uo > un ? uo : un;
	}
	d->old_to_delta = xcalloc(old->nfuncs + 1, sizeof(int));
	d->new_to_delta = xcalloc(new->nfuncs + 1, sizeof(int));
	d->funcs = xcalloc(old->nfuncs + new->nfuncs + 1, sizeof(*d->funcs));
	for (size_t i = 0; i < old->nfuncs; i++)
		d->old_to_delta[i] = -1;
	for (size_t i = 0; i < new->nfuncs; i++) {
		d->new_to_delta[i] = -1;
		if (n2o[i] == LACE_MATCH_MARKER)
			continue;
		struct lace_func_delta *fd = &d->funcs[d->nfuncs];
		const struct lace_function *n = &new->funcs[i];
		*fd = (struct lace_func_delta){ n->name ? n->name : "", NULL, n2o[i], (int)i, 0, 0, 0, false, 0 };
		if (n2o[i] >= 0) {
			const struct lace_function *o = &old->funcs[n2o[i]];
			fd->old_name = o->name ? o->name : "";
			fd->changes = func_changes(old, o, new, n, d->align_unit);
			fd->addr_delta = (int64_t)(n->addr - o->addr);
			fd->size_delta = (int64_t)(n->size - o->size);
			d->old_to_delta[n2o[i]] = (int)d->nfuncs;
		} else {
			fd->old_idx = -1;
			fd->changes = LACE_CH_ADDED;
			fd->size_delta = (int64_t)n->size;
		}
		d->new_to_delta[i] = (int)d->nfuncs++;
	}
	for (size_t i = 0; i < old->nfuncs; i++) {
		if (o2n[i] != LACE_MATCH_NONE)
			continue;
		const struct lace_function *o = &old->funcs[i];
		d->funcs[d->nfuncs] = (struct lace_func_delta){ o->name ? o->name : "", o->name ? o->name : "",
			(int)i, -1, LACE_CH_REMOVED, 0, -(int64_t)o->size, false, 0 };
		d->old_to_delta[i] = (int)d->nfuncs++;
	}
	free(o2n);
	free(n2o);

	count_changes(d);
	mark_hot(d);
	size_t nhot[2];
	uint64_t *hp0 = footprint(d, 0, &d->hot_old, &nhot[0]);
	uint64_t *hp1 = footprint(d, 1, &d->hot_new, &nhot[1]);
	const uint64_t *hot_pages[2] = { hp0, hp1 };
	diff_regions(d);
	diff_jumps(d, hot_pages, nhot);
	free(hp0);
	free(hp1);
	diff_bloat(d);
	diff_run_rules(d);
	*out = d;
	return 0;
}

void diff_free(struct lace_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nregions; i++)
		free(d->regions[i].name);
	free(d->regions);
	free(d->xbranches);
	free(d->jumps);
	free(d->funcs);
	findings_free(d->findings, d->nfindings);
	free(d->expect_matched);
	for (size_t i = 0; i < d->bloat.nrows; i++)
		free(d->bloat.rows[i].name);
	free(d->bloat.rows);
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->old_to_delta);
	free(d->new_to_delta);
	free(d);
}
