/* lace's TCG plugin: lace's front-end models (measure/model: L1i, iTLB,
 * STLB, fetch blocks; compiled in, the same code as the Valgrind tool's)
 * fed with every instruction a full-system QEMU guest executes inside the
 * windows the guest opens and closes (tcg_core.h), counts split user/kernel.
 *
 * Its arguments and output: tcg_setup.c.
 *
 * Each translation block is compiled once, at translation, into a model
 * record (a segment of its distinct lines and pages, sim_seg_build, and
 * its compact block, sim_blk_build: struct tb_hot, one host cache line),
 * and costs one callback per execution -- from the first window on: until
 * then only the window markers are instrumented (tb_trans_boot,
 * instrument_all).  The L1i is looked up by the host address of the
 * guest's code (guest RAM is one page-aligned host mapping, so this is the
 * guest-physical line: processes sharing virtual addresses do not alias);
 * the TLBs by the guest-virtual page.  QEMU shows no CR3/PCID, so the
 * non-global (user) TLB entries are flushed whenever the guest enters its
 * context-switch function (switch=, found by the caller in System.map).
 *
 * Guests: x86_64 and ppc64 (little-endian).  On ppc64 callers in the
 * kernel enter most functions at their local entry point, 8 bytes past
 * the System.map address; a block starting there counts as an entry when
 * the function's first two instructions set up the TOC. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/qemu/plugin/qemu_plugin_v1.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/qemu/plugin/tcg_record.h"
#include "measure/qemu/plugin/tcg_plugin.h"
#include "measure/model/model.h"
#include "util/error.h"

LACE_QEMU_PLUGIN_EXPORT int qemu_plugin_version = LACE_QEMU_PLUGIN_VERSION;

/* One translated block, compiled: one record per translation, in two
 * parts.  Records are never freed: plugin API 1 says nothing when QEMU
 * drops a block, and a retranslation makes a new record.
 *
 * The hot part (struct tb_hot) is all an execution reads: one 64-byte
 * host cache line holding the model's compact block (struct sim_blk: the
 * fetch states, the kept lookups with their way hints), the block's key
 * and its execution count, carved from chunks of their own so that the
 * blocks of a loop share few host cache lines.  What grows by a constant
 * with every execution is not counted there: the instructions, line and
 * page lookups, the fetch model's constant part and the per-function
 * counts are the block's constants times its executions, added up by
 * side when a window closes (tb_window_sums) and per function at exit.
 *
 * The cold part (struct tb_info) holds the model's segment (its lookups'
 * instructions and functions, for a miss or a stale hint), the constants,
 * and what the rare paths need.  A block that does not fit the compact
 * form (more than SIM_BLK_LINES lines, two pages) is TB_GENERAL: it runs
 * its segment in the slow path. */
struct tb_info;
struct tb_hot {
	struct sim_blk b;            /* b.host32: executions (its wraps go to the
				      * cold part's execs_hi); b.host8[0]: the key */
	struct tb_info *cold;
};

struct tb_info {
	struct sim_fn_stats pend;    /* the compact block's misses, for pend_to at exit */
	struct sim_fn_stats *pend_to;   /* its function's counters, or NULL */
	struct tb_hot *hot;
	uint64_t execs_hi;           /* 2^32 times the wraps of hot->b.host32 */
	uint64_t base;               /* executions when the window last closed */
	struct sim_seg seg;          /* lines, pages and functions */
	struct tb_info *next_all;    /* every record, for settling */
	uint64_t vaddr;
	uint64_t call_ret;           /* ends in a call returning here, or 0 */
	long path_fn;                /* the path= function this block enters, or -1 */
	uint64_t rec_id;             /* its number in the recording (record=) */
	int irq;                     /* starts at an asynchronous interrupt's vector */
	uint16_t *ioff;              /* user blocks: each instruction's offset from vaddr */
	uint64_t haddr;              /* host address of the first instruction (or vaddr) */
	struct tb_x *x;              /* the other profiles' parts (profile=), or NULL */
	struct sim_ref refs[];       /* seg.lines, then seg.pages, then seg.fns */
};

