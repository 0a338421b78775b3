/* Fetch blocks on hand-made sequences, and the segment compiler: replaying
 * compiled segments must give exactly what the per-instruction reference
 * gives (the property the Valgrind tool relies on for cachegrind parity). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/model/model.h"

static void test_sequential_blocks(void **state)
{
	struct sim_fetch f;

	sim_fetch_init(&f, 16);
	/* 4-byte instructions from 0x1000 to 0x1040: 4 blocks of 16 B entered,
	 * the first by a "jump" (nothing before), the rest sequentially */
	for (uint64_t a = 0x1000; a < 0x1040; a += 4)
		sim_fetch_insn(&f, a, 4);
	assert_int_equal(f.entries, 4);
	assert_int_equal(f.late, 0);
	/* a 6-byte instruction at 0x104c spans 0x1040 and 0x1050 blocks but
	 * starts after a jump: 2 entries; offset 12 of 16 is the last quarter */
	sim_fetch_insn(&f, 0x104c, 6);
	assert_int_equal(f.entries, 6);
	assert_int_equal(f.late, 1);
	/* a jump back into the same block is a new fetch */
	sim_fetch_insn(&f, 0x1050, 2);
	assert_int_equal(f.entries, 7);
	assert_int_equal(f.late, 0 + 1);
	/* 64 B blocks: a jump target at offset 47 is not late, 48 is */
	sim_fetch_init(&f, 64);
	sim_fetch_insn(&f, 0x2000 + 47, 1);
	assert_int_equal(f.late, 0);
	sim_fetch_insn(&f, 0x3000 + 48, 1);
	assert_int_equal(f.late, 1);
	assert_int_equal(f.entries, 2);
	/* falling through from 0x3031 into the next block: entry, not late */
	sim_fetch_insn(&f, 0x3031, 15);
	sim_fetch_insn(&f, 0x3040, 1);
	assert_int_equal(f.entries, 3);
	assert_int_equal(f.late, 1);
	/* an empty instruction (len 0, undecodable) on a block boundary
	 * enters its block; falling through from it stays there */
	sim_fetch_insn(&f, 0x3070, 16);   /* jump: late (offset 48 of 64) */
	sim_fetch_insn(&f, 0x3080, 0);
	assert_int_equal(f.entries, 5);
	sim_fetch_insn(&f, 0x3080, 2);
	assert_int_equal(f.entries, 5);
	assert_int_equal(f.late, 2);
	/* ... and an empty one inside a block enters nothing */
	sim_fetch_insn(&f, 0x3082, 0);
	sim_fetch_insn(&f, 0x3082, 4);
	assert_int_equal(f.entries, 5);
}

static uint64_t r_l1i[8192], r_itlb[4096], r_stlb[4096], r_litlb[64];
static uint64_t s_l1i[8192], s_itlb[4096], s_stlb[4096], s_litlb[64];
static uint64_t b_l1i[8192], b_itlb[4096], b_stlb[4096], b_litlb[64];

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random program: a few "functions" of straight-line code far apart
 * (conflicts in the small caches), executed as segments that jump around,
 * cross lines and pages, and revisit lines inside one segment. */
