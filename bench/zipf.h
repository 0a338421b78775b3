/* zipf: pick one of n items with probability proportional to 1/rank^s.
 *
 * Which item has which rank is a permutation drawn from the seed, so the
 * hot items are scattered over the code rather than adjacent: hot kernel
 * code is spread over many pages, which is what stresses an iTLB. */
#ifndef LACE_BENCH_ZIPF_H
#define LACE_BENCH_ZIPF_H

#include <stdint.h>

#include "bench/rng.h"

struct zipf {
	unsigned n;
	double s;
	double *cdf;       /* cdf[r] = P(rank <= r), rank 0 is the hottest */
	unsigned *item;    /* item[rank] */
	/* Walker/Vose alias table over ranks: draw rank r uniformly, keep it
	 * when the low 32 random bits are below keep[r], else take alias[r].
	 * O(1) per draw (about 10 instructions), so sampling does not
	 * dilute the footprint it drives. */
	uint32_t *keep;
	unsigned *alias;
};

/* n >= 1, s >= 0 (0 = uniform).  Returns 0 or -EINVAL. */
int zipf_init(struct zipf *z, unsigned n, double s, uint64_t seed);
void zipf_free(struct zipf *z);
/* A random item (not rank) from r's stream: one rng_next() per draw. */
unsigned zipf_next(const struct zipf *z, struct rng *r);
/* Probability of the item with the given rank. */
double zipf_prob(const struct zipf *z, unsigned rank);
/* The fewest top ranks whose probabilities add up to at least `mass`. */
unsigned zipf_ranks_for_mass(const struct zipf *z, double mass);

#endif
