/* The whole front-end model of one simulated process: L1i, iTLB, the
 * second-level TLB (looked up on iTLB misses), fetch blocks, totals and
 * per-function counters.  Freestanding C shared by the Valgrind tool and
 * the tests.
 *
 * Two ways to drive it that give identical results (the unit tests check
 * this on random instruction streams):
 *  - sim_model_insn(): one executed instruction at a time (the reference);
 *  - segments: a straight run of instructions (a superblock piece between
 *    side exits) is compiled once by sim_seg_build() and replayed by
 *    sim_seg_run() each time it executes.  Compilation keeps, per cache,
 *    only the lookups that can change state or miss: a lookup of a block
 *    that was looked up earlier in the segment, with no other block of
 *    the same set in between, is certainly a hit on the most recently used
 *    tag and changes nothing, so it is dropped.  What remains is mostly
 *    the segment's distinct lines, and the replay equals cachegrind's
 *    per-instruction simulation exactly. */
#ifndef LACE_SIM_MODEL_H
#define LACE_SIM_MODEL_H

#include <stdint.h>

#include "measure/model/cache.h"
#include "measure/model/fetch.h"

/* Geometry of one run.  Sizes in bytes; a TLB's size is entries * page.
 *
 * Two page sizes: code is mapped with `page` except in the range
 * [large_lo, large_hi), which is mapped with `large_page` (x86-64 Linux
 * maps the kernel image's text with 2 MiB pages; user code, modules and
 * vmalloc with 4 KiB).  Cores keep large pages in a first-level TLB of
 * their own (Skylake: 8 entries for 2M/4M), looked up instead of the
 * iTLB; the second-level TLB holds them too when stlb_large is set
 * (Skylake's STLB is shared by 4 KiB and 2 MiB pages, Nehalem's holds 4
 * KiB pages only).  large_page 0, or an empty range: one page size. */
struct sim_config {
	uint64_t l1i_size;
	uint32_t l1i_ways;
	uint32_t l1i_line;
	uint32_t itlb_entries;
	uint32_t itlb_ways;
	uint32_t stlb_entries;   /* 0 = no second-level TLB */
	uint32_t stlb_ways;
	uint64_t page;           /* 4096 or 2 MiB (2097152) */
	uint32_t fetch_block;    /* 16, 32 or 64 */
	uint64_t large_page;     /* 0: none */
	uint32_t litlb_entries;  /* the large pages' first-level TLB */
	uint32_t litlb_ways;
	uint32_t stlb_large;     /* the STLB holds large pages too */
	uint64_t large_lo, large_hi;   /* mapped with large pages (the host's) */
};

/* The default front end, an Intel Skylake client core, for a host started
 * without a profile (lace always passes one).  The one definition of its
 * numbers in code; profiles/skylake-client.conf, which cites their
 * sources, must say the same (test_sim_backend checks).  The hosts take
 * their defaults as numbers or, the Valgrind tool, as option strings. */
#define SIM_SKYLAKE_L1I_SIZE 32768
#define SIM_SKYLAKE_L1I_WAYS 8
#define SIM_SKYLAKE_L1I_LINE 64
#define SIM_SKYLAKE_ITLB_ENTRIES 128
#define SIM_SKYLAKE_ITLB_WAYS 8
#define SIM_SKYLAKE_STLB_ENTRIES 1536
#define SIM_SKYLAKE_STLB_WAYS 12
#define SIM_SKYLAKE_PAGE 4096
#define SIM_SKYLAKE_FETCH_BLOCK 16
#define SIM_SKYLAKE_LARGE_PAGE 2097152
#define SIM_SKYLAKE_LITLB_ENTRIES 8
#define SIM_SKYLAKE_LITLB_WAYS 8
#define SIM_SKYLAKE_STLB_LARGE 1
#define SIM_CONFIG_SKYLAKE {                                                     \
	.l1i_size = SIM_SKYLAKE_L1I_SIZE, .l1i_ways = SIM_SKYLAKE_L1I_WAYS,      \
	.l1i_line = SIM_SKYLAKE_L1I_LINE, .itlb_entries = SIM_SKYLAKE_ITLB_ENTRIES, \
	.itlb_ways = SIM_SKYLAKE_ITLB_WAYS, .stlb_entries = SIM_SKYLAKE_STLB_ENTRIES, \
	.stlb_ways = SIM_SKYLAKE_STLB_WAYS, .page = SIM_SKYLAKE_PAGE,            \
	.fetch_block = SIM_SKYLAKE_FETCH_BLOCK, .large_page = SIM_SKYLAKE_LARGE_PAGE, \
	.litlb_entries = SIM_SKYLAKE_LITLB_ENTRIES, .litlb_ways = SIM_SKYLAKE_LITLB_WAYS, \
	.stlb_large = SIM_SKYLAKE_STLB_LARGE }
