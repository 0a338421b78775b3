/* Fetch-block model: how often the front end starts on a new aligned
 * fetch block (16, 32 or 64 bytes) and how many of those starts land in
 * the last quarter of the block, where a fetch delivers few bytes.
 * Freestanding C, shared by the Valgrind tool and the tests.
 *
 * Definitions (the same in doc/events.md):
 *  - a block entry happens when an instruction starts somewhere other than
 *    where the previous one ended (a taken branch, call, return: even into
 *    the same block), and each time sequential execution crosses into the
 *    next block (an instruction spanning two blocks enters the second);
 *  - a late entry is a non-sequential entry whose target lies in the last
 *    quarter of its block (offset >= 3/4 of the block size); sequential
 *    entries start at offset 0 and are never late. */
#ifndef LACE_SIM_FETCH_H
#define LACE_SIM_FETCH_H

#include <stdint.h>

struct sim_fetch {
	uint32_t block_bits;
	uint64_t prev_end;   /* address after the last instruction; ~0 = none yet */
	uint64_t cur_block;  /* block of the last byte of the last instruction */
	uint64_t entries;    /* fetch-blocks */
	uint64_t late;       /* fetch-late-entries */
};

/* block must be a power of two (16, 32, 64 ...). */
void sim_fetch_init(struct sim_fetch *f, uint32_t block);
/* Reference path: one executed instruction. */
void sim_fetch_insn(struct sim_fetch *f, uint64_t addr, uint32_t len);

/* What a straight run of instructions does to the model, precomputed once
 * (at translation time) so that replaying it costs a few operations. */
struct sim_fetch_seg {
	uint64_t first_start;    /* address of the first instruction */
	uint64_t first_block;
	uint32_t first_extra;    /* further blocks the first instruction spans */
	uint32_t first_late;     /* 1 when a jump to first_start would be late */
	uint32_t inner_entries;  /* entries made by instructions 2..n */
	uint32_t inner_late;
	uint64_t last_block;     /* state after the run */
	uint64_t last_end;
};

/* Summarise n >= 1 instructions (addr[i], len[i] accessed through the
 * callback-free arrays given). */
void sim_fetch_seg_build(struct sim_fetch_seg *s, uint32_t block, const uint64_t *addr,
			 const uint32_t *len, uint32_t n);

static inline void sim_fetch_seg_apply(struct sim_fetch *f, const struct sim_fetch_seg *s)
{
	/* a jump to the first instruction enters its block (late or not);
	 * falling through enters it only when it is a new block.  Without
	 * branches: which case it is depends on the data, and a mispredict
	 * costs more than the arithmetic (the hot path of both simulators). */
	uint64_t jump = s->first_start != f->prev_end;

	f->entries += (jump | (s->first_block != f->cur_block)) + s->first_extra + s->inner_entries;
	f->late += (jump & s->first_late) + s->inner_late;
	f->cur_block = s->last_block;
	f->prev_end = s->last_end;
}

#endif
