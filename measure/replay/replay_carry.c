/* Carrying a recorded build's addresses over to a layout; see
 * replay_carry.h. */
#include <stdlib.h>
#include <string.h>

#include "measure/replay/replay_carry.h"
#include "util/xalloc.h"

static int key_cmp_idx(const void *a, const void *b, void *arg)
{
	const struct replay_sym *v = arg;

	return strcmp(v[*(const size_t *)a].key, v[*(const size_t *)b].key);
}

void carry_prepare(struct rp_carry *c, const struct replay_layout *l)
{
	size_t *byk = xcalloc(l->nnew, sizeof(*byk));
	int64_t shift = 0;

	for (size_t j = 0; j < l->nnew; j++)
		byk[j] = j;
	memset(c, 0, sizeof(*c));
	c->lay = l;
	qsort_r(byk, l->nnew, sizeof(*byk), key_cmp_idx, (void *)l->new);
	c->map = xcalloc(l->nold, sizeof(*c->map));
	c->shift = xcalloc(l->nold, sizeof(*c->shift));
	for (size_t i = 0; i < l->nold; i++) {
		size_t lo = 0, hi = l->nnew;
		c->map[i] = -1;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int d = strcmp(l->new[byk[mid]].key, l->old[i].key);
			if (!d) {
				c->map[i] = (int32_t)byk[mid];
				break;
			}
			if (d < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (c->map[i] >= 0)
			shift = (int64_t)(l->new[c->map[i]].addr - l->old[i].addr);
		c->shift[i] = shift;
	}
	free(byk);
}

void carry_free(struct rp_carry *c)
{
	free(c->map);
	free(c->shift);
	c->map = NULL;
	c->shift = NULL;
}

/* The recorded function holding link address a, or -1. */
static long old_find(const struct replay_layout *l, uint64_t a)
{
	size_t lo = 0, hi = l->nold;

	while (lo < hi) {   /* first with addr > a */
		size_t mid = (lo + hi) / 2;
		if (l->old[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	while (lo && l->old[lo - 1].addr == l->old[lo].addr)
		lo--;
	return a - l->old[lo].addr < (l->old[lo].extent ? l->old[lo].extent : l->old[lo].size)
	       ? (long)lo : -1;
}

uint64_t carry_addr(const struct rp_carry *c, uint64_t a, int *cls, long *fn, bool *first)
{
	const struct replay_layout *l = c->lay;
	uint64_t bias = 0, link;
	long k;

	*cls = CL_OUTSIDE;
	if (l->object) {
		if (!c->have_map || a < c->map_start || a - c->map_start >= c->map_size)
			return a;
		bias = c->bias;
	}
	link = a - bias;
	k = old_find(l, link);
	*fn = k;
	if (k < 0)
		return a;
	*first = link == l->old[k].addr;
	if (c->map[k] >= 0) {
		const struct replay_sym *n = &l->new[c->map[k]];
		*cls = n->size == l->old[k].size ? CL_EXACT : CL_APPROX;
		return n->addr + (link - l->old[k].addr) + bias;
	}
	*cls = CL_APPROX;
	return a + (uint64_t)c->shift[k];
}
