/* footprint: run the generated handlers (bench/handlers.h) the way a
 * kernel runs its code: each call picks `depth` handlers from a Zipf(skew)
 * distribution over all of them (bench/zipf.h), so a few are hot, many are
 * warm and most are cold, and the hot ones are scattered over the text. */
#ifndef LACE_BENCH_FOOTPRINT_H
#define LACE_BENCH_FOOTPRINT_H

#include <stdint.h>
#include <stdio.h>

#include "bench/handlers.h"
#include "bench/rng.h"

/* Per-worker state: its own random stream and mixing state, so what runs
 * never depends on the interleaving of workers. */
struct footprint_worker {
	struct rng rng;
	struct gen_state st;
	uint64_t calls;      /* handlers run */
	uint64_t sum;        /* sum of their results: a checksum of the work */
};

/* Set up the distribution (once, before workers start).  depth 0 disables
 * the footprint.  0, or -EINVAL for a bad skew. */
int footprint_init(unsigned depth, double skew, uint64_t seed);
/* Release the distribution. */
void footprint_free(void);
void footprint_worker_init(struct footprint_worker *w, uint64_t seed, uint64_t stream);
/* Run `depth` handlers with argument `arg` mixed into each call. */
void footprint_run(struct footprint_worker *w, uint64_t arg);
/* Print the names of the hottest handlers that together receive at least
 * `mass` (0..1] of the calls, hottest first, one per line, with their
 * probability: what tests and doc/workloads.md use to size the hot set. */
void footprint_print_hot(FILE *f, double mass);
/* "handlers=512 kib=384 ...": the generator's arguments. */
const char *footprint_config(void);
unsigned footprint_depth(void);

#endif
