/* lace-vg: the Valgrind tool behind `lace stat --backend sim`.
 *
 * It simulates the instruction front end of one CPU profile -- L1i, iTLB,
 * second-level TLB, fetch blocks -- with the freestanding models in
 * measure/model/ (the same code the unit tests drive), and attributes the
 * events to functions.
 *
 * Instrumentation: a superblock is cut into segments at its side exits
 * (exactly where cachegrind flushes its pending events, so the same
 * instructions are counted).  Each segment is compiled once, at
 * translation time, by sim_seg_build(): the lookups that cannot change
 * cache state are dropped, the function of every instruction is looked up
 * in the debug info, and one helper call per segment replays it.
 * Cachegrind makes one call per instruction (plus data accesses), which is
 * where the speed comes from.
 *
 * Processes: counters are reset in a forked child (the simulated caches
 * stay warm, as in the parent); what the child inherited is written too,
 * so cachegrind's numbers (which carry the parent's counts into the
 * child) can be reproduced.  Each process image writes one file,
 * <--lace-out>.<pid>.<n> with the first free n: at exit, and just before
 * an execve (the new image, run under --trace-children=yes, writes its own).
 *
 * Window: a workload may mark the part it measures (measure/lace_window.h);
 * the counts between its begin and end marks, summed over every window of
 * the image, are written as window-* lines next to the whole image's.  The
 * caches are simulated all along, so a window starts warm, as it would on
 * the hardware.
 *
 * Output format (text, one "key value" per line; fn lines last, the name
 * last so it may hold spaces): see doc/events.md. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_offsets.h"

#include "measure/model/model.h"
#include "measure/vg/tool/lace_vg_exec.h"
#include "measure/vg/tool/lace_vg_ir.h"
#include "measure/vg/tool/lace_vg_more.h"
#include "measure/vg/tool/lace_vg_out.h"
#include "measure/vg/tool/lace_vg_rec.h"
#include "measure/vg/tool/lace_vg_time.h"

/* ---- options ---------------------------------------------------------- */

static const HChar *clo_out = "lace-vg.out";
static const HChar *clo_profile = "custom";
static const HChar *clo_l1i = SIM_STR(SIM_SKYLAKE_L1I_SIZE) "," SIM_STR(SIM_SKYLAKE_L1I_WAYS) ","
			      SIM_STR(SIM_SKYLAKE_L1I_LINE);
static const HChar *clo_itlb = SIM_STR(SIM_SKYLAKE_ITLB_ENTRIES) "," SIM_STR(SIM_SKYLAKE_ITLB_WAYS);
static const HChar *clo_stlb = SIM_STR(SIM_SKYLAKE_STLB_ENTRIES) "," SIM_STR(SIM_SKYLAKE_STLB_WAYS);
static Long clo_page = SIM_SKYLAKE_PAGE;
static Long clo_fetch_block = SIM_SKYLAKE_FETCH_BLOCK;
static Bool clo_per_function = True;
static const HChar *clo_record = NULL;

static struct sim_config cfg;
struct sim_model model;   /* lace_vg_ir.h: the generated code updates it too */

