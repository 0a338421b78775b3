/* splitmix64 (Steele, Lea, Flood 2014): one add and two multiplies per
 * number, full period, and cheap to seed many independent streams. */
#include "bench/rng.h"

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	/* Hash the pair so neighbouring seeds/streams start far apart. */
	r->s = mix(seed ^ mix(stream + 0x9e3779b97f4a7c15ULL));
}

uint64_t rng_next(struct rng *r)
{
	return mix(r->s += 0x9e3779b97f4a7c15ULL);
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
