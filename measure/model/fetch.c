/* Fetch-block model; see fetch.h.  No libc here. */
#include "measure/model/fetch.h"

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
	f->state = ~(uint64_t)0;
	f->entries = 0;
	f->late = 0;
	f->late_entries = 0;
}

static int is_late(uint32_t bits, uint64_t addr)
{
	uint64_t block = (uint64_t)1 << bits;

	return (addr & (block - 1)) >= block - block / 4;
}

static uint64_t end_state(uint64_t addr, uint32_t len)
{
	return ((addr + len) << 1) | (len == 0);
}

void sim_fetch_insn(struct sim_fetch *f, uint64_t addr, uint32_t len)
{
	uint64_t first = addr >> f->block_bits;
	uint64_t last = (addr + (len ? len - 1 : 0)) >> f->block_bits;
	uint64_t d = f->state ^ (addr << 1);

	if (d > 1) {
		/* not where the last instruction ended: a jump */
		f->entries++;
		f->late += is_late(f->block_bits, addr);
	} else {
		/* the current block: the one of the last instruction's last
		 * byte, before addr, or addr's own after an empty one */
		uint64_t cur = d ? first : (addr - 1) >> f->block_bits;
		f->entries += first != cur;
	}
	f->entries += last - first;
	f->state = end_state(addr, len);
}

void sim_fetch_seg_build(struct sim_fetch_seg *s, uint32_t block, const uint64_t *addr,
			 const uint32_t *len, uint32_t n)
{
	struct sim_fetch f;
	uint32_t bits = log2_u32(block);
	uint64_t first0 = addr[0] >> bits;
	uint32_t extra = (uint32_t)(((addr[0] + (len[0] ? len[0] - 1 : 0)) >> bits) - first0);
	uint32_t aligned = ((addr[0] - 1) >> bits) != first0;

	/* the state after the first instruction does not depend on how it was
	 * entered, so the rest can be run through the reference model now */
	sim_fetch_init(&f, block);
	f.state = end_state(addr[0], len[0]);
	for (uint32_t i = 1; i < n; i++)
		sim_fetch_insn(&f, addr[i], len[i]);
	s->first_state = addr[0] << 1;
	s->last_state = f.state;
	s->jump_entries = 1 + extra + (uint32_t)f.entries;
	s->seq_entries = aligned + extra + (uint32_t)f.entries;
	s->empty_entries = extra + (uint32_t)f.entries;
	s->jump_late = (uint32_t)is_late(bits, addr[0]) + (uint32_t)f.late;
	s->seq_late = (uint32_t)f.late;
}
