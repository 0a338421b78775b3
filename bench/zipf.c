/* Zipf sampling by inverse CDF: a table of n doubles and a binary search,
 * O(log n) per draw and exact for any s (no rejection, so the number of
 * random draws per sample is always one, which keeps streams aligned). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bench/zipf.h"
#include "util/xalloc.h"

int zipf_init(struct zipf *z, unsigned n, double s, uint64_t seed)
{
	struct rng r;
	double acc = 0;

	if (!n || !(s >= 0) || s > 10)
		return -EINVAL;
	z->n = n;
	z->s = s;
	z->cdf = xmalloc(n * sizeof(*z->cdf));
	z->item = xmalloc(n * sizeof(*z->item));
	for (unsigned k = 0; k < n; k++) {
		acc += pow(k + 1, -s);
		z->cdf[k] = acc;
	}
	for (unsigned k = 0; k < n; k++)
		z->cdf[k] /= acc;
	z->cdf[n - 1] = 1.0;
	/* Fisher-Yates from a stream of its own (stream ~0 is no worker's). */
	rng_init(&r, seed, ~0ULL);
	for (unsigned k = 0; k < n; k++)
		z->item[k] = k;
	for (unsigned k = n - 1; k > 0; k--) {
		unsigned j = (unsigned)rng_below(&r, k + 1), t = z->item[k];
		z->item[k] = z->item[j];
		z->item[j] = t;
	}
	return 0;
}

void zipf_free(struct zipf *z)
{
	free(z->cdf);
	free(z->item);
	z->cdf = NULL;
	z->item = NULL;
	z->n = 0;
}

static unsigned rank_of(const struct zipf *z, double u)
{
	unsigned lo = 0, hi = z->n - 1;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (u < z->cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

unsigned zipf_next(const struct zipf *z, struct rng *r)
{
	return z->item[rank_of(z, rng_unit(r))];
}

double zipf_prob(const struct zipf *z, unsigned rank)
{
	if (rank >= z->n)
		return 0;
	return rank ? z->cdf[rank] - z->cdf[rank - 1] : z->cdf[0];
}

unsigned zipf_ranks_for_mass(const struct zipf *z, double mass)
{
	if (mass >= 1)
		return z->n;
	return rank_of(z, mass) + 1;
}
