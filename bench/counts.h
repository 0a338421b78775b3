/* counts: the numbers a workload reports, summed over all its workers.
 *
 * The block lives in a MAP_SHARED anonymous mapping created before any
 * fork, so a forked worker adds its counts with atomic adds before it exits
 * and the parent prints the totals: no pipe, no extra read or write system
 * call, which keeps hackbench's system-call counts equal to rt-tests'.
 *
 * Output: readable lines ("  name  value"), then one machine-readable line
 *
 *     lace-counts: workload=NAME key=value key=value ...
 *
 * with keys in a fixed order, values unsigned decimal integers (see
 * doc/workloads.md for each workload's keys). */
#ifndef LACE_BENCH_COUNTS_H
#define LACE_BENCH_COUNTS_H

#include <stdint.h>

#include "util/strbuf.h"

#define COUNTS_MAX 32

struct counts {
	unsigned n;
	const char *names[COUNTS_MAX];
	uint64_t *val;       /* n values, in the shared mapping */
};

/* Create the shared block for the given names (NULL-terminated list of at
 * most COUNTS_MAX).  Returns 0 or -errno (mmap failure). */
int counts_init(struct counts *c, const char *const *names);
void counts_free(struct counts *c);
/* Index of a name, or -1. */
int counts_index(const struct counts *c, const char *name);
/* Atomic add; safe from any worker thread or forked child. */
void counts_add(struct counts *c, unsigned idx, uint64_t v);
uint64_t counts_get(const struct counts *c, unsigned idx);
/* Append the readable lines and the lace-counts line for `workload`;
 * `extra` (may be NULL or "") is appended verbatim to the machine line
 * after workload=, for the run's parameters ("seed=1 pages=4096"). */
void counts_format(const struct counts *c, const char *workload, const char *extra,
		   struct strbuf *out);

#endif
