/* The replay engine; see replay.h and doc/record-format.md. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/model/record.h"
#include "measure/qemu/tcg_core.h"
#include "measure/replay/replay.h"
#include "measure/replay/replay_carry.h"
#include "util/error.h"
#include "util/xalloc.h"

#define MAX_FORK_DEPTH 64

/* one defined block, compiled for this layout */
struct rp_block {
	struct sim_seg seg;
	uint64_t execs;                    /* counted runs, settled per stream */
	uint64_t pend_hi;                  /* 2^32 times the wraps of its hot
					    * part's execution count */
	uint32_t exact, approx, outside;   /* its instructions by class */
	uint32_t afirst, an;               /* its approximate functions in c->afn */
	uint32_t hfirst, hn;               /* with heat: its pieces in c->hot */
	bool kernel;
};

/* What one execution of a block reads, in one host cache line: the
 * model's compact block (sim_blk_build), its key and the executions not
 * yet settled.  What every execution adds whatever came before (the
 * instructions, the lookups, the fetch model's constant part, the
 * exact/approximate classes) is not added per execution: hot_settle()
 * adds the block's constants times its executions, to the totals and to
 * its side, before anyone reads them.  The blocks' cold parts (struct
 * rp_block: a segment and its lookups, scattered over the arena) were
 * three or four host cache misses per execution through 200 layouts. */
struct rp_hot {
	struct sim_blk b;   /* b.host32: executions since the last settle (its
			     * wraps in the cold part's pend_hi); b.host8[0]:
			     * the key */
	uint64_t spare;
};
_Static_assert(sizeof(struct rp_hot) == 64, "one host cache line");

#define RP_KERNEL  1u   /* a kernel block of a TCG plugin's recording */
#define RP_GENERAL 2u   /* no compact block: runs its segment (block_run) */

struct rp_afn {
	uint32_t fn;       /* index in lay->old */
	uint32_t n;        /* instructions of the block in it */
	uint32_t entries;  /* with heat: 1 when one is the function's first */
};

struct rp_chunk {
	struct rp_chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* A block's instructions while it is decoded and compiled: per run, so
 * that runs go side by side (replay_run_many) */
struct rp_scratch {
	struct sim_insn insns[REC_MAX_INSNS], hinsns[REC_MAX_INSNS];
	struct sim_ref tmp[REC_MAX_INSNS * 4];
	struct sim_ref lines[REC_MAX_INSNS * 4], pages[REC_MAX_INSNS * 4];
	uint64_t sa[REC_MAX_INSNS];
	uint32_t sl[REC_MAX_INSNS];
	uint64_t addr[REC_MAX_INSNS], phys[REC_MAX_INSNS];
	uint32_t len[REC_MAX_INSNS];
};

struct rp_ctx {
	const struct lace_record *rec;
	const struct replay_layout *lay;
	struct rp_scratch *sc;
	struct rp_carry carry;   /* lay's tables, and where the object is mapped */
	uint64_t *afn_count;   /* per old function: approximate instructions run */
	uint64_t *hot_count;   /* with heat: per old function, instructions run */
	uint64_t *hot_entries; /* with heat: per old function, runs of its first */
	struct replay_result *out;

	struct sim_model m;
	uint64_t *tags;
	struct rp_block *blocks;
	struct rp_hot *hotb;   /* per block its hot part, 64-byte aligned */
	size_t nblocks, cap;
	uint32_t *dirty;       /* blocks executed since the last hot_settle() */
	size_t ndirty, dirty_cap;
	/* the key of a block that runs its compact block at once: the
	 * current side (always 0 but with the plugin's recordings) */
	uint8_t fast_key;
	struct rp_afn *afn;
	size_t nafn, afn_cap;
	struct rp_afn *hot;
	size_t nhot, hot_cap;
	struct rp_chunk *chunks;

	bool win_open;
	unsigned windows;
	struct sim_totals win_start, win_sum;
	uint64_t pid;