#define SIM_STR_(x) #x
#define SIM_STR(x) SIM_STR_(x)

struct sim_totals {
	uint64_t instructions;
	uint64_t l1i_loads;      /* line lookups: one per line an instruction touches */
	uint64_t l1i_misses;     /* instructions with at least one line missing */
	uint64_t itlb_loads;     /* page lookups */
	uint64_t itlb_misses;    /* instructions with at least one page missing */
	uint64_t stlb_loads;     /* page lookups that missed the iTLB */
	uint64_t stlb_misses;    /* of those, the ones that missed the STLB too */
	uint64_t fetch_blocks;
	uint64_t fetch_late;
};

struct sim_fn_stats {
	uint64_t instructions;
	uint64_t l1i_misses;
	uint64_t itlb_misses;
	uint64_t stlb_misses;
	uint64_t calls;          /* executions of the function's first instruction */
};

/* A large page's block number in the STLB, which holds both sizes: its
 * page number with this bit, so it never equals a small page's. */
#define SIM_LARGE_TAG ((uint64_t)1 << 62)

struct sim_model {
	struct sim_config cfg;
	struct sim_cache l1i, itlb, stlb, litlb;
	int has_stlb;
	int has_large;     /* a large-page range is set: litlb is in use */
	struct sim_fetch fetch;
	struct sim_totals t;
};

/* 0 when cfg is usable, else a negative code; *what names the part
 * ("l1i", "itlb", "stlb", "page", "fetch-block") and *why says what is wrong. */
int sim_config_check(const struct sim_config *cfg, const char **what, const char **why);
/* Tags to provide for each cache (uint64_t slots; the total is returned).
 * litlb may be NULL when the caller knows there are no large pages (it
 * then gets none: cfg must have large_page 0 or an empty range). */
uint64_t sim_model_ntags(const struct sim_config *cfg, uint64_t *l1i, uint64_t *itlb,
			 uint64_t *stlb, uint64_t *litlb);
/* cfg must pass sim_config_check(); the tag arrays come from the caller
 * (litlb_tags may be NULL without large pages). */
void sim_model_init(struct sim_model *m, const struct sim_config *cfg, uint64_t *l1i_tags,
		    uint64_t *itlb_tags, uint64_t *stlb_tags, uint64_t *litlb_tags);
/* The fetch model's counters into m->t (fetch_blocks, fetch_late), which
 * a host that leaves them in m->fetch calls before reading them. */
static inline void sim_model_fetch_sync(struct sim_model *m)
{
	m->t.fetch_blocks = m->fetch.entries + m->fetch.late_entries;
	m->t.fetch_late = m->fetch.late + m->fetch.late_entries;
}
/* Is code at addr mapped with a large page? */
static inline int sim_model_is_large(const struct sim_model *m, uint64_t addr)
{
	return m->has_large && addr >= m->cfg.large_lo && addr < m->cfg.large_hi;
}
/* Zero the counters, keep the cache state (a forked child). */
void sim_model_reset_counts(struct sim_model *m);

/* Reference path: one executed instruction; fn may be NULL; entry is
 * non-zero when addr is the first instruction of its function. */
void sim_model_insn(struct sim_model *m, uint64_t addr, uint32_t len,
		    struct sim_fn_stats *fn, int entry);

/* ---- segments ---------------------------------------------------------- */

/* One instruction handed to the segment compiler.  fn is a slot in the
 * segment's function table (0 .. nfns-1). */
struct sim_insn {
	uint64_t addr;
	uint32_t len;
	uint16_t fn;
	uint8_t entry;   /* first instruction of its function */
};

/* One kept lookup. */
struct sim_ref {
	uint64_t block;
	uint32_t insn;   /* build time: index of the instruction; after
			  * compaction: the block's set (sim_cache_set_of()) */
	uint16_t fn;
	uint8_t first;   /* first kept lookup of its instruction: resets the
			  * at-most-one-miss rule */
	union {
		uint8_t drop;   /* build time */
		uint8_t way;    /* after compaction: where the block was last
				 * found (sim_cache_ref_way()'s hint) */
	};
};