static void random_equivalence_at(const struct sim_config *cfg, int rounds, const uint64_t *base)
{
	struct sim_model ref, seg, blk;
	struct sim_fn_stats rfn[4], sfn[4], bfn[4];
	struct sim_ref blines[40 * 4], bpages[40 * 4];
	struct sim_seg_fn bfns[4];
	int fits = 0;
	const char *what, *why;
	enum { MAXN = 40 };
	struct sim_insn insns[MAXN];
	struct sim_ref lines[MAXN * 4], pages[MAXN * 4];
	struct sim_seg_fn fns[4];
	uint64_t sa[MAXN];
	uint32_t sl[MAXN];
	uint64_t nl, ni, ns, nlt;

	assert_int_equal(sim_config_check(cfg, &what, &why), 0);
	sim_model_ntags(cfg, &nl, &ni, &ns, &nlt);
	assert_true(nlt <= 64);
	sim_model_init(&ref, cfg, r_l1i, r_itlb, r_stlb, r_litlb);
	sim_model_init(&seg, cfg, s_l1i, s_itlb, s_stlb, s_litlb);
	sim_model_init(&blk, cfg, b_l1i, b_itlb, b_stlb, b_litlb);
	memset(rfn, 0, sizeof(rfn));
	memset(sfn, 0, sizeof(sfn));
	memset(bfn, 0, sizeof(bfn));
	uint64_t end = base[0];
	uint64_t kind_runs[4] = { 0 };
	for (int r = 0; r < rounds; r++) {
		/* a quarter short: the compact blocks' size */
		uint32_t n = 1 + next() % (r % 4 ? MAXN : 6);
		uint64_t pc = base[next() % 4] + next() % 8192;
		struct sim_seg s;

		/* a third falls through from the segment before */
		if (r % 3 == 1)
			pc = end;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t len = 1 + next() % 15;
			if (next() % 32 == 0)   /* empty (an undecodable one) */
				len = 0;
			if (next() % 8 == 0)   /* a chased jump inside the segment */
				pc = base[next() % 4] + next() % 8192;
			insns[i].addr = pc;
			insns[i].len = len;
			insns[i].fn = (uint16_t)((pc >> 12) % 4);
			insns[i].entry = next() % 16 == 0;
			pc += len;
		}
		end = pc;
		for (int f = 0; f < 4; f++)
			fns[f].stats = &sfn[f];
		assert_int_equal(sim_seg_build(&seg, insns, n, &s, lines, MAXN * 4, pages,
					       MAXN * 4, fns, 4, sa, sl), 0);
		s.lazy = r & 1;   /* both ways of keeping function counts */
		assert_true(s.nlines <= s.l1i_loads);
		/* the same segment for the compact block's model (its own
		 * hints), run as a block when it fits, else as a segment */
		struct sim_seg bs;
		struct sim_blk b;
		for (int f = 0; f < 4; f++)
			bfns[f].stats = &bfn[f];
		assert_int_equal(sim_seg_build(&blk, insns, n, &bs, blines, MAXN * 4, bpages,
					       MAXN * 4, bfns, 4, sa, sl), 0);
		bs.lazy = 1;
		int fit = !sim_blk_build(&b, &blk, &bs);
		fits += fit;
		int one_fn = 1;
		for (uint32_t i = 0; i < bs.nlines + bs.npages + bs.nlpages; i++)
			one_fn &= (i < bs.nlines ? bs.lines[i].fn : bs.pages[i - bs.nlines].fn) ==
				  bs.lines[0].fn;
		assert_int_equal(fit, bs.nlines <= SIM_BLK_LINES && bs.npages + bs.nlpages == 1 &&
				      one_fn);
		/* run it a few times, as a hot superblock would be */
		int reps = 1 + next() % 3;
		for (int k = 0; k < reps; k++) {
			sim_seg_run(&seg, &s);
			if (fit) {
				blk.t.instructions += bs.ninsn;
				blk.t.l1i_loads += bs.l1i_loads;
				blk.t.itlb_loads += bs.itlb_loads;
				bs.execs++;
				sim_blk_run_caches(&blk, &b, sim_seg_fn(&bs, bs.lines[0].fn));
				if (r & 2) {
					/* the kind as the TCG plugin's copies fix it */
					unsigned kind = sim_blk_kind(&b);

					kind_runs[kind]++;
					sim_blk_fetch_kind(&blk.fetch, &b, kind);
				} else {
					sim_blk_fetch(&blk.fetch, &b);
				}
				blk.fetch.entries += bs.fetch.empty_entries;
				blk.fetch.late += bs.fetch.seq_late;
			} else {
				sim_seg_run(&blk, &bs);
			}
			sim_model_fetch_sync(&blk);
			for (uint32_t i = 0; i < n; i++)
				sim_model_insn(&ref, insns[i].addr, insns[i].len,
					       &rfn[insns[i].fn], insns[i].entry);
		}
		assert_int_equal(s.execs, s.lazy ? (uint64_t)reps : 0);
		sim_seg_settle(&s);
		sim_seg_settle(&bs);
	}
	assert_memory_equal(&ref.t, &seg.t, sizeof(ref.t));
	assert_memory_equal(rfn, sfn, sizeof(rfn));
	assert_memory_equal(&ref.t, &blk.t, sizeof(ref.t));
	assert_memory_equal(rfn, bfn, sizeof(rfn));
	assert_true(fits > rounds / 8 && fits < rounds);
	/* sim_blk_fetch_kind ran blocks of each kind, and no block was both */
	assert_true(kind_runs[0] > 0 && kind_runs[SIM_BLK_ALIGNED] > 0 &&
		    kind_runs[SIM_BLK_LATE] > 0);
	assert_int_equal(kind_runs[SIM_BLK_ALIGNED | SIM_BLK_LATE], 0);
	assert_true(ref.t.l1i_misses > 0);
	assert_true(ref.t.itlb_misses > 0);
}

