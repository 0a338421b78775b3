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
	uint64_t state;      /* where the last instruction ended, as 2 * end,
			      * + 1 when it was empty (len 0: then the block
			      * of its end is the current one, else the block
			      * before it); ~0 = none yet.  (The doubling drops
			      * bit 63, which canonical addresses repeat.) */
	uint64_t entries;    /* fetch-blocks */
	uint64_t late;       /* fetch-late-entries */
	uint64_t late_entries;   /* entries that are late, counted once for
				  * both of the above (sim_blk_fetch_kind;
				  * sim_model_fetch_sync adds them) */
};

/* block must be a power of two (16, 32, 64 ...). */
void sim_fetch_init(struct sim_fetch *f, uint32_t block);
/* Reference path: one executed instruction. */
void sim_fetch_insn(struct sim_fetch *f, uint64_t addr, uint32_t len);

/* What a straight run of instructions does to the model, precomputed once
 * (at translation time) so that replaying it costs a few operations: with
 * d = state ^ first_state, the run is entered by a jump when d > 1, by
 * falling through from a non-empty instruction when d == 0, from an empty
 * one when d == 1. */
struct sim_fetch_seg {
	uint64_t first_state;     /* 2 * the first instruction's address */
	uint64_t last_state;      /* the state after the run */
	uint32_t jump_entries;    /* entries when entered by a jump */
	uint32_t seq_entries;     /* ... falling through from a non-empty one */
	uint32_t empty_entries;   /* ... falling through from an empty one */
	uint32_t jump_late;       /* late entries when entered by a jump */
	uint32_t seq_late;        /* ... otherwise (those of instructions 2..n) */
};

/* Summarise n >= 1 instructions (addr[i], len[i] accessed through the
 * callback-free arrays given). */
void sim_fetch_seg_build(struct sim_fetch_seg *s, uint32_t block, const uint64_t *addr,
			 const uint32_t *len, uint32_t n);

static inline void sim_fetch_seg_apply(struct sim_fetch *f, const struct sim_fetch_seg *s)
{
	uint64_t d = f->state ^ s->first_state;

	if (d > 1) {
		f->entries += s->jump_entries;
		f->late += s->jump_late;
	} else {
		f->entries += d ? s->empty_entries : s->seq_entries;
		f->late += s->seq_late;
	}
	f->state = s->last_state;
}

#endif
