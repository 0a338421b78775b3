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

/* A lookup in one set whose MRU tag is not block: move block to the
 * front (from where it was, or as a new tag dropping the LRU one); 1 on a
 * miss.  Without data-dependent branches: where the tag sits changes from
 * one lookup to the next, and a mispredicted loop exit costs more than
 * scanning and shifting the whole set.  A set holds a block at most once. */
static inline int sim_cache_set_update(uint64_t *set, uint32_t ways, uint64_t block)
{
	uint32_t pos = ways - 1, i;
	int miss = 1;

	for (i = 1; i < ways; i++) {
		int eq = set[i] == block;
		pos = eq ? i : pos;
		miss = eq ? 0 : miss;
	}
	/* ways 1..pos take their predecessor's tag, the others keep theirs */
	for (i = ways - 1; i > 0; i--) {
		uint64_t take = -(uint64_t)(i <= pos);   /* all ones or zero */
		set[i] = (set[i - 1] & take) | (set[i] & ~take);
	}
	set[0] = block;
	return miss;
}

/* Look up one block; 1 on a miss, 0 on a hit.  LRU state is updated. */
static inline int sim_cache_ref_block(struct sim_cache *c, uint64_t block)
{
	uint64_t *set = &c->tags[(block & c->set_mask) * c->ways];

	/* the common case: still the most recently used of its set */
	if (set[0] == block)
		return 0;
	return sim_cache_set_update(set, c->ways, block);
}

/* The same lookup with the set's first tag index (set * ways) already
 * computed, as compiled segments keep it. */
static inline int sim_cache_ref_at(struct sim_cache *c, uint32_t setoff, uint64_t block)
{
	uint64_t *set = &c->tags[setoff];

	if (set[0] == block)
		return 0;
	return sim_cache_set_update(set, c->ways, block);
}

/* One instruction-style access of len bytes at addr: every line it touches
 * is looked up; returns 1 when any missed (at most one miss per access).
 * *lookups (may be NULL) is increased by the number of lines touched. */
int sim_cache_access(struct sim_cache *c, uint64_t addr, uint32_t len, uint64_t *lookups);

#endif
