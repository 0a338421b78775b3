/* prng: lace's one pseudo-random generator, splitmix64 (Steele, Lea and
 * Flood 2014; the seeding of java.util.SplittableRandom): one add and two
 * multiplies per number, a full 2^64 period, and independent streams
 * cheaply derived from (seed, stream).  Every seeded draw in lace goes
 * through it (the shuffled layouts of the model and of the kernel, the
 * workloads, the handler generator, hashmmu's timebase), so a seed means
 * the same generator everywhere.
 *
 * Header-only and libc-free on purpose: the workloads, the generator (a
 * host tool built alone) and hashmmu include it without linking util/. */
#ifndef LACE_PRNG_H
#define LACE_PRNG_H

#include <stdint.h>

#define PRNG_GOLDEN 0x9e3779b97f4a7c15ULL   /* 2^64 / the golden ratio, odd */

struct prng {
	uint64_t s;
};

/* splitmix64's output function: a bijective mix of all 64 bits. */
static inline uint64_t prng_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stream `stream` of seed `seed`: the pair is hashed so neighbouring
 * seeds and streams start far apart. */
static inline void prng_init(struct prng *r, uint64_t seed, uint64_t stream)
{
	r->s = prng_mix(seed ^ prng_mix(stream + PRNG_GOLDEN));
}

/* A state set as it is (for generators that already had a raw seed). */
static inline void prng_init_raw(struct prng *r, uint64_t state)
{
	r->s = state;
}

static inline uint64_t prng_next(struct prng *r)
{
	return prng_mix(r->s += PRNG_GOLDEN);
}

/* The n-th number (1-based) of the raw state s without keeping a state:
 * what prng_next() gives the n-th time after prng_init_raw(r, s).  For a
 * counter shared between threads. */
static inline uint64_t prng_at(uint64_t s, uint64_t n)
{
	return prng_mix(s + PRNG_GOLDEN * n);
}

/* Uniform in [0, n), n > 0 (multiply-shift: no modulo bias worth noting
 * for n far below 2^64). */
static inline uint64_t prng_below(struct prng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)prng_next(r) * n) >> 64);
}

/* Uniform in [0, 1): the top 53 bits. */
static inline double prng_unit(struct prng *r)
{
	return (double)(prng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
