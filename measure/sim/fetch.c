/* Fetch-block model; see fetch.h.  No libc here. */
#include "measure/sim/fetch.h"

static uint32_t log2_u32(uint32_t x)
{
	uint32_t n = 0;

	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

void sim_fetch_init(struct sim_fetch *f, uint32_t block)
{
	f->block_bits = log2_u32(block);
	f->prev_end = ~(uint64_t)0;
	f->cur_block = ~(uint64_t)0;
	f->entries = 0;
	f->late = 0;
}

static int is_late(uint32_t bits, uint64_t addr)
{
	uint64_t block = (uint64_t)1 << bits;

	return (addr & (block - 1)) >= block - block / 4;
}

void sim_fetch_insn(struct sim_fetch *f, uint64_t addr, uint32_t len)
{
	uint64_t first = addr >> f->block_bits;
	uint64_t last = (addr + (len ? len - 1 : 0)) >> f->block_bits;

	if (addr != f->prev_end) {
		f->entries++;
		f->late += is_late(f->block_bits, addr);
	} else if (first != f->cur_block) {
		f->entries++;
	}
	f->entries += last - first;
	f->cur_block = last;
	f->prev_end = addr + len;
}

void sim_fetch_seg_build(struct sim_fetch_seg *s, uint32_t block, const uint64_t *addr,
			 const uint32_t *len, uint32_t n)
{
	struct sim_fetch f;
	uint32_t bits = log2_u32(block);
	uint64_t last0 = (addr[0] + (len[0] ? len[0] - 1 : 0)) >> bits;

	s->first_start = addr[0];
	s->first_block = addr[0] >> bits;
	s->first_extra = (uint32_t)(last0 - s->first_block);
	s->first_late = (uint32_t)is_late(bits, addr[0]);

	/* the state after the first instruction does not depend on how it was
	 * entered, so the rest can be run through the reference model now */
	sim_fetch_init(&f, block);
	f.cur_block = last0;
	f.prev_end = addr[0] + len[0];
	for (uint32_t i = 1; i < n; i++)
		sim_fetch_insn(&f, addr[i], len[i]);
	s->inner_entries = (uint32_t)f.entries;
	s->inner_late = (uint32_t)f.late;
	s->last_block = f.cur_block;
	s->last_end = f.prev_end;
}