/* One more profile's part of a block (profile=): its segment and compact
 * block (b.host8[0]: 1 when usable), whose constants tb_window_sums adds
 * from the first profile's execution count. */
struct tb_x {
	struct sim_blk b;
	struct sim_seg seg;
};

#define TB_KERNEL  1u
#define TB_SWITCH  2u
#define TB_EXC     4u            /* kernel block at a synchronous exception's entry */
#define TB_GENERAL 8u            /* runs its segment (no compact block) */
#define TB_SLOW    0x80u         /* never in a block's key */
#define tb_key(h) ((h)->b.host8[0])

static struct sim_totals last;
static struct tcg_split win;
/* shared with tcg_setup.c: see tcg_plugin.h */
struct sim_model model;
struct tcg_xprof xprof[TCG_MAX_PROFILES - 1];
size_t nxprof;
bool null_exec;
static int window_open;
static int cur_kernel;   /* the side the model's counts since `last` belong to */
unsigned window_no;
uint64_t switch_addr;
uint64_t user_limit;
FILE *out;
struct symmap map;
struct sim_fn_stats *fn_stats;
uint64_t switches;
enum tcg_arch arch;
struct tcg_paths paths;
long *path_sym;
static struct tb_info *all_tbs;
uint64_t *irq_vec;
size_t nirq;
/* The block executed last, and the user block a synchronous exception
 * left (whose rest a new block counts again when the kernel returns into
 * it; tcg_block_rest) */
static struct tb_hot *last_tb;
static struct tb_info *excepted;
static int excepted_switched;   /* the kernel switched processes since */
uint64_t exc_addr[TCG_MAX_EXC];
size_t nexc;
/* The key of a block that needs nothing but the model: the window open,
 * the current side, no path= tracking; anything else takes the slow path
 * in tb_exec (TB_SLOW: window closed or paths). */
static uint8_t fast_key = TB_SLOW;
/* The instructions counted so far, for path= (whose blocks all take the
 * slow path): the model's totals leave them to the blocks' constants. */
static uint64_t path_clock;

static void fast_key_update(void)
{
	fast_key = (uint8_t)(!window_open || paths.n ? TB_SLOW : cur_kernel ? TB_KERNEL : 0);
}

/* Chunks of 1 MiB, one series for the hot parts and one for the cold;
 * records of blocks translated one after another (mostly code that runs
 * together) sit next to each other. */
struct arena {
	char *chunk;
	size_t left;
};
static struct arena hot_arena, cold_arena;

static void *rec_alloc(struct arena *a, size_t size, size_t align)
{
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (size > a->left) {
		size_t c = size > ((size_t)1 << 20) ? size : (size_t)1 << 20;

		if (posix_memalign((void **)&a->chunk, 64, c))
			abort();   /* QEMU itself aborts on allocation failure */
		a->left = c;
	}
	p = a->chunk;
	a->chunk += size;
	a->left -= size;
	return p;
}

/* The totals the hot path leaves behind (the fetch model's own counters),
 * before anyone reads model.t. */
static void totals_sync(void)
{
	sim_model_fetch_sync(&model);
	for (size_t k = 0; k < nxprof; k++)
		sim_model_fetch_sync(&xprof[k].m);
}

static uint64_t tb_execs(const struct tb_info *t)
{
	return t->execs_hi + t->hot->b.host32;
}

/* n executions of a compact block's segment: its constants */
static void seg_constants(struct sim_totals *side, const struct sim_seg *seg, uint64_t n)
{
	side->instructions += n * seg->ninsn;
	side->l1i_loads += n * seg->l1i_loads;
	side->itlb_loads += n * seg->itlb_loads;
	side->fetch_blocks += n * seg->fetch.empty_entries;
	side->fetch_late += n * seg->fetch.seq_late;
}

/* What the blocks' constants times their executions since the last window
 * closed add to each side of each profile's window (see struct tb_hot);
 * executions are counted in windows only. */
