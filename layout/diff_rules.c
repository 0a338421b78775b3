/* lace diff's finding rules over a computed lace_diff: region moves
 * (noprobe-region, noprobe-enter, region-change), hot alignment drops,
 * page straddles and their churn, jump slow paths next to hot code, hot
 * footprint growth, cross-region branches.  Pure, like diff.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/diff.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- findings ----------------------------------------------------------- */

/* Functions in the regions named like name (".entry.text" and "entry" are
 * one region to kprobes), old and new. */
static void region_family_funcs(const struct lace_diff *d, const char *name, size_t *old, size_t *new)
{
	char a[64], b[64];

	*old = *new = 0;
	region_norm(name, a, sizeof(a));
	for (size_t i = 0; i < d->nregions; i++) {
		if (strcmp(region_norm(d->regions[i].name, b, sizeof(b)), a))
			continue;
		*old += d->regions[i].old_funcs;
		*new += d->regions[i].new_funcs;
	}
}

static bool straddles(uint64_t addr, uint64_t size, uint64_t page)
{
	if (!size)
		return false;
	uint64_t spanned = (addr + size - 1) / page - addr / page + 1;
	return spanned > (size + page - 1) / page;
}

/* For each hot function of side s (by delta index): how many pages of size
 * `page` it alone brings into the hot set (no other hot function touches
 * them).  Functions are disjoint and sorted, so only a function's first and
 * last page can be shared, and only with its nearest hot neighbours. */
static unsigned *exclusive_pages(const struct lace_diff *d, int s, uint64_t page)
{
	const struct lace_image *img = s ? d->new : d->old;
	const int *map = s ? d->new_to_delta : d->old_to_delta;
	unsigned *excl = xcalloc(d->nfuncs + 1, sizeof(*excl));
	int *hot = xcalloc(img->nfuncs + 1, sizeof(*hot));
	size_t n = 0;

	for (size_t i = 0; i < img->nfuncs; i++)
		if (map[i] >= 0 && d->funcs[map[i]].hot && img->funcs[i].size &&
		    img->funcs[i].suffix != LACE_SUFFIX_COLD)
			hot[n++] = (int)i;
	for (size_t k = 0; k < n; k++) {
		const struct lace_function *f = &img->funcs[hot[k]];
		uint64_t first = f->addr / page, last = (f->addr + f->size - 1) / page;
		uint64_t own = last - first + 1;
		bool first_shared = k && (img->funcs[hot[k - 1]].addr + img->funcs[hot[k - 1]].size - 1) / page == first;
		bool last_shared = k + 1 < n && img->funcs[hot[k + 1]].addr / page == last;
		own -= first_shared;
		if (last != first || !first_shared)
			own -= last_shared;
		excl[map[hot[k]]] = (unsigned)own;
	}
	free(hot);
	return excl;
}

/* Total weight of the hot set, or 0 when every hot function weighs the
 * same (a plain list of names is no profile: nobody is heavier). */
static double hot_weight_total(const struct lace_diff *d)
{
	double t = 0, first = -1;
	bool uniform = true;

	for (size_t k = 0; k < d->nfuncs; k++) {
		if (!d->funcs[k].hot)
			continue;
		if (first < 0)
			first = d->funcs[k].weight;
		uniform = uniform && d->funcs[k].weight == first;
		t += d->funcs[k].weight;
	}
	return uniform ? 0 : t;
}

/* Distinct pages of size `page` the hot functions of side s touch. */
static size_t hot_units(const struct lace_diff *d, int s, uint64_t page)
{
	const struct lace_image *img = s ? d->new : d->old;
	uint64_t *start = xcalloc(d->nfuncs + 1, sizeof(*start)), *size = xcalloc(d->nfuncs + 1, sizeof(*size));
	size_t n = 0, nint, total = 0;

	for (size_t k = 0; k < d->nfuncs; k++) {
		int idx = s ? d->funcs[k].new_idx : d->funcs[k].old_idx;
		if (!d->funcs[k].hot || idx < 0 || img->funcs[idx].suffix == LACE_SUFFIX_COLD)
			continue;
		start[n] = img->funcs[idx].addr;
		size[n++] = img->funcs[idx].size;
	}
	uint64_t *iv = ranges_units(start, size, n, page, &nint);
	for (size_t i = 0; i < nint; i++)
		total += iv[2 * i + 1] - iv[2 * i] + 1;
	free(iv);
	free(start);
	free(size);
	return total;
}

