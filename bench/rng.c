/* The workloads' names for util/prng.h; out of line as they always were,
 * so the workloads' code and layout stay what they were. */
#include "bench/rng.h"

void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	prng_init(&r->p, seed, stream);
}

uint64_t rng_next(struct rng *r)
{
	return prng_next(&r->p);
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return prng_below(&r->p, n);
}

double rng_unit(struct rng *r)
{
	return prng_unit(&r->p);
}