static void tb_window_sums(void)
{
	for (struct tb_info *t = all_tbs; t; t = t->next_all) {
		uint64_t now = tb_execs(t), n = now - t->base;
		int kernel = tb_key(t->hot) & TB_KERNEL;

		if (!n)
			continue;
		t->base = now;
		/* a block without compact block counted them itself */
		if (!(tb_key(t->hot) & TB_GENERAL))
			seg_constants(kernel ? &win.k : &win.u, &t->seg, n);
		for (size_t k = 0; k < nxprof; k++)
			if (t->x[k].b.host8[0])
				seg_constants(kernel ? &xprof[k].win.k : &xprof[k].win.u, &t->x[k].seg,
					      n);
	}
}

/* Does block t run the code of block e from t's start on?  The same
 * virtual address may hold another process's code (the kernel may switch
 * processes before it returns to the excepted one, so the excepted block
 * is kept until then): where t starts on e's first guest page, its host
 * address (the guest-physical page) must match too. */
static int same_code(const struct tb_info *e, const struct tb_info *t)
{
	if (t->vaddr < e->vaddr || t->vaddr - e->vaddr > UINT16_MAX)
		return 0;
	if ((t->vaddr ^ e->vaddr) >> 12)
		return 1;
	return t->haddr == e->haddr + (t->vaddr - e->vaddr);
}

static __attribute__((noinline)) void tb_wrap(struct tb_hot *h)
{
	h->cold->execs_hi += (uint64_t)1 << 32;
}

#define TB_UPDATE(NAME, NL, LARGE)                                              \
	static __attribute__((noinline)) void NAME(struct tb_hot *h)            \
	{                                                                       \
		sim_blk_update_n(&model, &h->b, &h->cold->pend, NL, LARGE);     \
	}
TB_UPDATE(tb_update, h->b.nl, h->b.flags & SIM_BLK_LARGE)
TB_UPDATE(tb_update_1_0, 1, 0) TB_UPDATE(tb_update_2_0, 2, 0) TB_UPDATE(tb_update_3_0, 3, 0)
TB_UPDATE(tb_update_1_1, 1, 1) TB_UPDATE(tb_update_2_1, 2, 1) TB_UPDATE(tb_update_3_1, 3, 1)
#undef TB_UPDATE

/* One execution of a block that counts (the window open, its side the
 * current one), but for its constants (tb_window_sums) and its count; nl
 * and large are its shape (sim_blk_run_caches_n) and kind its fetch kind
 * (sim_blk_fetch_kind), constants in tb_exec's copies; update, the
 * lookups' when one is not its set's most recently used, is a call of its
 * own: the common path then saves no registers (~2% of the shell loop). */
static inline __attribute__((always_inline)) void
tb_count_rest(struct tb_hot *h, uint32_t nl, int large, unsigned kind,
	      void (*update)(struct tb_hot *))
{
	sim_blk_fetch_kind(&model.fetch, &h->b, kind);
	last_tb = h;
	if (sim_blk_changes(&model, &h->b, nl, large))
		update(h);
}

/* An execution whose count wrapped, out of line: the common path then
 * makes no call of its own (no stack frame to align). */
static __attribute__((noinline)) void tb_count_wrapped(struct tb_hot *h)
{
	tb_wrap(h);
	tb_count_rest(h, h->b.nl, h->b.flags & SIM_BLK_LARGE, SIM_BLK_KIND_ANY, tb_update);
}

static inline __attribute__((always_inline)) void
tb_count_n(struct tb_hot *h, uint32_t nl, int large, unsigned kind,
	   void (*update)(struct tb_hot *))
{
	if (__builtin_expect(++h->b.host32 == 0, 0))
		tb_count_wrapped(h);
	else
		tb_count_rest(h, nl, large, kind, update);
}

static void tb_count(struct tb_hot *h)
{
	tb_count_n(h, h->b.nl, h->b.flags & SIM_BLK_LARGE, SIM_BLK_KIND_ANY, tb_update);
}