static void random_equivalence(const struct sim_config *cfg, int rounds)
{
	const uint64_t base[4] = { 0x400000, 0x400000 + 4096 * 9 + 40, 0x7f0000001000, 0x401ff0 };

	random_equivalence_at(cfg, rounds, base);
}

static void test_segments_equal_reference(void **state)
{
	/* tiny caches so that conflicts inside one segment happen */
	struct sim_config tiny = {
		.l1i_size = 1024, .l1i_ways = 2, .l1i_line = 64,
		.itlb_entries = 4, .itlb_ways = 2, .stlb_entries = 16, .stlb_ways = 4,
		.page = 4096, .fetch_block = 16,
	};
	struct sim_config direct = {
		.l1i_size = 256, .l1i_ways = 1, .l1i_line = 16,
		.itlb_entries = 2, .itlb_ways = 1, .stlb_entries = 0,
		.page = 4096, .fetch_block = 32,
	};
	struct sim_config p9 = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 128,
		.itlb_entries = 64, .itlb_ways = 64, .stlb_entries = 1024, .stlb_ways = 4,
		.page = 65536, .fetch_block = 32,
	};
	random_equivalence(&tiny, 20000);
	random_equivalence(&direct, 20000);
	random_equivalence(&p9, 20000);
	/* two page sizes: three of the four functions in 2 MiB pages (in
	 * three of them, through a 2-entry large-page TLB), with the STLB
	 * holding both sizes, then 4 KiB pages only */
	struct sim_config large = tiny;
	const uint64_t far[4] = { 0xffffffff81000000ull, 0xffffffff81200ff0ull, 0x7f0000001000,
				  0xffffffff815ffff8ull };
	large.large_page = 2 << 20;
	large.litlb_entries = 2;
	large.litlb_ways = 2;
	large.stlb_large = 1;
	large.large_lo = 0xffffffff81000000ull;
	large.large_hi = 0xffffffff81800000ull;
	random_equivalence_at(&large, 20000, far);
	large.stlb_large = 0;
	random_equivalence_at(&large, 20000, far);
}

static void test_segment_drops_repeats(void **state)
{
	struct sim_config cfg = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
		.itlb_entries = 64, .itlb_ways = 64, .page = 4096, .fetch_block = 16,
	};
	struct sim_model m;
	struct sim_insn insns[16];
	struct sim_ref lines[64], pages[64];
	struct sim_seg_fn fns[1] = { { NULL, 0, 0 } };
	uint64_t sa[16];
	uint32_t sl[16];
	struct sim_seg s;

	sim_model_init(&m, &cfg, r_l1i, r_itlb, r_stlb, NULL);
	/* 16 4-byte instructions over one 64 B line: one lookup kept */
	for (int i = 0; i < 16; i++)
		insns[i] = (struct sim_insn){ .addr = 0x1000 + 4 * i, .len = 4 };
	assert_int_equal(sim_seg_build(&m, insns, 16, &s, lines, 64, pages, 64, fns, 1, sa, sl), 0);
	assert_int_equal(s.nlines, 1);
	assert_int_equal(s.l1i_loads, 16);
	assert_int_equal(s.npages, 1);
	assert_int_equal(fns[0].instructions, 16);
	/* line A, line B (another set), line A again: the second A is dropped */
	insns[0] = (struct sim_insn){ .addr = 0x1000, .len = 4 };
	insns[1] = (struct sim_insn){ .addr = 0x1040, .len = 4 };
	insns[2] = (struct sim_insn){ .addr = 0x1004, .len = 4 };
	assert_int_equal(sim_seg_build(&m, insns, 3, &s, lines, 64, pages, 64, fns, 1, sa, sl), 0);
	assert_int_equal(s.nlines, 2);
	/* ... but not when B shares A's set (64 sets of 64 B: 4 KiB apart) */
	insns[1].addr = 0x2000;
	assert_int_equal(sim_seg_build(&m, insns, 3, &s, lines, 64, pages, 64, fns, 1, sa, sl), 0);
	assert_int_equal(s.nlines, 3);
	/* a too-small buffer is refused */
	assert_int_equal(sim_seg_build(&m, insns, 3, &s, lines, 2, pages, 64, fns, 1, sa, sl), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_blocks),
		cmocka_unit_test(test_segments_equal_reference),
		cmocka_unit_test(test_segment_drops_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
