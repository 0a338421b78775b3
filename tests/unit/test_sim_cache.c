/* The set-associative LRU model on hand-made access sequences whose
 * hit/miss pattern is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/model/cache.h"

static uint64_t tags[8192];

/* 4 sets x 2 ways x 64 B lines = 512 B */
static void small(struct sim_cache *c)
{
	assert_int_equal(sim_cache_geometry_check(512, 2, 64), 0);
	sim_cache_init(c, 512, 2, 64, tags);
	assert_int_equal(c->sets, 4);
}

/* line address of set s, tag t in the 4-set cache */
static uint64_t at(unsigned s, unsigned t)
{
	return ((uint64_t)t * 4 + s) * 64;
}

static void test_cold_then_hit(void **state)
{
	struct sim_cache c;

	small(&c);
	assert_int_equal(sim_cache_access(&c, at(0, 0), 4, NULL), 1);
	assert_int_equal(sim_cache_access(&c, at(0, 0) + 60, 4, NULL), 0); /* same line */
	assert_int_equal(sim_cache_access(&c, at(1, 0), 1, NULL), 1);
	assert_int_equal(sim_cache_access(&c, at(0, 0), 1, NULL), 0);
}

static void test_lru_order(void **state)
{
	struct sim_cache c;

	small(&c);
	/* A B in set 0 (2 ways): both resident, A is LRU */
	assert_int_equal(sim_cache_access(&c, at(0, 1), 1, NULL), 1); /* A */
	assert_int_equal(sim_cache_access(&c, at(0, 2), 1, NULL), 1); /* B */
	/* touching A makes B the LRU; C then evicts B, not A */
	assert_int_equal(sim_cache_access(&c, at(0, 1), 1, NULL), 0); /* A hit */
	assert_int_equal(sim_cache_access(&c, at(0, 3), 1, NULL), 1); /* C evicts B */
	assert_int_equal(sim_cache_access(&c, at(0, 1), 1, NULL), 0); /* A still there */
	assert_int_equal(sim_cache_access(&c, at(0, 2), 1, NULL), 1); /* B gone; evicts C */
	assert_int_equal(sim_cache_access(&c, at(0, 3), 1, NULL), 1); /* C gone */
}

static void test_assoc_conflict(void **state)
{
	struct sim_cache c;
	int misses = 0;

	small(&c);
	/* three lines cycling through one 2-way set always miss under LRU */
	for (int round = 0; round < 10; round++)
		for (unsigned t = 0; t < 3; t++)
			misses += sim_cache_access(&c, at(2, t), 1, NULL);
	assert_int_equal(misses, 30);
	/* other sets are untouched by the thrashing */
	assert_int_equal(sim_cache_access(&c, at(1, 0), 1, NULL), 1);
	assert_int_equal(sim_cache_access(&c, at(1, 0), 1, NULL), 0);
	/* two lines per set fit: after the first round nothing misses */
	sim_cache_flush(&c);
	misses = 0;
	for (int round = 0; round < 10; round++)
		for (unsigned s = 0; s < 4; s++)
			for (unsigned t = 0; t < 2; t++)
				misses += sim_cache_access(&c, at(s, t), 1, NULL);
	assert_int_equal(misses, 8);
}

static void test_line_crossing(void **state)
{
	struct sim_cache c;
	uint64_t lookups = 0;

	small(&c);
	/* a 5-byte instruction at offset 62 touches two lines: two lookups,
	 * both cold, but one miss */
	assert_int_equal(sim_cache_access(&c, at(0, 0) + 62, 5, &lookups), 1);
	assert_int_equal(lookups, 2);
	/* both lines were brought in */
	assert_int_equal(sim_cache_access(&c, at(0, 0), 1, &lookups), 0);
	assert_int_equal(sim_cache_access(&c, at(1, 0), 1, &lookups), 0);
	assert_int_equal(lookups, 4);
	/* the second line missing alone still counts one miss */
	assert_int_equal(sim_cache_access(&c, at(1, 1), 1, NULL), 1);
	assert_int_equal(sim_cache_access(&c, at(1, 2), 1, NULL), 1); /* evicts at(1,0) */
	assert_int_equal(sim_cache_access(&c, at(0, 0) + 60, 8, NULL), 1);
	/* the lookup of the first line still happened: at(0,0) is MRU of set 0 */
	assert_int_equal(sim_cache_mru(&c, sim_cache_set_of(&c, at(0, 0) / 64)), at(0, 0) / 64);
}

static void test_direct_mapped_and_full(void **state)
{
	struct sim_cache c;

	/* direct mapped: 8 sets x 1 way */
	assert_int_equal(sim_cache_geometry_check(512, 1, 64), 0);
	sim_cache_init(&c, 512, 1, 64, tags);
	assert_int_equal(sim_cache_access(&c, 0, 1, NULL), 1);
	assert_int_equal(sim_cache_access(&c, 512, 1, NULL), 1);
	assert_int_equal(sim_cache_access(&c, 0, 1, NULL), 1);
	/* fully associative, 3 ways (sets = 1 need not be a power-of-two way count) */
	assert_int_equal(sim_cache_geometry_check(192, 3, 64), 0);
	sim_cache_init(&c, 192, 3, 64, tags);
	assert_int_equal(c.sets, 1);
	for (uint64_t a = 0; a < 3 * 4096; a += 4096)
		assert_int_equal(sim_cache_access(&c, a, 1, NULL), 1);
	for (uint64_t a = 0; a < 3 * 4096; a += 4096)
		assert_int_equal(sim_cache_access(&c, a, 1, NULL), 0);
	assert_int_equal(sim_cache_access(&c, 3 * 4096, 1, NULL), 1); /* evicts 0 */
	assert_int_equal(sim_cache_access(&c, 0, 1, NULL), 1);
}