/* A TB_GENERAL block: all of its segment (sim_seg_run of a lazy segment
 * whose executions the hot part counts). */
static __attribute__((noinline)) void tb_count_general(struct tb_hot *h)
{
	struct tb_info *t = h->cold;

	if (__builtin_expect(++h->b.host32 == 0, 0))
		tb_wrap(h);
	model.t.instructions += t->seg.ninsn;
	model.t.l1i_loads += t->seg.l1i_loads;
	model.t.itlb_loads += t->seg.itlb_loads;
	sim_seg_run_caches_inline(&model, &t->seg);
	sim_fetch_seg_apply(&model.fetch, &t->seg.fetch);
	last_tb = h;
}

/* tb_exec's rare cases, out of line so that the common path saves no
 * registers: the window closed, a side change, the context switch, an
 * exception's entry, path= tracking, a TB_GENERAL block.  0 when the
 * block counts nothing (window closed). */
static __attribute__((noinline)) int tb_slow(struct tb_hot *h)
{
	struct tb_info *t = h->cold;
	uint8_t key = tb_key(h);

	if (!window_open)
		return 0;
	if ((key & TB_EXC) && last_tb && !(tb_key(last_tb) & TB_KERNEL)) {
		excepted = last_tb->cold;
		excepted_switched = 0;
	}
	if (key & TB_SWITCH) {
		excepted_switched = 1;
		/* a new address space may follow: forget the user pages */
		sim_cache_flush_below(&model.itlb, user_limit);
		if (model.has_stlb)
			sim_cache_flush_below(&model.stlb, user_limit);
		for (size_t k = 0; k < nxprof; k++) {
			struct sim_model *m = &xprof[k].m;

			sim_cache_flush_below(&m->itlb, tcg_user_page_limit(m->cfg.page));
			if (m->has_stlb)
				sim_cache_flush_below(&m->stlb, tcg_user_page_limit(m->cfg.page));
		}
		switches++;
	}
	if (paths.n && t->irq)
		tcg_paths_interrupt(&paths);
	if (paths.n) {
		tcg_paths_block(&paths, t->vaddr, t->path_fn, t->call_ret, path_clock);
		path_clock += t->seg.ninsn;
	}
	/* the split is taken when the side changes, not after every block: a
	 * per-block copy of the totals cost as much as the model */
	if ((key & TB_KERNEL) != (unsigned)cur_kernel) {
		totals_sync();
		tcg_split_account(&win, cur_kernel, &model.t, &last);
		for (size_t k = 0; k < nxprof; k++)
			tcg_split_account(&xprof[k].win, cur_kernel, &xprof[k].m.t, &xprof[k].last);
		if (cur_kernel && excepted && same_code(excepted, t)) {
			/* back in user space: into the excepted block, whose
			 * instructions from here on were counted, not run */
			uint32_t rest = tcg_block_rest(excepted->ioff, excepted->seg.ninsn,
						       excepted->vaddr, t->vaddr);

			win.u.instructions -= rest;
			for (size_t k = 0; k < nxprof; k++)
				xprof[k].win.u.instructions -= rest;
			/* after this block's EXEC (tb_exec_rec): the replay
			 * takes the same off its window's user count */
			if (rest)
				tcg_rec_take_back(REC_SIDE_USER, rest);
			excepted = NULL;
		} else if (cur_kernel && !excepted_switched) {
			/* the same process went on elsewhere (a signal
			 * handler): its block's rest is lost, not retried */
			excepted = NULL;
		}
		cur_kernel = key & TB_KERNEL;
		fast_key_update();
	}
	if (key & TB_GENERAL)
		tb_count_general(h);
	else
		tb_count(h);
	return 1;
}

/* The other profiles' part of one execution that counted (profile=): the
 * model's way, as the first profile's but without functions. */
