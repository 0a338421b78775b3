/* iTLB and second-level TLB through the whole model: 4 KiB and 2 MiB
 * pages, the STLB looked up only on iTLB misses, per-function attribution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/model/model.h"

static uint64_t t_l1i[8192], t_itlb[4096], t_stlb[4096], t_litlb[64];

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
	sim_model_init(m, &cfg, t_l1i, t_itlb, t_stlb, NULL);
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

/* The kernel's text in 2 MiB pages (x86-64 Linux), the rest in 4 KiB: a
 * large-page TLB of its own, the STLB holding both sizes or only small
 * ones (Skylake / Nehalem). */
static void test_large_page_range(void **state)
{
	struct sim_config cfg = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
		.itlb_entries = 4, .itlb_ways = 4, .stlb_entries = 16, .stlb_ways = 4,
		.page = 4096, .fetch_block = 16,
		.large_page = 2 << 20, .litlb_entries = 2, .litlb_ways = 2, .stlb_large = 1,
		.large_lo = 0xffffffff81000000ull, .large_hi = 0xffffffff81800000ull,
	};
	const uint64_t k = 0xffffffff81000000ull;
	const char *what, *why;
	struct sim_model m;

	assert_int_equal(sim_config_check(&cfg, &what, &why), 0);
	sim_model_init(&m, &cfg, t_l1i, t_itlb, t_stlb, t_litlb);
	/* 512 4 KiB strides through one 2 MiB page: one entry, one miss */
	for (uint64_t a = 0; a < (2 << 20); a += 4096)
		sim_model_insn(&m, k + a, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 1);
	assert_int_equal(m.t.itlb_loads, 512);
	assert_int_equal(m.t.stlb_loads, 1);
	assert_int_equal(m.t.stlb_misses, 1);
	/* three large pages through two entries: each misses, the STLB holds
	 * them (tagged apart from small pages of the same number) */
	for (int r = 0; r < 3; r++)
		for (uint64_t p = 1; p <= 3; p++)
			sim_model_insn(&m, k + (p << 21), 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 1 + 9);
	assert_int_equal(m.t.stlb_loads, 1 + 9);
	assert_int_equal(m.t.stlb_misses, 1 + 3);
	/* user code beside it is in small pages, in the small iTLB; a
	 * context switch's flush of user entries keeps the kernel's */
	sim_model_insn(&m, 0x401000, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 11);
	sim_cache_flush_below(&m.itlb, 0x7fffffffffffull >> 12);
	sim_cache_flush_below(&m.stlb, 0x7fffffffffffull >> 12);
	sim_model_insn(&m, k + (3 << 21), 4, NULL, 0);   /* the MRU large page: a hit */
	assert_int_equal(m.t.itlb_misses, 11);
	/* outside the range: small pages even in the kernel half */
	sim_model_insn(&m, 0xffffffffa0000000ull, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 12);

	/* Nehalem's STLB holds 4 KiB pages only: a large-page miss walks */
	cfg.stlb_large = 0;
	sim_model_init(&m, &cfg, t_l1i, t_itlb, t_stlb, t_litlb);
	for (int r = 0; r < 2; r++)
		for (uint64_t p = 0; p < 3; p++)
			sim_model_insn(&m, k + (p << 21), 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 6);
	assert_int_equal(m.t.stlb_loads, 0);

	/* no large-page TLB storage: one page size, as before */
	sim_model_init(&m, &cfg, t_l1i, t_itlb, t_stlb, NULL);
	sim_model_insn(&m, k, 4, NULL, 0);
	sim_model_insn(&m, k + 4096, 4, NULL, 0);
	assert_int_equal(m.t.itlb_misses, 2);

	/* a range that is not whole large pages is refused */
	cfg.large_hi += 4096;
	assert_int_not_equal(sim_config_check(&cfg, &what, &why), 0);
	assert_string_equal(what, "large-page");
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
		cmocka_unit_test(test_large_page_range),
		cmocka_unit_test(test_reset_keeps_state),
		cmocka_unit_test(test_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
