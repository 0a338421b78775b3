/* Set-associative LRU cache model (L1i, and the TLBs with a page as the
 * "line").  Freestanding C: no libc, no allocation -- the caller hands in
 * the tag storage -- so the very same code runs inside the Valgrind tool
 * and in the cmocka tests.
 *
 * The replacement is cachegrind's (cg_sim.c): true LRU; the tag is the
 * whole block number (address >> line_bits), the set is block & (sets - 1);
 * a miss evicts the least recently used tag of its set.  An access that
 * spans several lines looks each line up (all of them: the state changes)
 * and counts at most one miss, as cachegrind does for an instruction
 * crossing a line.  Hits and misses are exactly cachegrind's.
 *
 * The layout is not cachegrind's list in MRU order (a hit there shifts up
 * to ways - 1 tags, behind a search whose length depends on the data, and
 * both mispredict): a resident tag stays in its way until it is evicted,
 * each way has a time stamp of its last use (one counter per cache; 0 =
 * never, an invalid way), and a miss evicts the way with the smallest
 * stamp, which is the LRU one.  Each set also keeps a copy of its most
 * recently used tag, in an array of its own (one word per set, so that
 * the copies of every set fit in a few host cache lines), which the hosts'
 * hot paths compare against: a hit on the MRU tag changes nothing (its
 * stamp is already the newest of the set) and may be skipped.  A set's
 * tags and stamps lie together (the tags of its ways, then their stamps,
 * padded to a power of two of slots: 128 bytes for 8 ways, two adjacent
 * host cache lines when the caller's array is 128-byte aligned), so that
 * a miss, which reads them all, touches one place.  A caller that looks
 * up the same block again and again (a compiled segment) keeps the way it
 * found it in as a hint: the hit is then one compare and two stores. */
#ifndef LACE_SIM_CACHE_H
#define LACE_SIM_CACHE_H

#include <stdint.h>

struct sim_cache {
	uint64_t *tags;     /* per set (1 << stride_bits slots): the ways'
			     * tags (~0 = invalid), then their stamps */
	uint64_t *stamps;   /* tags + ways: stamps[slot] is the last use of
			     * the way whose tag is tags[slot] (0 = never) */
	uint64_t *mru;      /* per set: its most recently used tag; ~0 = none */
	uint64_t clock;     /* the last stamp given */
	uint32_t ways;
	uint32_t sets;
	uint32_t stride_bits;   /* log2 of the slots per set: 2 * ways rounded
				 * up to a power of two, so that a set's first
				 * slot is a shift of its number
				 * (sim_cache_slot), not a multiply on the way
				 * to every tag load */
	uint32_t line_bits;
	uint64_t set_mask;  /* sets - 1 */
};

/* Geometry check: size, ways and line give a power-of-two number of sets
 * and a power-of-two line; 0 when fine, else a negative code whose meaning
 * sim_cache_geometry_error() spells out. */
int sim_cache_geometry_check(uint64_t size, uint32_t ways, uint64_t line);
const char *sim_cache_geometry_error(int code);
/* Number of uint64_t slots the caller must provide (tags and stamps, then
 * the MRU copies; best 128-byte aligned). */
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

/* The set of a block: its index in mru[], and its ways' first slot in
 * tags[] and stamps[] is sim_cache_slot(c, set, 0). */
static inline uint32_t sim_cache_set_of(const struct sim_cache *c, uint64_t block)
{
	return (uint32_t)(block & c->set_mask);
}

/* The slot of a set's way in tags[] and stamps[]. */
static inline uint32_t sim_cache_slot(const struct sim_cache *c, uint32_t set, uint32_t way)
{
	return (set << c->stride_bits) + way;
}

/* The most recently used tag of a set (~0: none). */
static inline uint64_t sim_cache_mru(const struct sim_cache *c, uint32_t set)
{
	return c->mru[set];
}

/* The lookup when the hinted way does not hold the block: search the set;
 * 1 on a miss.  *way is set to where the block now is. */
int sim_cache_ref_search(struct sim_cache *c, uint32_t set, uint64_t block, uint8_t *way);

/* Look up block in its set (sim_cache_set_of()), with *way the way it was
 * found in last time (it must be below the number of ways: 0, or what this
 * function left there for this cache); 1 on a miss, 0 on a hit.  LRU
 * state and *way are updated. */
static inline int sim_cache_ref_way(struct sim_cache *c, uint32_t set, uint64_t block,
				    uint8_t *way)
{
	uint32_t slot = sim_cache_slot(c, set, *way);

	if (__builtin_expect(c->tags[slot] == block, 1)) {
		c->stamps[slot] = ++c->clock;
		c->mru[set] = block;
		return 0;
	}
	return sim_cache_ref_search(c, set, block, way);
}

/* Look up one block; 1 on a miss, 0 on a hit.  LRU state is updated. */
static inline int sim_cache_ref_block(struct sim_cache *c, uint64_t block)
{
	uint32_t set = sim_cache_set_of(c, block);
	uint8_t way = 0;

	/* the MRU tag: nothing changes */
	if (c->mru[set] == block)
		return 0;
	return sim_cache_ref_search(c, set, block, &way);
}

/* One instruction-style access of len bytes at addr: every line it touches
 * is looked up; returns 1 when any missed (at most one miss per access).
 * *lookups (may be NULL) is increased by the number of lines touched. */
int sim_cache_access(struct sim_cache *c, uint64_t addr, uint32_t len, uint64_t *lookups);

#endif