/* Parse "a,b[,c]" into up to 3 numbers; returns how many, or -1. */
static Int parse_list(const HChar *s, ULong *v, Int max)
{
	Int n = 0;

	while (*s) {
		HChar *end;
		Long x = VG_(strtoll10)(s, &end);
		if (end == s || x < 0 || n >= max)
			return -1;
		v[n++] = (ULong)x;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

static Bool lace_process_cmd_line_option(const HChar *arg)
{
	if VG_STR_CLO(arg, "--lace-out", clo_out) {}
	else if VG_STR_CLO(arg, "--lace-profile", clo_profile) {}
	else if VG_STR_CLO(arg, "--lace-l1i", clo_l1i) {}
	else if VG_STR_CLO(arg, "--lace-itlb", clo_itlb) {}
	else if VG_STR_CLO(arg, "--lace-stlb", clo_stlb) {}
	else if VG_INT_CLO(arg, "--lace-page", clo_page) {}
	else if VG_INT_CLO(arg, "--lace-fetch-block", clo_fetch_block) {}
	else if VG_BOOL_CLO(arg, "--lace-per-function", clo_per_function) {}
	else if VG_STR_CLO(arg, "--lace-record", clo_record) {}
	else if (more_option(arg)) {}
	else
		return False;
	return True;
}

static void lace_print_usage(void)
{
	VG_(printf)(
"    --lace-out=PREFIX          write PREFIX.<pid>.<n> per process image\n"
"    --lace-profile=NAME        profile name recorded in the output\n"
"    --lace-l1i=SIZE,WAYS,LINE  L1 instruction cache [" SIM_STR(SIM_SKYLAKE_L1I_SIZE) ","
	SIM_STR(SIM_SKYLAKE_L1I_WAYS) "," SIM_STR(SIM_SKYLAKE_L1I_LINE) "]\n"
"    --lace-itlb=ENTRIES,WAYS   first-level instruction TLB [" SIM_STR(SIM_SKYLAKE_ITLB_ENTRIES) ","
	SIM_STR(SIM_SKYLAKE_ITLB_WAYS) "]\n"
"    --lace-stlb=ENTRIES,WAYS   second-level TLB, 0,0 for none [" SIM_STR(SIM_SKYLAKE_STLB_ENTRIES) ","
	SIM_STR(SIM_SKYLAKE_STLB_WAYS) "]\n"
"    --lace-page=BYTES          page size, 4096 or 2097152 [4096]\n"
"    --lace-fetch-block=BYTES   fetch block size [16]\n"
"    --lace-per-function=yes|no attribute to functions [yes]\n"
"    --lace-record=PREFIX       record the executed code to PREFIX.<pid>.<n>\n"
"    --lace-more=NAME:SIZE,WAYS,LINE:ENTRIES,WAYS:ENTRIES,WAYS:PAGE:FETCH\n"
"                               model one more CPU profile beside the first\n"
"                               (its events only), repeatable\n");
}

static void lace_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

static void bad_config(const HChar *what, const HChar *why)
{
	VG_(fmsg_bad_option)(what, "%s\n", why);
}

/* Tag arrays come from static memory when they fit: the generated code
 * reads the L1i's and iTLB's MRU copies, and reaches them from the model's
 * address (lace_vg_ir.c's ir_addr) rather than by 64-bit constants.  Each
 * starts on 128 bytes, so that a set's tags and stamps are two adjacent
 * host cache lines (cache.h). */
#define TAG_POOL (1u << 16)
static uint64_t tag_pool[TAG_POOL] __attribute__((aligned(128)));

static uint64_t *tags_alloc(const HChar *cc, uint64_t n)
{
	static uint64_t used;
	uint64_t *p;

	n = (n + 15) & ~(uint64_t)15;
	if (n > TAG_POOL - used) {
		HChar *q = VG_(malloc)(cc, n * sizeof(uint64_t) + 128);
		return (uint64_t *)(((Addr)q + 127) & ~(Addr)127);
	}
	p = tag_pool + used;
	used += n;
	return p;
}

static void lace_post_clo_init(void)
{
	ULong v[3];
	const char *what, *why;
	uint64_t nl, ni, ns;

	if (parse_list(clo_l1i, v, 3) != 3)
		bad_config("--lace-l1i", "expected SIZE,WAYS,LINE");
	cfg.l1i_size = v[0];
	cfg.l1i_ways = (uint32_t)v[1];
	cfg.l1i_line = (uint32_t)v[2];
	if (parse_list(clo_itlb, v, 2) != 2)
		bad_config("--lace-itlb", "expected ENTRIES,WAYS");
	cfg.itlb_entries = (uint32_t)v[0];
	cfg.itlb_ways = (uint32_t)v[1];
	if (parse_list(clo_stlb, v, 2) != 2)
		bad_config("--lace-stlb", "expected ENTRIES,WAYS");
	cfg.stlb_entries = (uint32_t)v[0];
	cfg.stlb_ways = (uint32_t)v[1];
	cfg.page = (uint64_t)clo_page;
	cfg.fetch_block = (uint32_t)clo_fetch_block;
	if (sim_config_check(&cfg, &what, &why))
		bad_config(what, why);

	/* user space: every page is cfg.page (no large-page range) */
	sim_model_ntags(&cfg, &nl, &ni, &ns, NULL);
	sim_model_init(&model, &cfg, tags_alloc("lace.l1i", nl), tags_alloc("lace.itlb", ni),
		       ns ? tags_alloc("lace.stlb", ns) : NULL, NULL);
	more_init();
	stacks_init();
	ir_init();
	if (clo_record)
		rec_start(clo_record);
}

/* ---- instrumentation -------------------------------------------------- */

#define MAX_SEG_INSNS 512
#define MAX_SEG_FNS 64
static struct sim_insn seg_insns[MAX_SEG_INSNS];
static struct lace_fn *seg_fnptr[MAX_SEG_FNS];
static struct lace_fn *seg_entry_fn;
static UInt seg_entry_offset;
static IRTemp seg_entry_sp;
static UInt seg_n, seg_nfns;

/* Segment descriptors are carved from big chunks: the helper reads one per
 * call, and keeping those of neighbouring code next to each other (rather
 * than between the core's allocations) keeps them in the host's caches.
 * The hot parts have chunks of their own. */
struct arena {
	HChar *chunk;
	SizeT left;
};
/* The hot lines have an arena of their own (struct lace_seg: the
 * segments of a program share as few host cache lines as they can); the
 * first warm parts come from static memory, near the model: the generated
 * code of plain segments counts their executions there, reached from the
 * model's address (ir_addr). */
static HChar warm_pool[4u << 20] __attribute__((aligned(64)));
static struct arena hot_arena, warm_arena = { warm_pool, sizeof(warm_pool) }, cold_arena;
static struct lace_seg_cold *all_segs;

/* The hot part's pending executions go to the model's segment, and the
 * fetch model's constants of those its compact block ran (a call or a
 * return helper's) to the fetch model. */
static void seg_fold(struct lace_seg_cold *g)
{
	struct lace_seg *h = g->hot;
	ULong fast = h->w->fast_hi + h->b.host32;
	ULong n = h->w->execs + fast;

	g->s.execs += n;
	if ((seg_flags(h) & (SEG_CALL | SEG_BLK)) == (SEG_CALL | SEG_BLK) ||
	    (seg_flags(h) & SEG_RET)) {
		model.fetch.entries += n * g->s.fetch.empty_entries;
		model.fetch.late += n * g->s.fetch.seq_late;
	}
	h->w->execs = 0;
	h->w->fast_done += fast;
	h->w->fast_hi = 0;
	h->b.host32 = 0;
	if (h->w->pend_to) {
		h->w->pend_to->l1i_misses += h->w->pend.l1i_misses;
		h->w->pend_to->itlb_misses += h->w->pend.itlb_misses;
		h->w->pend_to->stlb_misses += h->w->pend.stlb_misses;
	}
	VG_(memset)(&h->w->pend, 0, sizeof(h->w->pend));
}

/* Add every segment's pending executions to its functions (zap: drop them
 * instead, for a forked child's fresh start: then the leaf segments'
 * counts start again too). */
static void segs_settle(Bool zap)
{
	struct lace_seg_cold *g;

	for (g = all_segs; g; g = g->next_all) {
		seg_fold(g);
		if (zap) {
			g->s.execs = 0;
			g->hot->w->fast_done = 0;
			g->hot->w->act_mark = 0;
			g->hot->w->act_fast = 0;
		} else {
			sim_seg_settle(&g->s);
		}
	}
}

/* Bring model.t up to date: the hot paths leave out the counters that
 * only the output and the window marks read -- the line and page lookups
 * (a segment's constant times its pending executions) and the fetch
 * counters (the fetch model's own).  Call before reading model.t other
 * than its instructions. */
static void totals_sync(void)
{
	struct lace_seg_cold *g;

	for (g = all_segs; g; g = g->next_all) {
		seg_fold(g);
		model.t.l1i_loads += g->s.execs * g->s.l1i_loads;
		model.t.itlb_loads += g->s.execs * g->s.itlb_loads;
		sim_seg_settle(&g->s);
	}
	sim_model_fetch_sync(&model);
	more_totals_sync();
}

/* sz bytes from arena a, aligned to align (a power of two, at most 128) */
static HChar *seg_alloc(struct arena *a, SizeT sz, SizeT align)
{
	HChar *p;

	sz = (sz + align - 1) & ~(align - 1);
	if (sz > a->left) {
		SizeT chunk = sz > (1u << 20) ? sz : (1u << 20);
		HChar *c = VG_(malloc)("lace.segs", chunk + 128);
		a->chunk = (HChar *)(((Addr)c + 127) & ~(Addr)127);
		a->left = chunk;
	}
	p = a->chunk;
	a->chunk += sz;
	a->left -= sz;
	return p;
}

/* Compile the pending instructions into a segment and call it.  ret: the
 * superblock's final piece, and the superblock ends in a return. */
static void seg_flush(IRSB *sbOut, Bool ret)
{
	static struct sim_ref lines[MAX_SEG_INSNS * 4], pages[MAX_SEG_INSNS * 4];
	static struct sim_seg_fn fns[MAX_SEG_FNS];
	static uint64_t sa[MAX_SEG_INSNS];
	static uint32_t sl[MAX_SEG_INSNS];
	struct sim_seg tmp;
	struct lace_seg *seg;
	struct lace_seg_cold *cold;
	IRDirty *di;
	UInt i;

	if (!seg_n)
		return;
	for (i = 0; i < seg_nfns; i++)
		fns[i].stats = clo_per_function ? &seg_fnptr[i]->stats : NULL;
	if (sim_seg_build(&model, seg_insns, seg_n, &tmp, lines, MAX_SEG_INSNS * 4, pages,
			  MAX_SEG_INSNS * 4, fns, seg_nfns, sa, sl))
		VG_(tool_panic)("lace-vg: segment buffer too small");
	if (!clo_per_function)
		tmp.nfns = 0;

	/* kept for the life of the process */
	seg = (struct lace_seg *)seg_alloc(&hot_arena, sizeof(*seg), 64);
	VG_(memset)(seg, 0, sizeof(*seg));
	seg->w = (struct lace_seg_warm *)seg_alloc(&warm_arena, sizeof(*seg->w) +
						   sim_seg_nrefs(&tmp) *
						   sizeof(struct sim_ref), 64);
	VG_(memset)(seg->w, 0, sizeof(*seg->w));
	cold = (struct lace_seg_cold *)seg_alloc(&cold_arena, sizeof(*cold) +
						 tmp.nfns * sizeof(struct sim_seg_fn), 16);
	sim_seg_keep(&cold->s, &tmp, seg->w->refs);
	cold->s.fns = (struct sim_seg_fn *)(cold + 1);
	VG_(memcpy)(cold->s.fns, fns, tmp.nfns * sizeof(struct sim_seg_fn));
	cold->s.lazy = 1;
	cold->hot = seg;
	cold->next_all = all_segs;
	all_segs = cold;
	seg->w->cold = cold;
	seg->w->ninsn = tmp.ninsn;
	seg->w->nlines = (UShort)tmp.nlines;   /* at most MAX_SEG_INSNS * 4 */
	seg->w->npages = (UShort)tmp.npages;
	seg->w->fetch = tmp.fetch;
	seg->w->entry = NULL;
	if (clo_per_function && seg_entry_fn) {
		if (!seg_entry_fn->hot)
			seg_entry_fn->hot = &seg->w->own;
		seg->w->entry = seg_entry_fn->hot;
	}
	seg->w->entry_offset = seg_entry_offset;
	seg->w->ends_in_ret = clo_per_function && ret;
	if (!sim_blk_build(&seg->b, &model, &cold->s)) {
		seg_flags(seg) |= SEG_BLK;
		seg->w->pend_to = sim_seg_fn(&cold->s, cold->s.lines[0].fn);
		if (seg->w->pend_to)
			seg_flags(seg) |= SEG_PEND;
	}
	if (seg->w->entry || seg->w->ends_in_ret)
		seg_flags(seg) |= SEG_CALL;
	/* Without functions, a return's lines are mostly those of a call to
	 * one function of many, which take turns in their sets: the guard's
	 * test would fail and the call follow anyway. */
	if (!clo_per_function && ret && (seg_flags(seg) & SEG_BLK))
		seg_flags(seg) |= SEG_RET;
	if (seg->w->entry && seg->w->ends_in_ret) {
		seg_flags(seg) |= SEG_LEAF;
		seg->w->next_leaf = seg->w->entry->leaves;
		seg->w->entry->leaves = seg;
		/* a function whose frame is open now: its calls from here on
		 * are marked when the frame closes */
		seg->w->act_mark = 0;
	}

	di = ir_seg_call(sbOut, seg, &cold->s, seg_entry_sp);
	if (nmore)
		/* the other profiles' models: a call of their own, always */
		addStmtToIRSB(sbOut, IRStmt_Dirty(unsafeIRDirty_0_N(
			1, "lace_more_helper", VG_(fnptr_to_fnentry)(&lace_more_helper),
			mkIRExprVec_1(mkIRExpr_HWord((HWord)more_seg_build(seg_insns, seg_n, sa,
									    sl))))));
	if (rec_on) {
		/* the recording: this segment runs now (before its model call,
		 * in the same order) */
		ULong id = rec_def(sa, sl, tmp.ninsn);
		addStmtToIRSB(sbOut, IRStmt_Dirty(unsafeIRDirty_0_N(
			1, "lace_rec_exec", VG_(fnptr_to_fnentry)(&lace_rec_exec),
			mkIRExprVec_1(mkIRExpr_HWord((HWord)id)))));
	}
	addStmtToIRSB(sbOut, IRStmt_Dirty(di));
	seg_n = 0;
	seg_nfns = 0;
	seg_entry_fn = NULL;
}

/* Add one instruction; returns True when it starts a function (then the
 * caller records the stack pointer after the IMark). */
static Bool seg_add(DiEpoch ep, Addr a, UInt len, IRSB *sbOut)
{
	struct lace_fn *f;
	Bool entry = False;
	UInt slot = 0;

	if (clo_per_function) {
		f = fn_of(ep, a, &entry);
		/* at most one function entry per segment (one frame push per
		 * helper call, with the stack pointer of that instruction) */
		if ((entry && seg_entry_fn) || seg_n == MAX_SEG_INSNS)
			seg_flush(sbOut, False);
		for (slot = 0; slot < seg_nfns; slot++)
			if (seg_fnptr[slot] == f)
				break;
		if (slot == seg_nfns) {
			if (seg_nfns == MAX_SEG_FNS) {
				seg_flush(sbOut, False);
				slot = 0;
			}
			seg_fnptr[slot] = f;
			seg_nfns = slot + 1;
		}
		if (entry) {
			seg_entry_fn = f;
			seg_entry_offset = seg_n;
		}
	} else if (seg_n == MAX_SEG_INSNS) {
		seg_flush(sbOut, False);
	}
	seg_insns[seg_n].addr = a;
	seg_insns[seg_n].len = len;
	seg_insns[seg_n].fn = (uint16_t)slot;
	seg_insns[seg_n].entry = entry;
	seg_n++;
	return entry;
}

/* An exit back to the current instruction (the segment's last) when its
 * compare-and-swap failed (cas_failed: ir_cas_failure): VEX's retry of a
 * LOCK-prefixed read-modify-write after another process wrote the shared
 * line in between.  Taken, the instruction has not run -- a core runs it
 * once -- but those before it have: they are flushed before the exit, and
 * the next segment starts with it.  (Charged with them, a retry counted it
 * twice: counts that moved with the timing.)  Other exits to the current
 * instruction (a REPE/REPNE's next iteration) ran it. */
static Bool exit_restarts(const IRStmt *st, IRTemp cas_failed)
{
	const IRConst *dst = st->Ist.Exit.dst;
	const IRExpr *guard = st->Ist.Exit.guard;

	return cas_failed != IRTemp_INVALID && guard->tag == Iex_RdTmp &&
	       guard->Iex.RdTmp.tmp == cas_failed && dst->tag == Ico_U64 && seg_n &&
	       dst->Ico.U64 == seg_insns[seg_n - 1].addr;
}

static void seg_flush_restart(DiEpoch ep, IRSB *sbOut)
{
	const struct sim_insn cur = seg_insns[--seg_n];
	UInt i = 0;

	while (i < seg_n && seg_insns[i].fn != cur.fn)
		i++;
	if (i == seg_n && cur.fn == seg_nfns - 1)
		seg_nfns--;   /* a function slot of its own */
	if (cur.entry)
		seg_entry_fn = NULL;
	seg_flush(sbOut, False);   /* nothing when it was alone */
	seg_nfns = 0;
	seg_entry_fn = NULL;
	/* an entry's stack pointer temporary (seg_entry_sp) is still its own */
	seg_add(ep, cur.addr, cur.len, sbOut);
}

static IRSB *lace_instrument(VgCallbackClosure *closure, IRSB *sbIn,
			     const VexGuestLayout *layout, const VexGuestExtents *vge,
			     const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	IRSB *sbOut;
	IRTemp cas_failed = IRTemp_INVALID;
	Int i;

	if (gWordTy != hWordTy)
		VG_(tool_panic)("host/guest word size mismatch");

	sbOut = deepCopyIRSBExceptStmts(sbIn);
	ir_model_base_reset();
	i = 0;
	while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark) {
		addStmtToIRSB(sbOut, sbIn->stmts[i]);
		i++;
	}
	seg_n = 0;
	seg_nfns = 0;
	seg_entry_fn = NULL;
	for (; i < sbIn->stmts_used; i++) {
		IRStmt *st = sbIn->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark) {
			Bool entry = seg_add(ep, (Addr)st->Ist.IMark.addr, st->Ist.IMark.len, sbOut);
			addStmtToIRSB(sbOut, st);
			if (entry) {
				/* before the instruction runs: the stack pointer
				 * points at the return address */
				seg_entry_sp = newIRTemp(sbOut->tyenv, Ity_I64);
				addStmtToIRSB(sbOut, IRStmt_WrTmp(seg_entry_sp,
								  IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
			}
			continue;
		}
		if (st->tag == Ist_WrTmp && ir_cas_failure(st->Ist.WrTmp.data))
			cas_failed = st->Ist.WrTmp.tmp;
		if (st->tag == Ist_Exit && exit_restarts(st, cas_failed))
			seg_flush_restart(ep, sbOut);
		else if (st->tag == Ist_Exit)
			/* the instructions so far have run whether or not it exits */
			seg_flush(sbOut, False);
		addStmtToIRSB(sbOut, st);
	}
	seg_flush(sbOut, sbIn->jumpkind == Ijk_Ret);
	return sbOut;
}

/* ---- output ----------------------------------------------------------- */

static struct sim_totals inherited;
static Int inherited_from;

/* the measurement window of this image */
static UInt windows;                     /* begin marks seen */
static Bool window_open;
static struct sim_totals window_start;   /* model.t at the open mark */
static struct sim_totals window_sum;     /* of the closed windows */

/* sum += now - start, counter by counter (every field is a ULong) */
static void totals_add_span(struct sim_totals *sum, const struct sim_totals *now,
			    const struct sim_totals *start)
{
	ULong *s = (ULong *)sum;
	const ULong *n = (const ULong *)now, *b = (const ULong *)start;
	UInt i;

	for (i = 0; i < sizeof(*sum) / sizeof(ULong); i++)
		s[i] += n[i] - b[i];
}

static void window_reset(void)
{
	windows = 0;
	window_open = False;
	VG_(memset)(&window_sum, 0, sizeof(window_sum));
	more_window_reset();
}
/* instructions executed by the ancestors of this process before it was
 * forked: the virtual clock keeps running across a fork */
static ULong clock_base_instructions;

static void results_write(const HChar *why)
{
	HChar path[4096];
	struct outbuf *o;
	Int pid = VG_(getpid)();
	Int fd = -1, n;
	UInt b;

	for (n = 0; n < 1000; n++) {
		VG_(snprintf)(path, sizeof(path), "%s.%d.%d", clo_out, pid, n);
		fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_EXCL, 0644);
		if (fd >= 0)
			break;
	}
	if (fd < 0) {
		VG_(umsg)("lace-vg: cannot create %s.%d.*\n", clo_out, pid);
		return;
	}
	o = VG_(malloc)("lace.out", sizeof(*o));
	o->fd = fd;
	o->len = 0;
	out_printf(o, "lace-vg 1\n");
	out_printf(o, "pid %d\n", pid);
	out_printf(o, "ppid %d\n", VG_(getppid)());
	out_printf(o, "image %d\n", n);
	out_printf(o, "end %s\n", why);
	out_printf(o, "exe %s\n", VG_(args_the_exename) ? VG_(args_the_exename) : "?");
	out_printf(o, "profile %s\n", clo_profile);
	out_printf(o, "l1i %llu %u %u\n", (ULong)cfg.l1i_size, cfg.l1i_ways, cfg.l1i_line);
	out_printf(o, "itlb %u %u\n", cfg.itlb_entries, cfg.itlb_ways);
	out_printf(o, "stlb %u %u\n", cfg.stlb_entries, cfg.stlb_ways);
	out_printf(o, "page %llu\n", (ULong)cfg.page);
	out_printf(o, "fetch-block %u\n", cfg.fetch_block);
	if (inherited_from) {
		out_printf(o, "forked-from %d\n", inherited_from);
		totals_print(o, "inherited-", &inherited);
	}
	totals_sync();
	totals_print(o, "", &model.t);
	if (windows) {
		struct sim_totals w = window_sum;
		if (window_open)   /* still open at exit: it ends here */
			totals_add_span(&w, &model.t, &window_start);
		out_printf(o, "windows %u\n", windows);
		totals_print(o, "window-", &w);
	}
	more_print(o, inherited_from != 0, windows, window_open);
	if (clo_per_function) {
		/* functions still running (main, when exit() is called from it)
		 * end here */
		stacks_unwind_all();
		for (b = 0; b < FN_BUCKETS; b++) {
			struct lace_fn *f;
			for (f = fn_table[b]; f; f = f->next) {
				const struct sim_fn_stats *s = &f->stats;
				if (!s->instructions)
					continue;
				out_printf(o, "fn %llu %llu %llu %llu %llu %llu %s\n",
					   (ULong)s->instructions, (ULong)s->l1i_misses,
					   (ULong)s->itlb_misses, (ULong)s->stlb_misses,
					   (ULong)s->calls,
					   f->hot ? f->hot->inclusive + leaf_inclusive(f->hot) : 0,
					   f->name);
			}
		}
	}
	out_printf(o, "done\n");
	out_flush(o);
	VG_(close)(fd);
	VG_(free)(o);
}

static void counts_reset(void)
{
	UInt b;

	/* the pending executions first: they are the old counts' */
	segs_settle(True);
	sim_model_reset_counts(&model);
	more_reset_counts();
	for (b = 0; b < FN_BUCKETS; b++) {
		struct lace_fn *f;
		for (f = fn_table[b]; f; f = f->next) {
			VG_(memset)(&f->stats, 0, sizeof(f->stats));
			if (f->hot) {
				f->hot->inclusive = 0;
				f->hot->active = 0;
			}
		}
	}
	/* frames of the parent (or of the image before a failed exec) would
	 * end in the wrong counter */
	stacks_forget();
}

/* In a forked child: keep the warm caches, start counting from zero, and
 * remember what came from the parent. */
static void lace_atfork_child(ThreadId tid)
{
	totals_sync();
	inherited = model.t;
	more_fork_child();
	inherited_from = VG_(getppid)();
	clock_base_instructions += model.t.instructions;
	counts_reset();
	rec_fork_child();
	/* the parent's windows are the parent's; a child forked inside an
	 * open window goes on counting in its own */
	{
		Bool open = window_open;
		window_reset();
		if (open) {
			windows = 1;
			window_open = True;
			window_start = model.t;
			more_window_open();
		}
	}
}

static void lace_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	if (sysno == __NR_execve || sysno == __NR_execveat) {
		/* this image ends here if the exec succeeds; if it fails the
		 * counting goes on into a new file */
		results_write("exec");
		rec_end(REC_END_EXEC);
		inherited_from = 0;
		counts_reset();
		window_reset();
	}
}

