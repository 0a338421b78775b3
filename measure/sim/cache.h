/* Set-associative LRU cache model (L1i, and the TLBs with a page as the
 * "line").  Freestanding C: no libc, no allocation -- the caller hands in
 * the tag storage -- so the very same code runs inside the Valgrind tool
 * and in the cmocka tests.
 *
 * The model is cachegrind's (cg_sim.c): every set keeps its tags in MRU
 * order; the tag is the whole block number (address >> line_bits), the set
 * is block & (sets - 1); a hit moves the tag to the front, a miss inserts
 * it at the front and drops the LRU tag.  An access that spans several
 * lines looks each line up (all of them: the state changes) and counts at
 * most one miss, as cachegrind does for an instruction crossing a line. */
#ifndef LACE_SIM_CACHE_H
#define LACE_SIM_CACHE_H

#include <stdint.h>

struct sim_cache {
	uint64_t *tags;     /* sets * ways tags, each set MRU first */
	uint32_t ways;
	uint32_t sets;
	uint32_t line_bits;
	uint64_t set_mask;  /* sets - 1 */
};

/* Geometry check: size, ways and line give a power-of-two number of sets
 * and a power-of-two line; 0 when fine, else a negative code whose meaning
 * sim_cache_geometry_error() spells out. */
int sim_cache_geometry_check(uint64_t size, uint32_t ways, uint64_t line);
const char *sim_cache_geometry_error(int code);
/* Number of uint64_t tags the caller must provide (sets * ways). */
uint64_t sim_cache_ntags(uint64_t size, uint32_t ways, uint64_t line);
/* Initialise (geometry must pass the check); tags: sim_cache_ntags() slots. */
void sim_cache_init(struct sim_cache *c, uint64_t size, uint32_t ways, uint64_t line,
		    uint64_t *tags);
/* Forget everything (cold cache). */
void sim_cache_flush(struct sim_cache *c);
/* Forget the blocks below limit (block numbers), keeping the others in
 * their LRU order: a TLB flush of the non-global (user) entries when the
 * kernel's pages are the high half of the address space. */
void sim_cache_flush_below(struct sim_cache *c, uint64_t limit);

static inline uint64_t sim_cache_block(const struct sim_cache *c, uint64_t addr)
{
	return addr >> c->line_bits;
}

static inline uint64_t sim_cache_set_of(const struct sim_cache *c, uint64_t block)
{
	return block & c->set_mask;
}

/* Look up one block; 1 on a miss, 0 on a hit.  LRU state is updated. */
static inline int sim_cache_ref_block(struct sim_cache *c, uint64_t block)
{
	uint64_t *set = &c->tags[(block & c->set_mask) * c->ways];
	uint32_t i, j;

	/* the common case: still the most recently used of its set */
	if (set[0] == block)
		return 0;
	for (i = 1; i < c->ways; i++) {
		if (set[i] == block) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return 0;
		}
	}
	for (j = c->ways - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return 1;
}

/* The same lookup with the set's first tag index (set * ways) already
 * computed, as compiled segments keep it. */
static inline int sim_cache_ref_at(struct sim_cache *c, uint32_t setoff, uint64_t block)
{
	uint64_t *set = &c->tags[setoff];
	uint32_t i, j;

	if (set[0] == block)
		return 0;
	for (i = 1; i < c->ways; i++) {
		if (set[i] == block) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return 0;
		}
	}
	for (j = c->ways - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return 1;
}

/* One instruction-style access of len bytes at addr: every line it touches
 * is looked up; returns 1 when any missed (at most one miss per access).
 * *lookups (may be NULL) is increased by the number of lines touched. */
int sim_cache_access(struct sim_cache *c, uint64_t addr, uint32_t len, uint64_t *lookups);

#endif