/* The oracle: cachegrind's own layout (cg_sim.c), each set's tags in MRU
 * order, a hit moving its tag to the front, a miss inserting there and
 * dropping the last one. */
struct mru_list {
	uint64_t t[4096];
	uint32_t ways, sets, line_bits;
};

static void mru_init(struct mru_list *o, uint32_t sets, uint32_t ways, uint32_t line_bits)
{
	o->sets = sets;
	o->ways = ways;
	o->line_bits = line_bits;
	for (uint32_t i = 0; i < sets * ways; i++)
		o->t[i] = ~(uint64_t)0;
}

static int mru_ref(struct mru_list *o, uint64_t block)
{
	uint64_t *set = &o->t[(block & (o->sets - 1)) * o->ways];
	uint32_t i, j;

	for (i = 0; i < o->ways; i++) {
		if (set[i] == block) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return 0;
		}
	}
	for (j = o->ways - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return 1;
}

static void mru_flush_below(struct mru_list *o, uint64_t limit)
{
	for (uint32_t s = 0; s < o->sets; s++) {
		uint64_t *set = &o->t[s * o->ways];
		uint32_t k = 0;

		for (uint32_t i = 0; i < o->ways; i++)
			if (set[i] != ~(uint64_t)0 && set[i] >= limit)
				set[k++] = set[i];
		while (k < o->ways)
			set[k++] = ~(uint64_t)0;
	}
}

static uint64_t rng = 2463534242u;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random block streams through both layouts: every lookup (plain, or with
 * a way hint kept per block as a compiled segment keeps it) gives the same
 * hit or miss, the MRU copy is the oracle's first tag, and flushes of the
 * low blocks keep them in step. */
static void random_vs_oracle(uint32_t sets, uint32_t ways, uint32_t nblocks)
{
	static struct mru_list o;
	static uint8_t hint[256];
	struct sim_cache c;
	uint64_t line = 64, high = (uint64_t)1 << 40;

	assert_true(nblocks <= 256);
	assert_true(sim_cache_ntags(sets * ways * line, ways, line) <= 8192);
	sim_cache_init(&c, sets * ways * line, ways, line, tags);
	mru_init(&o, sets, ways, 6);
	for (uint32_t i = 0; i < 256; i++)
		hint[i] = 0;
	for (int n = 0; n < 200000; n++) {
		uint32_t k = (uint32_t)(next() % nblocks);
		/* skewed: low-numbered blocks far more often; half are "high"
		 * (kernel) blocks that survive flush_below */
		if (next() % 2)
			k = k % (1 + nblocks / 4);
		uint64_t block = (k % 2 ? high : 0) + k;
		uint32_t set = sim_cache_set_of(&c, block);
		int want = mru_ref(&o, block), got;

		if (next() % 2)
			got = sim_cache_ref_block(&c, block);
		else
			got = sim_cache_ref_way(&c, set, block, &hint[k]);
		assert_int_equal(got, want);
		assert_int_equal(sim_cache_mru(&c, set), block);
		if (next() % 5000 == 0) {
			sim_cache_flush_below(&c, high);
			mru_flush_below(&o, high);
		}
		if (next() % 50000 == 0) {
			sim_cache_flush(&c);
			mru_init(&o, sets, ways, 6);
		}
	}
}

static void test_same_as_mru_list(void **state)
{
	random_vs_oracle(64, 8, 200);    /* the Skylake L1i: 64 sets x 8 */
	random_vs_oracle(16, 8, 160);
	random_vs_oracle(4, 2, 24);
	random_vs_oracle(8, 1, 40);      /* direct mapped */
	random_vs_oracle(1, 3, 10);      /* fully associative, 3 ways */
	random_vs_oracle(128, 12, 256);  /* the STLB */
	random_vs_oracle(1, 64, 100);    /* a fully associative TLB */
}

static void test_geometry_errors(void **state)
{
	assert_int_not_equal(sim_cache_geometry_check(0, 8, 64), 0);
	assert_int_not_equal(sim_cache_geometry_check(32768, 8, 48), 0);   /* line */
	assert_int_not_equal(sim_cache_geometry_check(24576, 8, 64), 0);   /* 48 sets */
	assert_int_not_equal(sim_cache_geometry_check(256, 8, 64), 0);     /* ways > lines */
	assert_int_equal(sim_cache_geometry_check(32768, 8, 64), 0);
	assert_int_equal(sim_cache_geometry_check(32768, 8, 128), 0);      /* POWER9 */
	assert_string_not_equal(sim_cache_geometry_error(-4), "fine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cold_then_hit),
		cmocka_unit_test(test_lru_order),
		cmocka_unit_test(test_assoc_conflict),
		cmocka_unit_test(test_line_crossing),
		cmocka_unit_test(test_direct_mapped_and_full),
		cmocka_unit_test(test_same_as_mru_list),
		cmocka_unit_test(test_geometry_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