static void lace_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
}

/* The virtual clock (vg/preload/vgpreload_time.c): a fixed start plus one
 * nanosecond per executed instruction, so that programs printing their own
 * timings print the same thing in every run. */
static Bool lace_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	ULong ns;
	Int clk;

	if (args[0] == LACE_VG_USERREQ_WINDOW_BEGIN) {
		rec_mark(REC_WIN_OPEN);
		if (!window_open) {
			totals_sync();
			windows++;
			window_open = True;
			window_start = model.t;
			more_window_open();
		}
		*ret = 0;
		return True;
	}
	if (args[0] == LACE_VG_USERREQ_WINDOW_END) {
		rec_mark(REC_WIN_CLOSE);
		if (window_open) {
			totals_sync();
			totals_add_span(&window_sum, &model.t, &window_start);
			more_window_close();
			window_open = False;
		}
		*ret = 0;
		return True;
	}
	if (args[0] != LACE_VG_USERREQ_TIME)
		return False;
	clk = (Int)args[1];
	ns = clock_base_instructions + model.t.instructions;
	/* CLOCK_REALTIME, _COARSE, _ALARM, TAI: 2026-01-01T00:00:00Z onwards;
	 * the others (monotonic, boottime, CPU time): 1000 s after boot */
	if (clk == 0 || clk == 5 || clk == 8 || clk == 11)
		ns += 1767225600ull * 1000000000ull;
	else
		ns += 1000ull * 1000000000ull;
	*ret = (UWord)ns;
	return True;
}

static void lace_fini(Int exitcode)
{
	results_write("exit");
	rec_end(REC_END_EXIT);
}

static void lace_pre_clo_init(void)
{
	VG_(details_name)("lace-vg");
	VG_(details_version)("1");
	VG_(details_description)("lace front-end simulator (L1i, iTLB, STLB, fetch blocks)");
	VG_(details_copyright_author)("lace authors; GPL-3.0-or-later");
	VG_(details_bug_reports_to)("the lace project");
	VG_(details_avg_translation_sizeB)(300);

	VG_(basic_tool_funcs)(lace_post_clo_init, lace_instrument, lace_fini);
	VG_(needs_command_line_options)(lace_process_cmd_line_option, lace_print_usage,
					lace_print_debug_usage);
	VG_(needs_syscall_wrapper)(lace_pre_syscall, lace_post_syscall);
	VG_(needs_client_requests)(lace_client_request);
	VG_(atfork)(NULL, NULL, lace_atfork_child);
	VG_(track_start_client_code)(lace_start_client_code);
}

VG_DETERMINE_INTERFACE_VERSION(lace_pre_clo_init)