struct sim_seg_fn {
	struct sim_fn_stats *stats;   /* NULL: not attributed */
	uint32_t instructions;
	uint32_t calls;
};

struct sim_seg {
	uint64_t execs;  /* lazy: executions not yet added to the functions */
	uint8_t lazy;    /* per-function instructions and calls are settled by
			  * sim_seg_settle() instead of on every run (the
			  * function counters are scattered in memory; the
			  * segment is already in the host's cache) */
	uint32_t ninsn;
	uint32_t l1i_loads, itlb_loads;   /* itlb_loads: both page sizes */
	uint32_t nlines, npages, nfns;
	uint32_t nlpages;
	struct sim_ref *lines;
	struct sim_ref *pages;   /* small pages; the large ones follow them */
	struct sim_ref *lpages;  /* pages + npages: the large-page lookups */
	struct sim_seg_fn *fns;
	struct sim_fetch_seg fetch;
};

/* Most lookups one instruction can produce for cache c (for sizing). */
uint32_t sim_seg_refs_per_insn(uint32_t line, uint32_t maxlen);

/* Compile n >= 1 instructions into seg, for the geometry of m.  lines and
 * pages are the caller's arrays of line_cap and page_cap refs (they must
 * hold every lookup before dropping); seg->lines/pages point into them,
 * and the large-page lookups (an instruction's page size is its first
 * byte's) follow the small ones in pages: a caller that keeps the refs
 * copies npages + nlpages of them.
 * fns must be filled by the caller (nfns slots, stats set), the builder
 * fills their instruction and call counts.  Scratch arrays addr/len hold n
 * entries.  Returns 0, or -1 when a buffer is too small. */
int sim_seg_build(const struct sim_model *m, const struct sim_insn *insns, uint32_t n,
		  struct sim_seg *seg, struct sim_ref *lines, uint32_t line_cap,
		  struct sim_ref *pages, uint32_t page_cap, struct sim_seg_fn *fns,
		  uint32_t nfns, uint64_t *scratch_addr, uint32_t *scratch_len);

/* The lookups seg keeps (lines, small and large pages), for a caller that
 * keeps a segment built in scratch arrays (sim_seg_keep's refs). */
static inline uint32_t sim_seg_nrefs(const struct sim_seg *seg)
{
	return seg->nlines + seg->npages + seg->nlpages;
}
/* Copy seg into *out with its lookups moved to refs (sim_seg_nrefs(seg)
 * of them): lines first, then the small pages, then the large ones. */
void sim_seg_keep(struct sim_seg *out, const struct sim_seg *seg, struct sim_ref *refs);

/* Replay one execution of seg. */
void sim_seg_run(struct sim_model *m, struct sim_seg *seg);
/* The cache part of sim_seg_run() alone (L1i, iTLB, STLB lookups and
 * their misses, totals and functions): for a caller that does the rest
 * itself -- the counters that do not depend on cache state, the lazy
 * executions and the fetch model (sim_fetch_seg_apply) -- as the Valgrind
 * tool does in generated code.  It changes nothing when every kept lookup
 * hits the most recently used tag of its set, which such a caller may
 * test first and skip the call. */
void sim_seg_run_caches(struct sim_model *m, struct sim_seg *seg);

/* ---- inline versions, for a caller's own hot path --------------------- */

/* A page lookup that missed the iTLB goes to the STLB (when there is one). */
static inline void sim_model_stlb_lookup(struct sim_model *m, uint64_t page,
					 struct sim_fn_stats *fn)
{
	if (!m->has_stlb)
		return;
	m->t.stlb_loads++;
	if (sim_cache_ref_block(&m->stlb, page)) {
		m->t.stlb_misses++;
		if (fn)
			fn->stlb_misses++;
	}
}

static inline struct sim_fn_stats *sim_seg_fn(const struct sim_seg *seg, uint16_t fn)
{
	return fn < seg->nfns ? seg->fns[fn].stats : 0;
}

/* The general lookups of a segment from the index from on (lines, then
 * pages: from >= nlines starts in the pages), with every lookup before it
 * a hit: any hint, misses, the STLB.  sim_seg_refs_run()'s slow path. */