static void tb_count_x(struct tb_info *t)
{
	for (size_t k = 0; k < nxprof; k++) {
		struct sim_model *m = &xprof[k].m;
		struct tb_x *x = &t->x[k];

		if (x->b.host8[0]) {
			sim_blk_fetch(&m->fetch, &x->b);
			sim_blk_run_caches(m, &x->b, NULL);
		} else {
			m->t.instructions += x->seg.ninsn;
			m->t.l1i_loads += x->seg.l1i_loads;
			m->t.itlb_loads += x->seg.itlb_loads;
			sim_seg_run_caches_inline(m, &x->seg);
			sim_fetch_seg_apply(&m->fetch, &x->seg.fetch);
		}
	}
}

static void tb_exec(unsigned int vcpu, void *ud)
{
	struct tb_hot *h = ud;

	if (__builtin_expect(tb_key(h) != fast_key, 0))
		tb_slow(h);
	else
		tb_count(h);
}

/* tb_exec for each shape of compact block (lines, large page) and fetch
 * kind (F: 0, A aligned, L late): the host CPU then predicts every branch
 * of an execution that changes nothing (one shared copy mispredicted its
 * loops as blocks of one, two and three lines took turns), and the fetch
 * step tests no flag. */
#define TB_EXEC(NL, LARGE, F)                                              \
	static void tb_exec_##NL##_##LARGE##F(unsigned int vcpu, void *ud) \
	{                                                                  \
		struct tb_hot *h = ud;                                     \
                                                                           \
		if (__builtin_expect(tb_key(h) != fast_key, 0))            \
			tb_slow(h);                                        \
		else                                                       \
			tb_count_n(h, NL, LARGE, SIM_BLK_KIND_##F,         \
				   tb_update_##NL##_##LARGE);              \
	}
#define TB_EXEC3(NL, LARGE) TB_EXEC(NL, LARGE, 0) TB_EXEC(NL, LARGE, A) TB_EXEC(NL, LARGE, L)
TB_EXEC3(1, 0) TB_EXEC3(2, 0) TB_EXEC3(3, 0) TB_EXEC3(1, 1) TB_EXEC3(2, 1) TB_EXEC3(3, 1)
#undef TB_EXEC3
#undef TB_EXEC

/* LACE_TCG_NULL_EXEC's callback: QEMU's cost of calling one per block
 * executed, with nothing modelled (bench/bench_qemu.sh's floor). */
static void tb_exec_null(unsigned int vcpu, void *ud)
{
	(void)vcpu;
	(void)ud;
}

static qemu_plugin_vcpu_udata_cb_t tb_exec_for(const struct tb_hot *h)
{
#define KINDS(NL, LARGE) { tb_exec_##NL##_##LARGE##0, tb_exec_##NL##_##LARGE##A, \
			   tb_exec_##NL##_##LARGE##L }
	static const qemu_plugin_vcpu_udata_cb_t fixed[2][SIM_BLK_LINES][3] = {
		{ KINDS(1, 0), KINDS(2, 0), KINDS(3, 0) },
		{ KINDS(1, 1), KINDS(2, 1), KINDS(3, 1) },
	};
#undef KINDS

	if (tb_key(h) & TB_GENERAL)
		return tb_exec;
	return fixed[!!(h->b.flags & SIM_BLK_LARGE)][h->b.nl - 1][sim_blk_kind(&h->b)];
}

/* tb_exec with the other profiles (profile=) */
static void tb_exec_multi(unsigned int vcpu, void *ud)
{
	struct tb_hot *h = ud;

	if (tb_key(h) != fast_key) {
		if (!tb_slow(h))
			return;
	} else {
		tb_count(h);
	}
	tb_count_x(h->cold);
}

/* tb_exec, recording: each block that counts, in order, after the
 * context switch its start may be (tcg_record.h) */
static void tb_exec_rec(unsigned int vcpu, void *ud)
{
	struct tb_hot *h = ud;

	if (window_open) {
		if (tb_key(h) & TB_SWITCH)
			tcg_rec_mark(REC_CTXSW);
		tcg_rec_exec(h->cold->rec_id);
	}
	if (nxprof)
		tb_exec_multi(vcpu, ud);
	else
		tb_exec(vcpu, ud);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

static void instrumented(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, tcg_at_exit, NULL);
}

/* From the first window on, every block is translated with its model
 * record and callback.  The flush happens when the vCPU leaves the
 * marker's block: the rest of that block runs as translated before, which
 * is what a window's first block always does (its callback ran while the
 * window was still closed), and nothing else runs in between (each block
 * checks for an exit request before its first instruction). */
qemu_plugin_id_t plugin_id;
static int instrumenting;

static void instrument_all(void)
{
	if (instrumenting)
		return;
	instrumenting = 1;
	qemu_plugin_reset(plugin_id, instrumented);
}

static void mark_open(unsigned int vcpu, void *ud)
{
	if (window_open)
		return;
	instrument_all();
	window_open = 1;
	tcg_rec_mark(REC_WIN_OPEN);
	window_no++;
	memset(&win, 0, sizeof(win));
	last_tb = NULL;
	excepted = NULL;
	totals_sync();
	last = model.t;
	for (size_t k = 0; k < nxprof; k++) {
		memset(&xprof[k].win, 0, sizeof(xprof[k].win));
		xprof[k].last = xprof[k].m.t;
	}
	cur_kernel = 0;   /* the marker runs in user space */
	fast_key_update();
}

static void mark_close(unsigned int vcpu, void *ud)
{
	char line[1024];

	if (!window_open)
		return;
	window_open = 0;
	tcg_rec_mark(REC_WIN_CLOSE);
	last_tb = NULL;
	excepted = NULL;
	fast_key_update();
	totals_sync();
	tcg_split_account(&win, cur_kernel, &model.t, &last);
	for (size_t k = 0; k < nxprof; k++)
		tcg_split_account(&xprof[k].win, cur_kernel, &xprof[k].m.t, &xprof[k].last);
	tb_window_sums();
	tcg_split_format(line, sizeof(line), window_no, &win);
	fputs(line, out);
	for (size_t k = 0; k < nxprof; k++) {
		tcg_split_format(line, sizeof(line), window_no, &xprof[k].win);
		fprintf(out, "profile %zu %s", k + 1, line);
	}
	fflush(out);
}

/* Register the window callbacks on the instruction i of tb when it is a
 * marker. */
static void markers_register(struct qemu_plugin_tb *tb, size_t i, size_t n,
			     struct qemu_plugin_insn *insn, size_t len)
{
	switch (tcg_mark_at(tb, i, n, insn, len)) {
	case TCG_MARK_OPEN:
		qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_open, QEMU_PLUGIN_CB_NO_REGS,
						       NULL);
		break;
	case TCG_MARK_CLOSE:
		qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_close, QEMU_PLUGIN_CB_NO_REGS,
						       NULL);
		break;
	default:
		break;
	}
}