	/* the TCG plugin's ways (host "qemu"): the model runs inside windows
	 * only, counts split by the side a block is on, a context switch
	 * flushes the user pages */
	bool qemu;
	int cur_kernel;
	struct sim_totals last;
	struct tcg_split split;
	uint64_t user_limit;
	/* REC_TAKE_BACK: instructions counted, not run, since the counts
	 * were last reset (off the totals at the image's end) */
	uint64_t taken_back;
};

static void *arena_alloc(struct rp_ctx *c, size_t n)
{
	struct rp_chunk *k = c->chunks;

	n = (n + 15) & ~(size_t)15;
	if (!k || k->cap - k->used < n) {
		size_t cap = n > (1u << 20) ? n : (1u << 20);
		k = xmalloc(sizeof(*k) + cap);
		k->next = c->chunks;
		k->used = 0;
		k->cap = cap;
		c->chunks = k;
	}
	k->used += n;
	return k->data + k->used - n;
}

static void arena_free(struct rp_ctx *c)
{
	while (c->chunks) {
		struct rp_chunk *k = c->chunks;
		c->chunks = k->next;
		free(k);
	}
}

/* ---- carrying addresses over (replay_carry.c) ----------------------------- */

static void layout_prepare(struct rp_ctx *c)
{
	const struct replay_layout *l = c->lay;

	carry_prepare(&c->carry, l);
	c->afn_count = xcalloc(l->nold, sizeof(*c->afn_count));
	c->hot_count = l->heat ? xcalloc(l->nold, sizeof(*c->hot_count)) : NULL;
	c->hot_entries = l->heat ? xcalloc(l->nold, sizeof(*c->hot_entries)) : NULL;
}

/* ---- the stream ------------------------------------------------------------ */

static int bad(const struct rp_ctx *c, const struct lace_record_stream *s, const char *what)
{
	return lace_error_set(EINVAL, "stream of pid %llu: %s", (unsigned long long)s->pid, what);
}

static void blocks_grow(struct rp_ctx *c)
{
	size_t cap = c->cap ? 2 * c->cap : 4096;
	struct rp_hot *hot;

	c->blocks = xrealloc(c->blocks, cap * sizeof(*c->blocks));
	if (posix_memalign((void **)&hot, 64, cap * sizeof(*hot)))
		xdie_oom();
	if (c->nblocks)
		memcpy(hot, c->hotb, c->nblocks * sizeof(*hot));
	free(c->hotb);
	c->hotb = hot;
	c->cap = cap;
}

/* Block id's hot part, from its segment (compiled for c->m). */
static void hot_build(struct rp_ctx *c, size_t id)
{
	struct rp_hot *h = &c->hotb[id];
	uint8_t key = c->qemu && c->blocks[id].kernel ? RP_KERNEL : 0;

	memset(h, 0, sizeof(*h));
	if (sim_blk_build(&h->b, &c->m, &c->blocks[id].seg))
		key |= RP_GENERAL;
	h->b.host32 = 0;
	h->b.host8[0] = key;
}

static int block_define(struct rp_ctx *c, const struct rec_event *ev, uint64_t *addr,
			uint32_t *len, uint64_t *phys)
{
	struct sim_insn *insns = c->sc->insns, *hinsns = c->sc->hinsns;
	struct sim_ref *tmp = c->sc->tmp, *lines = c->sc->lines, *pages = c->sc->pages;
	uint64_t *sa = c->sc->sa;
	uint32_t *sl = c->sc->sl;
	struct rp_block *b;

	if (c->nblocks == c->cap)
		blocks_grow(c);
	b = &c->blocks[c->nblocks++];
	memset(b, 0, sizeof(*b));
	b->afirst = (uint32_t)c->nafn;
	b->hfirst = (uint32_t)c->nhot;
	b->kernel = ev->flags & REC_DEF_KERNEL;
	for (uint32_t i = 0; i < ev->ninsn; i++) {
		uint64_t a = addr[i];
		if (c->lay) {
			int cls;
			long fn = -1;
			bool first = false;
			a = carry_addr(&c->carry, a, &cls, &fn, &first);
			if (c->hot_count && fn >= 0) {
				if (b->hn && c->hot[c->nhot - 1].fn == (uint32_t)fn) {
					c->hot[c->nhot - 1].n++;
					c->hot[c->nhot - 1].entries += first;
				} else {
					if (c->nhot == c->hot_cap) {
						c->hot_cap = c->hot_cap ? 2 * c->hot_cap : 256;
						c->hot = xrealloc(c->hot, c->hot_cap * sizeof(*c->hot));
					}
					c->hot[c->nhot++] = (struct rp_afn){ (uint32_t)fn, 1, first };
					b->hn++;
				}
			}
			if (cls == CL_EXACT) {
				b->exact++;
			} else if (cls == CL_OUTSIDE) {
				b->outside++;
			} else {
				b->approx++;
				if (b->an && c->afn[c->nafn - 1].fn == (uint32_t)fn) {
					c->afn[c->nafn - 1].n++;
				} else {
					if (c->nafn == c->afn_cap) {
						c->afn_cap = c->afn_cap ? 2 * c->afn_cap : 256;
						c->afn = xrealloc(c->afn, c->afn_cap * sizeof(*c->afn));
					}
					c->afn[c->nafn++] = (struct rp_afn){ (uint32_t)fn, 1, 0 };
					b->an++;
				}
			}
		}
		insns[i] = (struct sim_insn){ .addr = a, .len = len[i] };
		/* the physical address moves with the virtual one: the code's
		 * own virtual-to-physical offset */
		if (ev->flags & REC_DEF_PHYS)
			hinsns[i] = (struct sim_insn){ .addr = phys[i] - addr[i] + a, .len = len[i] };
	}
	if (ev->flags & REC_DEF_PHYS) {
		/* as the TCG plugin: lines from the physical addresses, pages
		 * and fetch blocks from the virtual ones */
		struct sim_seg segh;
		if (sim_seg_build(&c->m, hinsns, ev->ninsn, &segh, lines, REC_MAX_INSNS * 4, tmp,
				  REC_MAX_INSNS * 4, NULL, 0, sa, sl) ||
		    sim_seg_build(&c->m, insns, ev->ninsn, &b->seg, tmp, REC_MAX_INSNS * 4, pages,
				  REC_MAX_INSNS * 4, NULL, 0, sa, sl))
			return -1;
		b->seg.lines = segh.lines;
		b->seg.nlines = segh.nlines;
		b->seg.l1i_loads = segh.l1i_loads;
	} else if (sim_seg_build(&c->m, insns, ev->ninsn, &b->seg, lines, REC_MAX_INSNS * 4, pages,
				 REC_MAX_INSNS * 4, NULL, 0, sa, sl)) {
		return -1;
	}
	/* keep the compacted lookups */
	struct sim_seg built = b->seg;
	sim_seg_keep(&b->seg, &built, arena_alloc(c, sim_seg_nrefs(&built) * sizeof(struct sim_ref)));
	hot_build(c, c->nblocks - 1);
	return 0;
}

static void span_add(struct sim_totals *sum, const struct sim_totals *now,
		     const struct sim_totals *start)
{
	uint64_t *s = (uint64_t *)sum;
	const uint64_t *n = (const uint64_t *)now, *b = (const uint64_t *)start;

	for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
		s[i] += n[i] - b[i];
}

/* The side the model's counts since c->last belong to. */
static void side_set(struct rp_ctx *c, int kernel)
{
	c->cur_kernel = kernel;
	c->fast_key = (uint8_t)(kernel ? RP_KERNEL : 0);
}

/* The fetch model's counters into the totals, before anyone reads them
 * (the compact blocks' executions leave them in c->m.fetch). */
static void totals_sync(struct rp_ctx *c)
{
	sim_model_fetch_sync(&c->m);
}

/* What the compact blocks' executions since the last call add by a
 * constant (struct rp_hot): to the totals, to the block's side of the
 * split and to c->last (so that tcg_split_account's next difference
 * holds the rest only), and, counting, to the block's executions (the
 * exact/approximate classes).  Before the totals are read or reset. */
static void hot_settle(struct rp_ctx *c, bool counting)
{
	for (size_t k = 0; k < c->ndirty; k++) {
		struct rp_hot *h = &c->hotb[c->dirty[k]];
		struct rp_block *b = &c->blocks[c->dirty[k]];
		uint64_t n = b->pend_hi + h->b.host32;
		struct sim_totals add = { 0 };

		if (!n)   /* listed twice: after a wrap of host32 */
			continue;
		h->b.host32 = 0;
		b->pend_hi = 0;
		if (counting)
			b->execs += n;
		add.instructions = n * b->seg.ninsn;
		add.l1i_loads = n * b->seg.l1i_loads;
		add.itlb_loads = n * b->seg.itlb_loads;
		add.fetch_blocks = n * b->seg.fetch.empty_entries;
		add.fetch_late = n * b->seg.fetch.seq_late;
		c->m.t.instructions += add.instructions;
		c->m.t.l1i_loads += add.l1i_loads;
		c->m.t.itlb_loads += add.itlb_loads;
		c->m.fetch.entries += add.fetch_blocks;
		c->m.fetch.late += add.fetch_late;
		span_add(h->b.host8[0] & RP_KERNEL ? &c->split.k : &c->split.u, &add,
			 &(struct sim_totals){ 0 });
		span_add(&c->last, &add, &(struct sim_totals){ 0 });
	}
	c->ndirty = 0;
	totals_sync(c);
}

/* The first execution of block id since the last settle (it goes on the
 * list), or its 2^32nd (host32 wrapped). */
static __attribute__((noinline)) void hot_first(struct rp_ctx *c, uint64_t id)
{
	if (!c->hotb[id].b.host32) {
		c->blocks[id].pend_hi += (uint64_t)1 << 32;
		return;
	}
	if (c->ndirty == c->dirty_cap) {
		c->dirty_cap = c->dirty_cap ? 2 * c->dirty_cap : 4096;
		c->dirty = xrealloc(c->dirty, c->dirty_cap * sizeof(*c->dirty));
	}
	c->dirty[c->ndirty++] = (uint32_t)id;
}

/* The lookups of an execution that changes some set's state, out of
 * line: the common path (each lookup its set's most recently used block)
 * then saves no registers. */
static __attribute__((noinline)) void hot_update(struct rp_ctx *c, struct rp_hot *h)
{
	sim_blk_update_n(&c->m, &h->b, NULL, h->b.nl, h->b.flags & SIM_BLK_LARGE);
}

/* One execution of a compact block but for its constants. */
static inline void hot_run(struct rp_ctx *c, uint64_t id)
{
	struct rp_hot *h = &c->hotb[id];

	if (__builtin_expect((uint32_t)(h->b.host32++ + 1u) <= 1u, 0))
		hot_first(c, id);
	sim_blk_fetch(&c->m.fetch, &h->b);
	if (sim_blk_changes(&c->m, &h->b, h->b.nl, h->b.flags & SIM_BLK_LARGE))
		hot_update(c, h);
}

static void block_run(struct rp_ctx *c, struct rp_block *b, bool counting)
{
	/* sim_seg_run() of a segment without functions, inline */
	c->m.t.instructions += b->seg.ninsn;
	c->m.t.l1i_loads += b->seg.l1i_loads;
	c->m.t.itlb_loads += b->seg.itlb_loads;
	sim_seg_run_caches_inline(&c->m, &b->seg);
	sim_fetch_seg_apply(&c->m.fetch, &b->seg.fetch);
	b->execs += counting;
}

/* An execution whose key is not the fast one: a change of side (the
 * split is taken then, not after every block), or a block without a
 * compact one. */
static __attribute__((noinline)) void block_slow(struct rp_ctx *c, uint64_t id, bool counting)
{
	uint8_t key = c->hotb[id].b.host8[0];

	if ((key & RP_KERNEL) != c->fast_key) {
		totals_sync(c);
		tcg_split_account(&c->split, c->cur_kernel, &c->m.t, &c->last);
		side_set(c, key & RP_KERNEL);
	}
	if (key & RP_GENERAL)
		block_run(c, &c->blocks[id], counting);
	else
		hot_run(c, id);
}

/* One execution of block id (defined). */
static inline void block_exec(struct rp_ctx *c, uint64_t id, bool counting)
{
	if (__builtin_expect(c->hotb[id].b.host8[0] != c->fast_key, 0))
		block_slow(c, id, counting);
	else
		hot_run(c, id);
}

/* How the counted runs' instructions were carried over, from each
 * block's runs (settled once, not on every run). */
static void blocks_settle(struct rp_ctx *c)
{
	for (size_t i = 0; i < c->nblocks && c->lay; i++) {
		struct rp_block *b = &c->blocks[i];

		c->out->exact += b->execs * b->exact;
		c->out->approx += b->execs * b->approx;
		c->out->outside += b->execs * b->outside;
		for (uint32_t k = 0; k < b->an; k++)
			c->afn_count[c->afn[b->afirst + k].fn] += b->execs * c->afn[b->afirst + k].n;
		for (uint32_t k = 0; k < b->hn; k++) {
			const struct rp_afn *h = &c->hot[b->hfirst + k];

			c->hot_count[h->fn] += b->execs * h->n;
			c->hot_entries[h->fn] += b->execs * h->entries;
		}
		b->execs = 0;
	}
}

static void window_reset(struct rp_ctx *c)
{
	c->win_open = false;
	c->windows = 0;
	memset(&c->win_sum, 0, sizeof(c->win_sum));
}

/* The image's counts end (lace-vg writes its result file here). */
static void proc_end(struct rp_ctx *c)
{
	struct replay_result *o = c->out;
	struct replay_proc *p;

	o->procs = xrealloc(o->procs, (o->nprocs + 1) * sizeof(*o->procs));
	p = &o->procs[o->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = c->pid;
	p->t = c->m.t;
	p->t.instructions -= c->taken_back;
	p->windows = c->windows;
	p->window = c->win_sum;
	if (c->win_open)
		span_add(&p->window, &c->m.t, &c->win_start);
}

static int feed(struct rp_ctx *c, const struct lace_record_stream *s, uint64_t upto, int depth,
		bool counting);

static int fork_from(struct rp_ctx *c, const struct lace_record_stream *s,
		     const struct rec_event *ev, int depth)
{
	const struct lace_record_stream *parent = record_stream_find(c->rec, ev->a, ev->b);

	if (!parent || depth >= MAX_FORK_DEPTH || ev->c > parent->len || c->nblocks)
		return bad(c, s, "a fork from a stream that is not in the recording");
	if (feed(c, parent, ev->c, depth + 1, false))
		return -1;
	hot_settle(c, false);
	/* the child starts counting from zero with the parent's warm caches,
	 * inside a window when the parent was in one */
	bool open = c->win_open;
	sim_model_reset_counts(&c->m);
	c->taken_back = 0;
	window_reset(c);
	if (open) {
		c->windows = 1;
		c->win_open = true;
		c->win_start = c->m.t;
	}
	return 0;
}

/* The MAP record names the object (the same file, however spelled). */
static bool map_is_object(const char *object, const struct rec_event *ev)
{
	char *path = strndup(ev->str, ev->strlen), *abs;
	bool same;

	if (!path)
		return false;
	abs = realpath(path, NULL);
	same = !strcmp(abs ? abs : path, object);
	free(abs);
	free(path);
	return same;
}

/* The length of the REC_EXEC record at p whose id is within 2^20 of the
 * last (3 bytes of varint at most), its difference in *delta; 0 for
 * anything else, or a record that does not end before end (rec_next()
 * reads those).  Only records starting before stop. */
static inline unsigned exec_peek(const uint8_t *p, const uint8_t *stop, const uint8_t *end,
				 int64_t *delta)
{
	uint64_t v;
	unsigned n = 2;

	if (p >= stop || end - p < 2 || p[0] != REC_EXEC)
		return 0;
	v = p[1] & 0x7f;
	if (p[1] & 0x80) {
		if (end - p < 3)
			return 0;
		v |= (uint64_t)(p[2] & 0x7f) << 7;
		n = 3;
		if (p[2] & 0x80) {
			if (end - p < 4 || (p[3] & 0x80))
				return 0;
			v |= (uint64_t)p[3] << 14;
			n = 4;
		}
	}
	*delta = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
	return n;
}

static int feed(struct rp_ctx *c, const struct lace_record_stream *s, uint64_t upto, int depth,
		bool counting)
{
	/* the decoder's arrays: a fork's replay of the parent reuses them,
	 * and the next record is decoded into them again */
	uint64_t *addr = c->sc->addr, *phys = c->sc->phys;
	uint32_t *len = c->sc->len;
	struct rec_reader rd;
	struct rec_event ev;
	const uint8_t *stop;   /* where the records to read end (upto) */
	int64_t delta;
	unsigned k;
	int rc = 0;

	rec_reader_init(&rd, s->data, s->len, addr, len, phys);
	rd.ndefs = c->nblocks;
	stop = upto < s->len ? rd.start + upto : rd.end;
	for (;;) {
		/* the common record, a run of a block a few thousand numbers
		 * or less from the last one, read here */
		if ((k = exec_peek(rd.p, stop, rd.end, &delta))) {
			rd.exec_id += (uint64_t)delta;
			rd.p += k;
			if (rd.exec_id >= c->nblocks)
				return bad(c, s, "a block run before it was defined");
			block_exec(c, rd.exec_id, counting);
			continue;
		}
		if (rec_reader_offset(&rd) >= upto || (rc = rec_next(&rd, &ev)) <= 0)
			break;
		switch (ev.tag) {
		case REC_DEF:
			if (ev.id != c->nblocks)
				return bad(c, s, "blocks out of order");
			if (block_define(c, &ev, addr, len, phys))
				return bad(c, s, "a block the model cannot hold");
			break;
		case REC_EXEC:
		case REC_EXEC_PHYS:
			if (ev.id >= c->nblocks)
				return bad(c, s, "a block run before it was defined");
			block_exec(c, ev.id, counting);
			break;
		case REC_IMAGE:
			if (counting)
				c->pid = ev.a;
			break;
		case REC_FORK:
			if (fork_from(c, s, &ev, depth))
				return -1;
			rd.ndefs = c->nblocks;   /* the child numbers on from the parent */
			break;
		case REC_MAP:
			if (c->lay && c->lay->object && !c->carry.have_map &&
			    map_is_object(c->lay->object, &ev)) {
				c->carry.have_map = true;
				c->carry.bias = ev.a;
				c->carry.map_start = ev.b;
				c->carry.map_size = ev.c;
			}
			break;
		case REC_WIN_OPEN:
			if (!c->win_open) {
				hot_settle(c, counting);
				c->windows++;
				c->win_open = true;
				c->win_start = c->m.t;
				memset(&c->split, 0, sizeof(c->split));
				c->last = c->m.t;
				side_set(c, 0);   /* the marker runs in user space */
			}
			break;
		case REC_WIN_CLOSE:
			if (c->win_open) {
				hot_settle(c, counting);
				span_add(&c->win_sum, &c->m.t, &c->win_start);
				c->win_open = false;
				tcg_split_account(&c->split, c->cur_kernel, &c->m.t, &c->last);
				if (counting) {
					span_add(&c->out->user, &c->split.u, &(struct sim_totals){ 0 });
					span_add(&c->out->kernel, &c->split.k, &(struct sim_totals){ 0 });
				}
			}
			break;
		case REC_END:
			hot_settle(c, counting);
			if (counting)
				proc_end(c);
			sim_model_reset_counts(&c->m);
			c->taken_back = 0;
			window_reset(c);
			break;
		case REC_TAKE_BACK:
			/* as the plugin: off the open window's count of that
			 * side (the split), and so off its totals too */
			if (c->win_open) {
				uint64_t *n = ev.flags == REC_SIDE_KERNEL ? &c->split.k.instructions
									  : &c->split.u.instructions;
				*n -= ev.a;
				c->win_sum.instructions -= ev.a;
				c->taken_back += ev.a;
			}
			break;
		case REC_CTXSW:
			/* a new address space may follow: the user pages go */
			sim_cache_flush_below(&c->m.itlb, c->user_limit);
			if (c->m.has_stlb)
				sim_cache_flush_below(&c->m.stlb, c->user_limit);
			break;
		}
	}
	if (rec_reader_offset(&rd) < upto && rc < 0)
		return bad(c, s, "malformed or truncated record");
	return 0;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct replay_fn *x = a, *y = b;

	return x->instructions < y->instructions ? 1 : x->instructions > y->instructions ? -1 : 0;
}

int replay_run(const struct lace_record *rec, const struct replay_layout *lay,
	       struct replay_result *out)
{
	struct rp_ctx c = { .rec = rec, .lay = lay, .out = out, .qemu = !strcmp(rec->host, "qemu") };
	struct sim_config cfg = rec->cfg;
	uint64_t nl, ni, ns, nlt;
	const char *what, *why;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (lay && lay->large_set && cfg.large_page) {
		cfg.large_lo = lay->large_lo;
		cfg.large_hi = lay->large_hi;
	}
	if (sim_config_check(&cfg, &what, &why))
		return lace_error_set(EINVAL, "%s: %s", what, why);
	sim_model_ntags(&cfg, &nl, &ni, &ns, &nlt);
	c.tags = xcalloc(nl + ni + ns + nlt, sizeof(uint64_t));
	c.sc = xmalloc(sizeof(*c.sc));
	c.user_limit = tcg_user_page_limit(rec->cfg.page);
	if (lay)
		layout_prepare(&c);
	for (size_t i = 0; i < rec->nstreams && !err; i++) {
		/* each stream a process of its own: cold caches, unless it
		 * forked (then feed() replays its parent's part first) */
		sim_model_init(&c.m, &cfg, c.tags, c.tags + nl, ns ? c.tags + nl + ni : NULL,
			       nlt ? c.tags + nl + ni + ns : NULL);
		c.nblocks = 0;
		c.nafn = 0;
		c.nhot = 0;
		c.taken_back = 0;
		c.carry.have_map = false;
		c.pid = rec->streams[i].pid;
		window_reset(&c);
		arena_free(&c);
		if (feed(&c, &rec->streams[i], rec->streams[i].len, 0, true))
			err = -EINVAL;
		hot_settle(&c, true);
		blocks_settle(&c);
	}
	for (size_t i = 0; i < out->nprocs; i++) {
		span_add(&out->total, &out->procs[i].t, &(struct sim_totals){ 0 });
		if (out->procs[i].windows) {
			span_add(&out->window, &out->procs[i].window, &(struct sim_totals){ 0 });
			out->window_procs++;
		}
	}
	if (lay) {
		for (size_t i = 0; i < lay->nold; i++)
			if (c.afn_count[i]) {
				out->approx_fns = xrealloc(out->approx_fns, (out->napprox_fns + 1) *
							   sizeof(*out->approx_fns));
				out->approx_fns[out->napprox_fns++] =
					(struct replay_fn){ lay->old[i].name, c.afn_count[i], 0 };
			}
		if (out->napprox_fns)   /* qsort wants a non-NULL base even for 0 */
			qsort(out->approx_fns, out->napprox_fns, sizeof(*out->approx_fns), fn_cmp);
		for (size_t i = 0; c.hot_count && i < lay->nold; i++)
			if (c.hot_count[i]) {
				out->hot_fns = xrealloc(out->hot_fns, (out->nhot_fns + 1) *
							sizeof(*out->hot_fns));
				out->hot_fns[out->nhot_fns++] =
					(struct replay_fn){ lay->old[i].name, c.hot_count[i],
							    c.hot_entries[i] };
			}
		if (out->nhot_fns)
			qsort(out->hot_fns, out->nhot_fns, sizeof(*out->hot_fns), fn_cmp);
	}
	arena_free(&c);
	free(c.sc);
	free(c.blocks);
	free(c.hotb);
	free(c.dirty);
	free(c.afn);
	free(c.tags);
	carry_free(&c.carry);
	free(c.afn_count);
	free(c.hot_count);
	free(c.hot_entries);
	free(c.hot);
	return err;
}

struct many {
	const struct lace_record *rec;
	const struct replay_layout *const *lays;
	struct replay_result *out;
	size_t n;
	atomic_size_t next;
	int *err;
	char (*msg)[512];
};

static void *many_worker(void *arg)
{
	struct many *m = arg;

	for (size_t i; (i = atomic_fetch_add(&m->next, 1)) < m->n;) {
		m->err[i] = replay_run(m->rec, m->lays[i], &m->out[i]);
		if (m->err[i])
			snprintf(m->msg[i], sizeof(m->msg[i]), "%s", lace_error_msg());
	}
	return NULL;
}

int replay_run_many(const struct lace_record *rec, const struct replay_layout *const *lays,
		    size_t n, struct replay_result *out, unsigned jobs, size_t *failed)
{
	struct many m = { rec, lays, out, n, 0, xcalloc(n, sizeof(int)),
			  xcalloc(n, sizeof(*m.msg)) };
	pthread_t *t;
	unsigned nt = jobs < 1 ? 1 : jobs > n ? (unsigned)n : jobs, started = 0;
	int err = 0;

	t = xcalloc(nt, sizeof(*t));
	for (unsigned i = 1; i < nt; i++)   /* this thread is one of them */
		started += !pthread_create(&t[started], NULL, many_worker, &m);
	many_worker(&m);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < n && !err; i++)
		if (m.err[i]) {
			err = lace_error_set(-m.err[i], "%s", m.msg[i]);
			if (failed)
				*failed = i;
		}
	free(t);
	free(m.err);
	free(m.msg);
	return err;
}

void replay_result_free(struct replay_result *r)
{
	free(r->procs);
	free(r->approx_fns);
	free(r->hot_fns);
	memset(r, 0, sizeof(*r));
}