void sim_seg_refs_finish(struct sim_model *m, const struct sim_seg *seg,
			 struct sim_ref *lines, uint32_t nlines,
			 struct sim_ref *pages, uint32_t npages, uint32_t from);

/* sim_seg_run_caches(), inline, with the segment's lookups given apart
 * (seg is read only for its functions, on a miss).  The common case runs
 * here: every kept lookup finds its block in the way its hint names (the
 * rule once the segment ran: blocks stay in their ways), a hit, with the
 * cache's arrays and clock in registers; at the first other one the rest
 * goes to sim_seg_refs_finish(). */
static inline void sim_seg_refs_run(struct sim_model *m, const struct sim_seg *seg,
				    struct sim_ref *lines, uint32_t nlines,
				    struct sim_ref *pages, uint32_t npages)
{
	uint64_t *mru = m->l1i.mru, *tags = m->l1i.tags, *stamps = m->l1i.stamps;
	uint64_t clock = m->l1i.clock;
	uint32_t sbits = m->l1i.stride_bits, i;

	for (i = 0; i < nlines; i++) {
		uint64_t block = lines[i].block;
		uint32_t set = lines[i].insn, slot = (set << sbits) + lines[i].way;

		if (__builtin_expect(tags[slot] != block, 0)) {
			m->l1i.clock = clock;
			sim_seg_refs_finish(m, seg, lines, nlines, pages, npages, i);
			return;
		}
		stamps[slot] = ++clock;
		mru[set] = block;
	}
	m->l1i.clock = clock;

	mru = m->itlb.mru;
	tags = m->itlb.tags;
	stamps = m->itlb.stamps;
	clock = m->itlb.clock;
	sbits = m->itlb.stride_bits;
	for (i = 0; i < npages; i++) {
		uint64_t block = pages[i].block;
		uint32_t set = pages[i].insn, slot = (set << sbits) + pages[i].way;

		/* a page is nearly always the MRU one of its set: that hit
		 * changes nothing (code lines are not, they take turns) */
		if (mru[set] == block)
			continue;
		if (__builtin_expect(tags[slot] != block, 0)) {
			m->itlb.clock = clock;
			sim_seg_refs_finish(m, seg, lines, nlines, pages, npages, nlines + i);
			return;
		}
		stamps[slot] = ++clock;
		mru[set] = block;
	}
	m->itlb.clock = clock;
}

/* The large-page lookups of a segment (after its lines and small pages):
 * first-level misses go to the STLB when it holds large pages. */
void sim_seg_lpages_run(struct sim_model *m, const struct sim_seg *seg,
			struct sim_ref *lpages, uint32_t nlpages);

/* sim_seg_run_caches(), inline.  A large page is nearly always the MRU
 * one of its set (a kernel block's page, 2 MiB of kernel text): that
 * hit changes nothing, so the lookups start at the first that is not. */
static inline void sim_seg_run_caches_inline(struct sim_model *m, struct sim_seg *seg)
{
	sim_seg_refs_run(m, seg, seg->lines, seg->nlines, seg->pages, seg->npages);
	for (uint32_t i = 0; i < seg->nlpages; i++)
		if (__builtin_expect(m->litlb.mru[seg->lpages[i].insn] != seg->lpages[i].block, 0)) {
			sim_seg_lpages_run(m, seg, seg->lpages + i, seg->nlpages - i);
			break;
		}
}
/* Lazy segments: add the pending executions' instructions and calls to the
 * functions, and zero the pending count. */
void sim_seg_settle(struct sim_seg *seg);

/* ---- compact blocks: a segment's per-execution part in 56 bytes ------- */

/* What a host reads on every execution of a compiled segment, packed so
 * that with the host's own word it fills one 64-byte host cache line: the
 * fetch model's entry and exit states and the kept lookups, each with the
 * way its block was last found in, and which of them start their
 * instruction.  A host keeps one per translated block (the TCG plugin) or
 * segment (the Valgrind tool) next to its counters; the segment (sim_seg)
 * it was built from is needed again only for its constants.  A miss
 * touches the block, the set looked up and the host's counter of the
 * block's misses (a struct sim_fn_stats it passes: all of a block's
 * lookups belong to one function, that of seg->lines[0].fn), nothing else:
 * with a code footprint many times the L1i nearly every call misses, and
 * the segment, its lookups and the function's counters were as many host
 * cache misses more.
 *
 * It holds segments of 1..SIM_BLK_LINES kept line lookups and exactly one
 * page lookup, of either page size, all in one function: nearly every
 * block (those a host translates hold at most a few hundred bytes of
 * code).  sim_blk_build() refuses the others, which the host runs as
 * segments.
 *
 * Running one equals sim_seg_run_caches() on its segment, and the fetch
 * model's part equals sim_fetch_seg_apply() but for two constants per
 * execution, which the host adds itself (at once, or lazily from an
 * execution count): the entries and late entries every execution makes
 * whatever came before (sim_fetch_seg.empty_entries, .seq_late).  What is
 * left depends on how the block was entered, and on its first address
 * only: entered by a jump, one entry more (late when that address is in
 * the last quarter of its fetch block); falling through from a non-empty
 * instruction, one more when the address starts a fetch block.
 * (tests/unit/test_sim_fetch.c runs random streams three ways: reference,
 * segments, compact blocks.) */