/* Before the first window: the markers alone.  The boot (billions of
 * instructions that never count) runs without a per-block callback and
 * without a model record per block; the first window's opening flushes the
 * translated code (instrument_all) and everything is translated again with
 * tb_trans. */
void tb_trans_boot(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		markers_register(tb, i, n, insn, qemu_plugin_insn_size(insn));
	}
}

/* Translation-time scratch, grown to the largest block seen.  Blocks are
 * translated one at a time: lace runs one vCPU under -icount, where TCG
 * is single-threaded. */
static struct {
	size_t n;
	uint32_t cap_l, cap_p;
	struct sim_insn *iv, *ih;
	struct sim_ref *lines, *pages, *tmp_l, *tmp_p;
	uint64_t *sa, *pa;
	uint32_t *sl;
} scratch;

static void scratch_reserve(size_t n)
{
	if (n <= scratch.n)
		return;
	uint32_t line = model.cfg.l1i_line, page = (uint32_t)model.cfg.page;

	for (size_t k = 0; k < nxprof; k++) {
		if (xprof[k].m.cfg.l1i_line < line)
			line = xprof[k].m.cfg.l1i_line;
		if (xprof[k].m.cfg.page < page)
			page = (uint32_t)xprof[k].m.cfg.page;
	}
	scratch.n = n;
	scratch.cap_l = (uint32_t)n * sim_seg_refs_per_insn(line, 16);
	scratch.cap_p = (uint32_t)n * sim_seg_refs_per_insn(page, 16);
#define GROW(f, k) (scratch.f = realloc(scratch.f, (k) * sizeof(*scratch.f)))
	if (!GROW(iv, n) || !GROW(ih, n) || !GROW(sa, n) || !GROW(pa, n) || !GROW(sl, n) ||
	    !GROW(lines, scratch.cap_l) || !GROW(tmp_l, scratch.cap_l) ||
	    !GROW(pages, scratch.cap_p) || !GROW(tmp_p, scratch.cap_p))
		abort();   /* QEMU itself aborts on allocation failure */
#undef GROW
}

