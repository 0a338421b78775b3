/* iTLB and second-level TLB through the whole model: 4 KiB and 2 MiB
 * pages, the STLB looked up only on iTLB misses, per-function attribution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/model/model.h"

static uint64_t t_l1i[8192], t_itlb[4096], t_stlb[4096];

static void model(struct sim_model *m, uint32_t itlb, uint32_t iways, uint32_t stlb,
		  uint32_t sways, uint64_t page)
{
	struct sim_config cfg = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
		.itlb_entries = itlb, .itlb_ways = iways,
		.stlb_entries = stlb, .stlb_ways = sways,
		.page = page, .fetch_block = 16,
	};
	const char *what, *why;

	assert_int_equal(sim_config_check(&cfg, &what, &why), 0);
	sim_model_init(m, &cfg, t_l1i, t_itlb, t_stlb);
}

static void test_4k_pages_fully_assoc(void **state)
{
	struct sim_model m;

	model(&m, 4, 4, 0, 0, 4096);
	/* 4 pages fit; a 5th evicts the LRU (page 0) */
	for (uint64_t p = 0; p < 4; p++)
		sim_model_insn(&m, p * 4096 + 16, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 4);
	sim_model_insn(&m, 1 * 4096, 4, NULL, 0);  /* hit, page 0 becomes LRU */
	sim_model_insn(&m, 4 * 4096, 4, NULL, 0);  /* miss, evicts page 0 */
	sim_model_insn(&m, 1 * 4096, 4, NULL, 0);  /* hit */
	sim_model_insn(&m, 0 * 4096, 4, NULL, 0);  /* miss */
	assert_int_equal(m.t.itlb_misses, 6);
	assert_int_equal(m.t.itlb_loads, 8);
	assert_int_equal(m.t.stlb_loads, 0);       /* no STLB configured */
}

static void test_2m_pages(void **state)
{
	struct sim_model m;

	model(&m, 2, 2, 0, 0, 2 << 20);
	/* everything within one 2 MiB page is one entry: 4 KiB strides hit */
	for (uint64_t a = 0; a < (2 << 20); a += 4096)
		sim_model_insn(&m, a, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 1);
	assert_int_equal(m.t.itlb_loads, 512);
	/* three 2 MiB pages cycling through 2 entries always miss */
	for (int r = 0; r < 5; r++)
		for (uint64_t p = 1; p <= 3; p++)
			sim_model_insn(&m, p << 21, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 1 + 15);
	/* a page-crossing instruction: two lookups, at most one miss */
	model(&m, 2, 2, 0, 0, 2 << 20);
	sim_model_insn(&m, (2 << 20) - 2, 6, NULL, 0);
	assert_int_equal(m.t.itlb_loads, 2);
	assert_int_equal(m.t.itlb_misses, 1);
}

static void test_stlb_on_itlb_miss(void **state)
{
	struct sim_model m;
	struct sim_fn_stats fn = { 0 };

	/* iTLB 2 entries (fully associative), STLB 8 entries 2-way (4 sets) */
	model(&m, 2, 2, 8, 2, 4096);
	/* pages 0..3 once: 4 iTLB misses, each looked up in the STLB: 4 misses */
	for (uint64_t p = 0; p < 4; p++)
		sim_model_insn(&m, p * 4096, 4, &fn, p == 0);
	assert_int_equal(m.t.itlb_misses, 4);
	assert_int_equal(m.t.stlb_loads, 4);
	assert_int_equal(m.t.stlb_misses, 4);
	/* again: the iTLB holds only 2 and 0,1 were evicted, the STLB holds all */
	for (uint64_t p = 0; p < 4; p++)
		sim_model_insn(&m, p * 4096, 4, &fn, 0);
	assert_int_equal(m.t.itlb_misses, 8);
	assert_int_equal(m.t.stlb_loads, 8);
	assert_int_equal(m.t.stlb_misses, 4);
	/* iTLB hits never reach the STLB */
	sim_model_insn(&m, 3 * 4096 + 8, 4, &fn, 0);
	assert_int_equal(m.t.stlb_loads, 8);
	/* STLB conflicts: pages 0, 4, 8 share STLB set 0 (2 ways) */
	sim_model_insn(&m, 4 * 4096, 4, &fn, 0);
	sim_model_insn(&m, 8 * 4096, 4, &fn, 0);   /* evicts page 0 from the STLB */
	sim_model_insn(&m, 0 * 4096, 4, &fn, 0);   /* iTLB miss and STLB miss */
	assert_int_equal(m.t.stlb_misses, 7);
	/* attribution */
	assert_int_equal(fn.instructions, 12);
	assert_int_equal(fn.calls, 1);
	assert_int_equal(fn.itlb_misses, m.t.itlb_misses);
	assert_int_equal(fn.stlb_misses, 7);
}

static void test_reset_keeps_state(void **state)
{
	struct sim_model m;

	model(&m, 4, 4, 16, 4, 4096);
	sim_model_insn(&m, 0x1000, 4, NULL, 0);
	sim_model_reset_counts(&m);       /* what a forked child does */
	assert_int_equal(m.t.instructions, 0);
	sim_model_insn(&m, 0x1000, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 0);   /* the entry survived */
	assert_int_equal(m.t.l1i_misses, 0);
}

static void test_config_errors(void **state)
{
	struct sim_config cfg = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
		.itlb_entries = 64, .itlb_ways = 64, .stlb_entries = 1536, .stlb_ways = 12,
		.page = 4096, .fetch_block = 32,
	};
	const char *what, *why;

	assert_int_equal(sim_config_check(&cfg, &what, &why), 0);
	cfg.stlb_ways = 7;   /* 1536/7 is not a whole number of sets */
	assert_int_not_equal(sim_config_check(&cfg, &what, &why), 0);
	assert_string_equal(what, "stlb");
	cfg.stlb_ways = 12;
	cfg.page = 8192 + 4096;
	assert_int_not_equal(sim_config_check(&cfg, &what, &why), 0);
	assert_string_equal(what, "page");
	cfg.page = 4096;
	cfg.fetch_block = 24;
	assert_int_not_equal(sim_config_check(&cfg, &what, &why), 0);
	assert_string_equal(what, "fetch-block");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4k_pages_fully_assoc),
		cmocka_unit_test(test_2m_pages),
		cmocka_unit_test(test_stlb_on_itlb_miss),
		cmocka_unit_test(test_reset_keeps_state),
		cmocka_unit_test(test_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
