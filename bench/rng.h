/* rng: the workloads' deterministic random numbers (util/prng.h's
 * splitmix64, under the names the workloads were written with).
 *
 * Every worker owns a stream derived from (--seed, worker index), so what a
 * worker does never depends on how the scheduler interleaved it with the
 * others: that is what makes the model's counts identical run to run. */
#ifndef LACE_BENCH_RNG_H
#define LACE_BENCH_RNG_H

#include <stdint.h>

#include "util/prng.h"

struct rng {
	struct prng p;
};

/* The stream of worker `stream` under seed `seed`. */
void rng_init(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n), n > 0 (multiply-shift: no modulo bias worth noting
 * for n far below 2^64). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_unit(struct rng *r);

#endif