/* Compile a block's n instructions for model m: lines from the host
 * addresses (ih), pages and fetch blocks from the virtual ones (iv), two
 * compilations into one segment whose lookups are in scratch (lines in
 * scratch.lines, pages in scratch.pages). */
static void seg_compile(const struct sim_model *m, const struct sim_insn *ih,
			const struct sim_insn *iv, size_t n, struct sim_seg_fn *fns, uint32_t nfns,
			struct sim_seg *seg)
{
	struct sim_seg segh;

	if (sim_seg_build(m, ih, (uint32_t)n, &segh, scratch.lines, scratch.cap_l,
			  scratch.tmp_p, scratch.cap_p, fns, nfns, scratch.sa, scratch.sl) ||
	    sim_seg_build(m, iv, (uint32_t)n, seg, scratch.tmp_l, scratch.cap_l,
			  scratch.pages, scratch.cap_p, fns, nfns, scratch.sa, scratch.sl))
		abort();   /* the caps hold every lookup: cannot happen */
	seg->lines = segh.lines;
	seg->nlines = segh.nlines;
	seg->l1i_loads = segh.l1i_loads;
}

/* The other profiles' parts of a block (profile=), from the cold arena. */
static struct tb_x *tb_x_build(const struct sim_insn *ih, const struct sim_insn *iv, size_t n)
{
	struct tb_x *x = rec_alloc(&cold_arena, nxprof * sizeof(*x), 16);

	for (size_t k = 0; k < nxprof; k++) {
		struct sim_seg seg;

		seg_compile(&xprof[k].m, ih, iv, n, NULL, 0, &seg);
		sim_seg_keep(&x[k].seg, &seg,
			     rec_alloc(&cold_arena, sim_seg_nrefs(&seg) * sizeof(struct sim_ref), 16));
		x[k].b.host8[0] = !sim_blk_build(&x[k].b, &xprof[k].m, &x[k].seg);
	}
	return x;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint32_t nfns = 0;
	struct sim_seg_fn fns[64];
	struct sim_seg seg;
	struct sim_insn *iv, *ih;
	struct tb_info *t;
	struct tb_hot *h;
	uint8_t key;
	long fn_sym[64];
	uint64_t vaddr;
	long path_fn = -1;
	uint64_t call_ret = 0;

	if (!n)
		return;
	scratch_reserve(n);
	iv = scratch.iv;
	ih = scratch.ih;
	vaddr = qemu_plugin_tb_vaddr(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		void *ha = qemu_plugin_insn_haddr(insn);
		size_t len = qemu_plugin_insn_size(insn);
		long sym = map.n && tcg_is_kernel(va) ? symmap_lookup(&map, va) : -1;
		uint16_t slot = 0xffff;

		markers_register(tb, i, n, insn, len);
		if (sym >= 0) {
			for (uint32_t f = 0; f < nfns; f++)
				if (fn_sym[f] == sym)
					slot = (uint16_t)f;
			if (slot == 0xffff && nfns < 64) {
				fn_sym[nfns] = sym;
				fns[nfns].stats = &fn_stats[sym];
				slot = (uint16_t)nfns++;
			}
		}
		iv[i].addr = va;
		iv[i].len = (uint32_t)len;
		iv[i].fn = slot;
		iv[i].entry = sym >= 0 && tcg_is_entry(&map.syms[sym], va, ha);
		if (i == 0 && iv[i].entry)
			for (size_t k = 0; k < paths.n; k++)
				if (path_sym[k] == sym)
					path_fn = (long)k;
		if (i == n - 1 && tcg_insn_is_call(arch, qemu_plugin_insn_data(insn), len))
			call_ret = va + len;
		ih[i] = iv[i];
		/* MMIO code has no host address: fall back to the virtual one */
		ih[i].addr = ha ? (uint64_t)(uintptr_t)ha : va;
	}
	/* lines from the host (physical) addresses, pages and fetch blocks
	 * from the virtual ones: two compilations, one segment */
	seg_compile(&model, ih, iv, n, fns, nfns, &seg);

