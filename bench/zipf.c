/* Zipf sampling with an alias table (Vose 1991): O(1) per draw, exactly
 * one random number per sample (no rejection, so streams stay aligned),
 * probabilities exact to 2^-32.  The CDF is kept for zipf_prob() and
 * zipf_ranks_for_mass(). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bench/zipf.h"
#include "util/xalloc.h"

/* Vose's construction: scale probabilities by n; pair each "small" column
 * (< 1) with a "large" one that tops it up to 1. */
static void alias_build(struct zipf *z)
{
	unsigned n = z->n, *small = xmalloc(n * sizeof(*small)), *large = xmalloc(n * sizeof(*large));
	unsigned ns = 0, nl = 0;
	double *q = xmalloc(n * sizeof(*q));

	z->keep = xmalloc(n * sizeof(*z->keep));
	z->alias = xmalloc(n * sizeof(*z->alias));
	for (unsigned r = 0; r < n; r++) {
		q[r] = zipf_prob(z, r) * n;
		if (q[r] < 1)
			small[ns++] = r;
		else
			large[nl++] = r;
	}
	while (ns && nl) {
		unsigned s = small[--ns], l = large[nl - 1];

		z->keep[s] = (uint32_t)(q[s] * 4294967296.0);
		z->alias[s] = l;
		q[l] -= 1 - q[s];
		if (q[l] < 1) {
			nl--;
			small[ns++] = l;
		}
	}
	/* what is left is 1 up to rounding: always keep */
	while (nl) {
		unsigned l = large[--nl];
		z->keep[l] = UINT32_MAX;
		z->alias[l] = l;
	}
	while (ns) {
		unsigned s = small[--ns];
		z->keep[s] = UINT32_MAX;
		z->alias[s] = s;
	}
	free(q);
	free(small);
	free(large);
}

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
	alias_build(z);
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
	free(z->keep);
	free(z->alias);
	z->cdf = NULL;
	z->item = NULL;
	z->keep = NULL;
	z->alias = NULL;
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
	uint64_t u = rng_next(r);
	unsigned k = (unsigned)(((u >> 32) * z->n) >> 32);

	if ((uint32_t)u >= z->keep[k])
		k = z->alias[k];
	return z->item[k];
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