#define SIM_BLK_LINES 3
#define SIM_BLK_REFS (SIM_BLK_LINES + 1)
#define SIM_BLK_ALIGNED 1u   /* the first address starts a fetch block */
#define SIM_BLK_LATE    2u   /* ... lies in the last quarter of one */
#define SIM_BLK_LARGE   4u   /* the page lookup is a large page's (litlb) */
#define SIM_BLK_FIRST   8u   /* << i: line lookup i starts its instruction */

struct sim_blk {
	uint64_t first_state;    /* the fetch model's state entering it (2 * address) */
	int32_t last_delta;      /* the state after it, minus first_state */
	uint32_t host32;         /* free for the host (an execution count) */
	uint8_t flags;           /* SIM_BLK_* */
	uint8_t nl;              /* line lookups in ref[]; the page lookup follows */
	uint8_t host8[2];        /* free for the host */
	uint8_t way[SIM_BLK_REFS];   /* where each block was last found */
	uint64_t ref[SIM_BLK_REFS];  /* the blocks looked up: lines, then the page */
};

/* Fill b from seg (compiled by sim_seg_build for m); 0, or -1 when seg
 * does not fit (b is then unusable).  b's misses are those of the
 * function seg->lines[0].fn. */
int sim_blk_build(struct sim_blk *b, const struct sim_model *m, const struct sim_seg *seg);

/* The lookups of one execution from index from on (lines, then the page),
 * every one before it a hit: hints, misses (counted in m's totals and in
 * *fn, which may be NULL), the STLB. */
void sim_blk_finish(struct sim_model *m, struct sim_blk *b, struct sim_fn_stats *fn,
		    uint32_t from);

/* The same for a page, nearly always its set's most recently used block
 * (a hit that changes nothing): tried first. */
static inline int sim_blk_ref_page(struct sim_cache *c, uint64_t block, uint8_t way)
{
	uint32_t set = sim_cache_set_of(c, block);
	uint32_t slot = sim_cache_slot(c, set, way);

	if (c->mru[set] == block)
		return 0;
	if (__builtin_expect(c->tags[slot] != block, 0))
		return 1;
	c->stamps[slot] = ++c->clock;
	c->mru[set] = block;
	return 0;
}

/* The lookups of one execution, the general way: each with its hint, the
 * rest from sim_blk_finish() after the first that needs it (a miss, or a
 * block no longer in its hinted way); nl and large as in
 * sim_blk_run_caches_n().  A line is tried in its hinted way first (code
 * lines take turns in their sets; refreshing the most recently used one
 * changes nothing), with the L1i's arrays and clock in registers. */
static inline __attribute__((always_inline)) void
sim_blk_update_n(struct sim_model *m, struct sim_blk *b, struct sim_fn_stats *fn, uint32_t nl,
		 int large)
{
	uint64_t *tags = m->l1i.tags, *stamps = m->l1i.stamps, *mru = m->l1i.mru;
	uint64_t clock = m->l1i.clock, mask = m->l1i.set_mask;
	uint32_t sbits = m->l1i.stride_bits;

	/* unrolled (3: SIM_BLK_LINES; a pragma takes no macro): a host
	 * passing nl as a constant gets straight code, with no loop counter
	 * and one register fewer to save */
#pragma GCC unroll 3
	for (uint32_t i = 0; i < nl; i++) {
		uint64_t block = b->ref[i];
		uint32_t set = (uint32_t)(block & mask), slot = (set << sbits) + b->way[i];

		if (__builtin_expect(tags[slot] == block, 1)) {
			stamps[slot] = ++clock;
			mru[set] = block;
		} else if (mru[set] != block) {
			m->l1i.clock = clock;
			sim_blk_finish(m, b, fn, i);
			return;
		}
	}
	m->l1i.clock = clock;
	if (sim_blk_ref_page(large ? &m->litlb : &m->itlb, b->ref[nl], b->way[nl]))
		sim_blk_finish(m, b, fn, nl);
}