	bool user = !tcg_is_kernel(vaddr);
	/* the lines' lookups, the small pages', then the large pages' */
	t = rec_alloc(&cold_arena, sizeof(*t) + sim_seg_nrefs(&seg) * sizeof(struct sim_ref) +
		      nfns * sizeof(struct sim_seg_fn) + (user ? n * sizeof(uint16_t) : 0), 16);
	h = rec_alloc(&hot_arena, sizeof(*h), 64);
	h->cold = t;
	t->hot = h;
	t->execs_hi = 0;
	t->base = 0;
	sim_seg_keep(&t->seg, &seg, t->refs);
	t->seg.fns = (struct sim_seg_fn *)(t->refs + sim_seg_nrefs(&seg));
	memcpy(t->seg.fns, fns, nfns * sizeof(struct sim_seg_fn));
	t->x = nxprof ? tb_x_build(ih, iv, n) : NULL;
	t->ioff = NULL;
	t->haddr = ih[0].addr;
	if (user) {
		t->ioff = (uint16_t *)(t->seg.fns + nfns);
		for (size_t i = 0; i < n; i++)
			t->ioff[i] = (uint16_t)(iv[i].addr - vaddr);
	}
	t->seg.lazy = 1;
	key = (uint8_t)((user ? 0 : TB_KERNEL) |
			(switch_addr && vaddr == switch_addr ? TB_SWITCH : 0));
	memset(&t->pend, 0, sizeof(t->pend));
	t->pend_to = NULL;
	if (sim_blk_build(&h->b, &model, &t->seg))
		key |= TB_GENERAL;
	else
		t->pend_to = sim_seg_fn(&t->seg, t->seg.lines[0].fn);
	t->next_all = all_tbs;
	all_tbs = t;
	t->vaddr = vaddr;
	t->call_ret = call_ret;
	t->path_fn = path_fn;
	t->irq = nirq && tcg_is_irq_vector(vaddr);
	for (size_t k = 0; k < nexc && !user; k++)
		if (exc_addr[k] == vaddr)
			key |= TB_EXC;
	h->b.host32 = 0;
	tb_key(h) = key;
	if (tcg_rec_on) {
		for (size_t i = 0; i < n; i++) {
			scratch.sa[i] = iv[i].addr;
			scratch.sl[i] = iv[i].len;
			scratch.pa[i] = ih[i].addr;
		}
		t->rec_id = tcg_rec_def(!user, scratch.sa, scratch.sl, scratch.pa, (uint32_t)n);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, null_exec ? tb_exec_null
					     : tcg_rec_on ? tb_exec_rec
					     : nxprof ? tb_exec_multi : tb_exec_for(h),
					     QEMU_PLUGIN_CB_NO_REGS, h);
}

void tcg_finish(void)
{
	if (window_open)
		mark_close(0, NULL);
	for (struct tb_info *t = all_tbs; t; t = t->next_all) {
		t->seg.execs = tb_execs(t);
		sim_seg_settle(&t->seg);
		if (t->pend_to) {
			t->pend_to->l1i_misses += t->pend.l1i_misses;
			t->pend_to->itlb_misses += t->pend.itlb_misses;
			t->pend_to->stlb_misses += t->pend.stlb_misses;
		}
	}
}
