/* Region-pair matrix and fetch-block histogram over an image's branches. */
#include "layout/branch_stats.h"

#include <errno.h>
#include <stdlib.h>

#include "util/error.h"
#include "util/xalloc.h"

static bool counted(const struct lace_branch *b, unsigned kinds)
{
	return b->has_target && (unsigned)b->kind < 32 && (kinds & BRANCH_KIND_BIT(b->kind));
}

void branch_matrix_compute(const struct lace_image *img, unsigned kinds, struct branch_matrix *m)
{
	size_t n = img->nregions + 1;

	m->n = n;
	m->count = xcalloc(n * n, sizeof(*m->count));
	m->total = m->cross = 0;
	for (size_t i = 0; i < img->nbranches; i++) {
		const struct lace_branch *b = &img->branches[i];
		if (!counted(b, kinds))
			continue;
		size_t from = b->region >= 0 && (size_t)b->region < n - 1 ? (size_t)b->region : n - 1;
		size_t to = b->target_region >= 0 && (size_t)b->target_region < n - 1
			? (size_t)b->target_region : n - 1;
		m->count[from * n + to]++;
		m->total++;
		m->cross += from != to;
	}
}

static size_t slot(const struct branch_matrix *m, int r)
{
	return r >= 0 && (size_t)r < m->n - 1 ? (size_t)r : m->n - 1;
}

uint64_t branch_matrix_get(const struct branch_matrix *m, int from, int to)
{
	if (!m->count)
		return 0;
	return m->count[slot(m, from) * m->n + slot(m, to)];
}

void branch_matrix_release(struct branch_matrix *m)
{
	free(m->count);
	m->count = NULL;
	m->n = 0;
	m->total = m->cross = 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct branch_pair *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

size_t branch_matrix_pairs(const struct branch_matrix *m, bool cross_only, struct branch_pair **out)
{
	size_t np = 0, alloc = 0;
	struct branch_pair *v = NULL;

	for (size_t a = 0; a < m->n; a++) {
		for (size_t b = 0; b < m->n; b++) {
			uint64_t c = m->count[a * m->n + b];
			if (!c || (cross_only && a == b))
				continue;
			ALLOC_GROW(v, np + 1, alloc);
			v[np].from = a + 1 < m->n ? (int)a : -1;
			v[np].to = b + 1 < m->n ? (int)b : -1;
			v[np].count = c;
			np++;
		}
	}
	if (np)
		qsort(v, np, sizeof(*v), cmp_pair);
	*out = v;
	return np;
}

int fetch_histogram_compute(const struct lace_image *img, unsigned kinds, struct fetch_histogram *h)
{
	unsigned fetch = img->geom.fetch;

	h->fetch = 0;
	h->count = NULL;
	h->total = 0;
	if (!fetch || (fetch & (fetch - 1)))
		return lace_error_set(EINVAL, "fetch block %u is not a power of two", fetch);
	h->fetch = fetch;
	h->count = xcalloc(fetch, sizeof(*h->count));
	for (size_t i = 0; i < img->nbranches; i++) {
		const struct lace_branch *b = &img->branches[i];
		if (!counted(b, kinds))
			continue;
		h->count[b->target & (fetch - 1)]++;
		h->total++;
	}
	return 0;
}

double fetch_histogram_tail_share(const struct fetch_histogram *h, unsigned from)
{
	uint64_t tail = 0;
	if (!h->total)
		return 0;
	for (unsigned o = from; o < h->fetch; o++)
		tail += h->count[o];
	return (double)tail / (double)h->total;
}

void fetch_histogram_release(struct fetch_histogram *h)
{
	free(h->count);
	h->count = NULL;
	h->fetch = 0;
	h->total = 0;
}