/* The cache part of one execution (sim_seg_run_caches() of its segment;
 * misses also counted in *fn, which may be NULL).  Most executions change
 * nothing: every lookup is its set's most recently used block.  That is
 * tested first (sim_blk_changes: non-zero when sim_blk_update_n has work),
 * with a fixed number of loads and one branch, nl being the block's b->nl
 * and large its SIM_BLK_LARGE flag: a host that knows them at translation
 * passes constants (one function per shape), so that nothing the host CPU
 * must predict depends on the block.  A host whose common path should
 * save no registers calls the update out of line itself. */
static inline __attribute__((always_inline)) int
sim_blk_changes(const struct sim_model *m, const struct sim_blk *b, uint32_t nl, int large)
{
	const struct sim_cache *l = &m->l1i, *p = large ? &m->litlb : &m->itlb;
	uint64_t diff = 0;

	for (uint32_t i = 0; i < nl; i++)
		diff |= l->mru[sim_cache_set_of(l, b->ref[i])] ^ b->ref[i];
	diff |= p->mru[sim_cache_set_of(p, b->ref[nl])] ^ b->ref[nl];
	return __builtin_expect(diff != 0, 0);
}

static inline __attribute__((always_inline)) void
sim_blk_run_caches_n(struct sim_model *m, struct sim_blk *b, struct sim_fn_stats *fn,
		     uint32_t nl, int large)
{
	if (sim_blk_changes(m, b, nl, large))
		sim_blk_update_n(m, b, fn, nl, large);
}

static inline void sim_blk_run_caches(struct sim_model *m, struct sim_blk *b,
				      struct sim_fn_stats *fn)
{
	sim_blk_run_caches_n(m, b, fn, b->nl, b->flags & SIM_BLK_LARGE);
}

/* The fetch model's part of one execution but for the two constants (see
 * above). */
static inline void sim_blk_fetch(struct sim_fetch *f, const struct sim_blk *b)
{
	uint64_t d = f->state ^ b->first_state;
	uint64_t jump = d > 1;

	f->entries += jump | ((d == 0) & (b->flags & SIM_BLK_ALIGNED));
	f->late += jump & (b->flags >> 1);
	f->state = b->first_state + (uint64_t)(int64_t)b->last_delta;
}

/* the kinds by a letter, for hosts that paste them into copies' names */
#define SIM_BLK_KIND_0 0u
#define SIM_BLK_KIND_A SIM_BLK_ALIGNED
#define SIM_BLK_KIND_L SIM_BLK_LATE
#define SIM_BLK_KIND_ANY 0x80u   /* not known: sim_blk_fetch() */

/* A block's fetch kind: SIM_BLK_ALIGNED, SIM_BLK_LATE (they exclude each
 * other) or 0; 0..2, an index for a host's table of copies. */
static inline unsigned sim_blk_kind(const struct sim_blk *b)
{
	return b->flags & (SIM_BLK_ALIGNED | SIM_BLK_LATE);
}

/* sim_blk_fetch() for a host that knows the block's kind at translation
 * and passes it as a constant, one copy per kind: entered by a jump
 * (d > 1), one entry; falling through, one more when aligned (d == 0, a
 * non-empty instruction before it).  A late block's entries are all late:
 * they are counted once, in f->late_entries (sim_model_fetch_sync).  Half
 * the host instructions of the general step. */
static inline __attribute__((always_inline)) void
sim_blk_fetch_kind(struct sim_fetch *f, const struct sim_blk *b, unsigned kind)
{
	uint64_t d;

	if (kind == SIM_BLK_KIND_ANY) {
		sim_blk_fetch(f, b);
		return;
	}
	d = f->state ^ b->first_state;
	if (kind == SIM_BLK_ALIGNED)
		f->entries += d != 1;
	else if (kind == SIM_BLK_LATE)
		f->late_entries += d > 1;
	else
		f->entries += d > 1;
	f->state = b->first_state + (uint64_t)(int64_t)b->last_delta;
}

#endif
