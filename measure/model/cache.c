/* Set-associative LRU cache model; see cache.h.  No libc here. */
#include "measure/model/cache.h"

/* the tag that no block number can equal (blocks are addr >> line_bits,
 * with line_bits >= 1, so the top bit is never set) */
#define SIM_TAG_INVALID (~(uint64_t)0)

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static uint32_t log2_u64(uint64_t x)
{
	uint32_t n = 0;

	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

enum {
	GEOM_ZERO = -1,
	GEOM_LINE = -2,
	GEOM_WAYS = -3,
	GEOM_SETS = -4,
};

int sim_cache_geometry_check(uint64_t size, uint32_t ways, uint64_t line)
{
	if (!size || !ways || !line)
		return GEOM_ZERO;
	if (!is_pow2(line) || line < 2)
		return GEOM_LINE;
	if ((uint64_t)ways * line > size)
		return GEOM_WAYS;
	if (size % ((uint64_t)ways * line) || !is_pow2(size / ((uint64_t)ways * line)))
		return GEOM_SETS;
	return 0;
}

const char *sim_cache_geometry_error(int code)
{
	switch (code) {
	case 0:
		return "fine";
	case GEOM_ZERO:
		return "size, ways and line size must all be positive";
	case GEOM_LINE:
		return "line (or page) size must be a power of two";
	case GEOM_WAYS:
		return "more ways than the size holds lines";
	case GEOM_SETS:
		return "size / (ways * line) must be a power of two (the number of sets)";
	}
	return "bad geometry";
}

/* log2 of the slots per set (struct sim_cache's stride_bits) */
static uint32_t stride_bits_of(uint32_t ways)
{
	uint32_t bits = 0;

	while (((uint64_t)1 << bits) < 2 * (uint64_t)ways)
		bits++;
	return bits;
}

uint64_t sim_cache_ntags(uint64_t size, uint32_t ways, uint64_t line)
{
	uint64_t sets = size / line / ways;

	/* tags and stamps of every way (a set's slots a power of two), then
	 * the MRU copies */
	return (sets << stride_bits_of(ways)) + sets;
}

void sim_cache_flush(struct sim_cache *c)
{
	for (uint32_t s = 0; s < c->sets; s++) {
		c->mru[s] = SIM_TAG_INVALID;
		for (uint32_t w = 0; w < c->ways; w++) {
			c->tags[sim_cache_slot(c, s, w)] = SIM_TAG_INVALID;
			c->stamps[sim_cache_slot(c, s, w)] = 0;
		}
	}
	c->clock = 0;
}

void sim_cache_flush_below(struct sim_cache *c, uint64_t limit)
{
	for (uint32_t s = 0; s < c->sets; s++) {
		uint64_t *set = &c->tags[sim_cache_slot(c, s, 0)];
		uint64_t *stamp = &c->stamps[sim_cache_slot(c, s, 0)];

		if (c->mru[s] != SIM_TAG_INVALID && c->mru[s] < limit)
			c->mru[s] = SIM_TAG_INVALID;
		/* the survivors keep their stamps (their LRU order); a freed
		 * way is never used, the first to go on a miss */
		for (uint32_t i = 0; i < c->ways; i++) {
			if (set[i] != SIM_TAG_INVALID && set[i] < limit) {
				set[i] = SIM_TAG_INVALID;
				stamp[i] = 0;
			}
		}
	}
}

void sim_cache_init(struct sim_cache *c, uint64_t size, uint32_t ways, uint64_t line,
		    uint64_t *tags)
{
	c->ways = ways;
	c->sets = (uint32_t)(size / line / ways);
	c->line_bits = log2_u64(line);
	c->set_mask = c->sets - 1;
	c->stride_bits = stride_bits_of(ways);
	c->tags = tags;
	c->stamps = tags + ways;
	c->mru = tags + ((uint64_t)c->sets << c->stride_bits);
	sim_cache_flush(c);
}

int sim_cache_ref_search(struct sim_cache *c, uint32_t s, uint64_t block, uint8_t *way)
{
	uint64_t *set = &c->tags[sim_cache_slot(c, s, 0)];
	uint64_t *stamp = &c->stamps[sim_cache_slot(c, s, 0)];
	uint32_t w, ways = c->ways, hit = ways, victim = 0;
	uint64_t oldest = stamp[0];

	/* every way looked at, the choices as selects: a loop whose length is
	 * the cache's and no branch on where the block or the oldest way is
	 * (those mispredicted on most searches).  A block sits in one way at
	 * most; the least recently used way is the first with the smallest
	 * stamp (an invalid way has 0, below every valid one). */
	for (w = 0; w < ways; w++) {
		int older = stamp[w] < oldest;

		hit = set[w] == block ? w : hit;
		oldest = older ? stamp[w] : oldest;
		victim = older ? w : victim;
	}
	if (hit < ways) {
		stamp[hit] = ++c->clock;
		c->mru[s] = block;
		*way = (uint8_t)hit;
		return 0;
	}
	set[victim] = block;
	stamp[victim] = ++c->clock;
	c->mru[s] = block;
	*way = (uint8_t)victim;
	return 1;
}

int sim_cache_access(struct sim_cache *c, uint64_t addr, uint32_t len, uint64_t *lookups)
{
	uint64_t first = sim_cache_block(c, addr);
	uint64_t last = sim_cache_block(c, addr + (len ? len - 1 : 0));
	int miss = 0;

	/* every line is looked up even after a miss: the LRU state changes */
	for (uint64_t b = first; b <= last; b++)
		miss |= sim_cache_ref_block(c, b);
	if (lookups)
		*lookups += last - first + 1;
	return miss;
}