/* "2M", "4K", "64K" (in buf): the page size as the findings name it */
static const char *page_name(uint64_t page, char *buf, size_t len)
{
	if (page >= (1u << 20) && !(page & ((1u << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 "M", page >> 20);
	else if (page >= 1024 && !(page & 1023))
		snprintf(buf, len, "%" PRIu64 "K", page >> 10);
	else
		snprintf(buf, len, "%" PRIu64 "-byte", page);
	return buf;
}

struct straddler {
	size_t k;        /* delta index */
	double weight;
	uint64_t size;
	bool heavy;      /* profile weight at least hot_min_share */
};

static int cmp_straddler(const void *a, const void *b)
{
	const struct straddler *x = a, *y = b;

	if (x->heavy != y->heavy)
		return x->heavy ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* hot-page-straddle: every stable update shifts almost every function, so
 * straddles come and go by the hundred and one line each buries the
 * signal.  A function is a candidate only when its straddle alone brings a
 * page into the hot set (more pages only it touches than before) or when a
 * profile gives it at least hot_min_share of the weight.  Candidates are
 * findings only while the hot set's page count (at the rule page) grew,
 * heaviest and largest first, no more of them than the pages it grew by
 * and at most hot_list_max; a profile's heavy functions always.  Everything is summed up in one hot-layout-churn
 * line: gained, lost, listed, and the footprint before -> after. */
static void straddle_rules(struct lace_diff *d, struct lace_findings *f)
{
	const struct lace_rule_config *rc = d->opts.rules;
	uint64_t po = d->rule_page[0], pn = d->rule_page[1];
	unsigned *xo = exclusive_pages(d, 0, po), *xn = exclusive_pages(d, 1, pn);
	double total = d->default_hot ? 0 : hot_weight_total(d);
	struct straddler *cand = xcalloc(d->nfuncs + 1, sizeof(*cand));
	size_t ncand = 0;
	size_t pages_old = hot_units(d, 0, po), pages_new = hot_units(d, 1, pn);
	bool grew = pages_new > pages_old;

	for (size_t k = 0; k < d->nfuncs; k++) {
		const struct lace_func_delta *fd = &d->funcs[k];
		if (!fd->hot || fd->old_idx < 0 || fd->new_idx < 0)
			continue;
		const struct lace_function *o = &d->old->funcs[fd->old_idx], *n = &d->new->funcs[fd->new_idx];
		if (o->suffix == LACE_SUFFIX_COLD || n->suffix == LACE_SUFFIX_COLD)
			continue;
		bool so = straddles(o->addr, o->size, po), sn = straddles(n->addr, n->size, pn);
		if (so == sn)
			continue;
		if (!sn) {
			d->straddle_lost++;
			continue;
		}
		d->straddle_gained++;
		bool heavy = total > 0 && fd->weight >= total * d->opts.hot_min_share;
		if (heavy || (grew && xn[k] > xo[k]))
			cand[ncand++] = (struct straddler){ k, fd->weight, n->size, heavy };
	}
	qsort(cand, ncand, sizeof(*cand), cmp_straddler);
	char pbuf[24];
	const char *pname = page_name(pn, pbuf, sizeof(pbuf));
	for (size_t i = 0; i < ncand; i++) {
		/* the hot set grew by pages_new - pages_old pages: no more
		 * functions than that can be the reason */
		if (!cand[i].heavy && (d->straddle_listed >= d->opts.hot_list_max ||
				       d->straddle_listed >= pages_new - pages_old))
			break;
		const struct lace_func_delta *fd = &d->funcs[cand[i].k];
		const struct lace_function *o = &d->old->funcs[fd->old_idx], *n = &d->new->funcs[fd->new_idx];
		unsigned pages = (unsigned)((n->addr + n->size - 1) / pn - n->addr / pn + 1);
		unsigned opages = (unsigned)((o->addr + o->size - 1) / po - o->addr / po + 1);
		d->straddle_listed++;
		findings_add(f, rc, LACE_RULE_HOT_PAGE_STRADDLE, fd->name,
			     "hot, %" PRIu64 " bytes at 0x%" PRIx64 " now spans %u %s pages (was %u)%s", n->size, n->addr,
			     pages, pname, opages,
			     cand[i].heavy ? "; heavy in the profile" : "; no other hot code on the new page");
	}
	free(cand);
	free(xo);
	free(xn);
	if (d->straddle_gained || d->straddle_lost) {
		const struct lace_footprint *ho = &d->hot_old, *hn = &d->hot_new;
		findings_add(f, rc, LACE_RULE_HOT_CHURN, "hot set",
			     "%zu hot functions newly straddle a %s page, %zu no longer do (%zu listed); "
			     "64B lines %zu -> %zu, 4K pages %zu -> %zu, 2M pages %zu -> %zu",
			     d->straddle_gained, pname, d->straddle_lost, d->straddle_listed, ho->lines, hn->lines,
			     ho->pages, hn->pages, ho->hugepages, hn->hugepages);
	}
}

void diff_run_rules(struct lace_diff *d)
{
	struct lace_findings f = { 0 };
	const struct lace_rule_config *rc = d->opts.rules;

	for (size_t k = 0; k < d->nfuncs; k++) {
		const struct lace_func_delta *fd = &d->funcs[k];
		if (fd->old_idx < 0 || fd->new_idx < 0)
			continue;
		const struct lace_function *o = &d->old->funcs[fd->old_idx], *n = &d->new->funcs[fd->new_idx];
		const char *orn = region_name(d->old, o->region), *nrn = region_name(d->new, n->region);
		if (fd->changes & LACE_CH_REGION) {
			/* direction tells a regression from a patch's purpose:
			 * code leaving entry/noinstr text becomes probeable
			 * (a kprobe there can fire before the kernel is ready
			 * for it), code entering it is what moving code into
			 * the entry text is for.  Leaving is an error even when
			 * the whole text dissolves (the kprobes regression:
			 * .entry.text linked back into .text, its markers
			 * enclosing nothing): a patch that means it says so
			 * with --expect */
			size_t fam_old = 0, fam_new = 0;
			if (region_is_noprobe(orn))
				region_family_funcs(d, orn, &fam_old, &fam_new);
			if (region_is_noprobe(orn) && !region_is_noprobe(nrn))
				findings_add(&f, rc, LACE_RULE_NOPROBE_REGION, fd->name,
					     "moved out of %s into %s: kprobes may now probe it%s",
					     orn, *nrn ? nrn : "(none)",
					     fam_new ? "" : " (that text holds no function any more)");
			else if (region_is_noprobe(nrn) && !region_is_noprobe(orn))
				findings_add(&f, rc, LACE_RULE_NOPROBE_ENTER, fd->name,
					     "moved from %s into %s: kprobes can no longer probe it",
					     *orn ? orn : "(none)", nrn);
			else
				findings_add(&f, rc, LACE_RULE_REGION_CHANGE, fd->name, "moved from %s to %s",
					     *orn ? orn : "(none)", *nrn ? nrn : "(none)");
		}
		if (!fd->hot)
			continue;
		/* crossing the threshold: a function that was never aligned is not news */
		if (n->alignment < d->opts.min_align && o->alignment >= d->opts.min_align)
			findings_add(&f, rc, LACE_RULE_HOT_ALIGN_DROP, fd->name,
				     "hot, alignment %" PRIu64 " -> %" PRIu64 " (below --min-align %" PRIu64 ")",
				     o->alignment, n->alignment, d->opts.min_align);
	}
	for (size_t k = 0; k < d->njumps; k++) {
		const struct lace_jump_delta *jd = &d->jumps[k];
		if (!(jd->changes & LACE_JCH_HOT))
			continue;
		struct strbuf subj = STRBUF_INIT;
		strbuf_addf(&subj, "%s%s%s", jd->func, *jd->key ? ":" : "", jd->key);
		findings_add(&f, rc, LACE_RULE_JUMP_SLOWPATH_HOT, subj.buf,
			     "slow path moved from %s (%+" PRId64 " bytes) to %s (%+" PRId64 " bytes), next to hot code",
			     *jd->old_target_region ? jd->old_target_region : "?", jd->old_distance,
			     *jd->new_target_region ? jd->new_target_region : "?", jd->new_distance);
		strbuf_release(&subj);
	}
	straddle_rules(d, &f);
	/* pages at the rule page, as the straddle rule counts them: x86-64
	 * kernel text is mapped with 2 MiB pages, so its 4 KiB page count
	 * costs no iTLB entry and its 2 MiB page count does */
	const struct lace_footprint *ho = &d->hot_old, *hn = &d->hot_new;
	double g = 1.0 + d->opts.max_hot_growth;
	size_t po = hot_units(d, 0, d->rule_page[0]), pn = hot_units(d, 1, d->rule_page[1]);
	char pbuf[24];
	if ((double)hn->lines > (double)ho->lines * g || (double)pn > (double)po * g)
		findings_add(&f, rc, LACE_RULE_HOT_FOOTPRINT, "hot set",
			     "lines %zu -> %zu, %s pages %zu -> %zu (limit +%.4g%%)", ho->lines, hn->lines,
			     page_name(d->rule_page[1], pbuf, sizeof(pbuf)), po, pn, d->opts.max_hot_growth * 100);
	if (d->branches_old && d->branches_new) {
		for (size_t k = 0; k < d->nxbranches; k++) {
			const struct lace_xbranch *x = &d->xbranches[k];
			if (x->new_count <= x->old_count)
				continue;
			struct strbuf subj = STRBUF_INIT;
			strbuf_addf(&subj, "%s->%s", x->from, x->to);
			findings_add(&f, rc, LACE_RULE_CROSS_REGION, subj.buf, "%zu -> %zu direct branches",
				     x->old_count, x->new_count);
			strbuf_release(&subj);
		}
	}
	if (d->opts.expect) {
		d->expect_matched = xcalloc(d->opts.expect->n + 1, sizeof(*d->expect_matched));
		expect_apply(d->opts.expect, f.v, f.n, d->expect_matched);
	}
	findings_sort(f.v, f.n);
	d->findings = f.v;
	d->nfindings = f.n;
}

int diff_max_severity(const struct lace_diff *d)
{
	int m = -1;

	for (size_t i = 0; i < d->nfindings; i++)
		if (!d->findings[i].expected && (int)d->findings[i].severity > m)
			m = d->findings[i].severity;
	return m;
}

