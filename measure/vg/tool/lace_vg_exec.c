/* lace-vg at execution time: the functions the events are attributed
 * to, the call stacks behind inclusive counts, and the helpers the
 * generated code calls for a segment (lace_vg_main.c instruments the
 * superblocks and writes the results; lace_vg_ir.c emits the inline
 * part).  Split from lace_vg_main.c: what runs per segment at execution
 * time is one job, instrumenting and output another. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_threadstate.h"

#include "measure/model/model.h"
#include "measure/vg/tool/lace_vg_exec.h"
#include "measure/vg/tool/lace_vg_ir.h"

/* ---- functions -------------------------------------------------------- */



struct lace_fn *fn_table[FN_BUCKETS];
static struct lace_fn *fn_unknown;

static UInt hash_str(const HChar *s)
{
	UInt h = 2166136261u;

	while (*s)
		h = (h ^ (UChar)*s++) * 16777619u;
	return h;
}

static struct lace_fn *fn_get(const HChar *name)
{
	UInt h = hash_str(name);
	struct lace_fn **b = &fn_table[h % FN_BUCKETS];
	struct lace_fn *f;
	SizeT len;

	for (f = *b; f; f = f->next)
		if (f->hash == h && !VG_(strcmp)(f->name, name))
			return f;
	len = VG_(strlen)(name);
	f = VG_(calloc)("lace.fn", 1, sizeof(*f) + len + 1);
	VG_(memcpy)(f->name, name, len + 1);
	f->hash = h;
	f->next = *b;
	*b = f;
	return f;
}

struct lace_fn *fn_of(DiEpoch ep, Addr a, Bool *entry)
{
	const HChar *name;

	*entry = VG_(get_fnname_if_entry)(ep, a, &name);
	if (*entry)
		return fn_get(name);
	if (VG_(get_fnname)(ep, a, &name))
		return fn_get(name);
	if (!fn_unknown)
		fn_unknown = fn_get("???");
	return fn_unknown;
}

/* ---- call stacks (inclusive counts) ----------------------------------
 *
 * Inclusive instructions (path length with callees) need to know when a
 * call ends.  A frame is pushed when a function's first instruction runs,
 * remembering the stack pointer there (it points at the return address);
 * at every return (a superblock ending in Ijk_Ret) the frames whose stack
 * pointer lies below the new one are popped, so tail calls, longjmp and
 * signal handlers unwind too.  A recursive function counts its outermost
 * frame only.  One stack per thread; the instruction counter is the
 * process's, so with threads a frame also counts what other threads ran
 * meanwhile. */

struct lace_frame {
	struct lace_fn_hot *fn;
	ULong start;
	Addr sp;
};

struct lace_stack {
	struct lace_frame *f;
	UInt n, cap;
};

#define MAX_FRAMES (1u << 20)
static struct lace_stack *stacks;   /* VG_N_THREADS of them */
static ThreadId current_tid = 1;    /* set whenever a thread starts running client code */

/* The current thread's top frame's stack pointer, for the helper of a
 * whole call (lace_leaf_helper: its return pops nothing when this is at or
 * above the new stack pointer); ~0 without frames, 0 when the stack is
 * full (a frame could not be pushed: the general path decides). */
static Addr top_sp = ~(Addr)0;

static void top_sync(void)
{
	const struct lace_stack *st = &stacks[current_tid];

	top_sp = st->n >= MAX_FRAMES ? 0 : st->n ? st->f[st->n - 1].sp : ~(Addr)0;
}

void lace_start_client_code(ThreadId tid, ULong blocks_done)
{
	current_tid = tid;
	top_sync();
}

void stacks_init(void)
{
	stacks = VG_(calloc)("lace.stacks", VG_N_THREADS, sizeof(*stacks));
}

/* now: the instruction count at the return.  A function's last frame
 * closing (or first opening, frame_push) marks its leaf segments: their
 * calls in between ran inside an open call of it and add nothing to its
 * inclusive count (leaf_inclusive). */
static void frame_pop(struct lace_stack *st, ULong now)
{
	struct lace_frame *fr = &st->f[--st->n];

	if (--fr->fn->active == 0) {
		fr->fn->inclusive += now - fr->start;
		for (struct lace_seg *l = fr->fn->leaves; l; l = l->w->next_leaf)
			l->w->act_fast += leaf_fast(l) - l->w->act_mark;
	}
}

ULong leaf_inclusive(const struct lace_fn_hot *fn)
{
	ULong n = 0;

	for (const struct lace_seg *l = fn->leaves; l; l = l->w->next_leaf)
		n += (leaf_fast(l) - l->w->act_fast) * (l->w->ninsn - l->w->entry_offset);
	return n;
}

static void frame_push(struct lace_stack *st, struct lace_fn_hot *fn, ULong start, Addr sp)
{
	if (st->n == st->cap) {
		if (st->cap >= MAX_FRAMES)
			return;   /* runaway recursion: stop tracking deeper */
		st->cap = st->cap ? 2 * st->cap : 64;
		st->f = VG_(realloc)("lace.stack", st->f, st->cap * sizeof(*st->f));
	}
	st->f[st->n].fn = fn;
	st->f[st->n].start = start;
	st->f[st->n].sp = sp;
	st->n++;
	if (fn->active++ == 0)
		for (struct lace_seg *l = fn->leaves; l; l = l->w->next_leaf)
			l->w->act_mark = leaf_fast(l);
}

void stacks_unwind_all(void)
{
	UInt t;

	if (!stacks)
		return;
	for (t = 0; t < VG_N_THREADS; t++)
		while (stacks[t].n)
			frame_pop(&stacks[t], model.t.instructions);
	top_sync();
}

void stacks_forget(void)
{
	UInt t;

	if (!stacks)
		return;
	for (t = 0; t < VG_N_THREADS; t++)
		stacks[t].n = 0;
	top_sync();
}

/* ---- segment helpers ---------------------------------------------------- */

/* Where a compact block's misses are counted for its function: its warm
 * line's pending counts, or nowhere (SEG_PEND; a select on the hot line,
 * not a branch). */
static inline struct sim_fn_stats *seg_pend(struct lace_seg *seg)
{
	return seg_flags(seg) & SEG_PEND ? &seg->w->pend : NULL;
}

/* A plain segment: its generated code does all but the cache lookups
 * (see seg_flush), and calls this only when a lookup can change state. */
static VG_REGPARM(1) void lace_seg_helper(struct lace_seg *seg)
{
	sim_seg_run_caches(&model, &seg->w->cold->s);
}

/* The same for a compact block, with its count of lines built in: the
 * loop then has a fixed length, which the host's branch predictor gets
 * right (see the leaf helpers below). */
#define SEG_HELPER(NL)                                                            \
	static VG_REGPARM(1) void lace_seg_helper_##NL(struct lace_seg *seg)       \
	{                                                                         \
		sim_blk_update_n(&model, &seg->b, seg_pend(seg), NL, 0);              \
	}
SEG_HELPER(1) SEG_HELPER(2) SEG_HELPER(3)
#undef SEG_HELPER

seg_helper_fn seg_helper_for(const struct lace_seg *seg)
{
	static const seg_helper_fn fixed[SIM_BLK_LINES] = {
		lace_seg_helper_1, lace_seg_helper_2, lace_seg_helper_3,
	};

	if (seg_flags(seg) & SEG_BLK)
		return fixed[seg->b.nl - 1];
	return lace_seg_helper;
}

/* The call stacks' part of a segment that starts a function and/or ends
 * in a return; before, after: the instruction count around it. */
static void seg_frames(struct lace_seg *seg, UWord sp_entry, UWord sp_now, ULong before,
		       ULong after)
{
	struct lace_stack *st = &stacks[current_tid];
	struct lace_fn_hot *fn = seg->w->entry;

	if (fn) {
		if (seg->w->ends_in_ret && sp_entry < sp_now && st->n < MAX_FRAMES) {
			/* a whole call in one segment: its frame would be
			 * pushed and popped right away (the push cannot fail,
			 * the pop takes it first) */
			if (fn->active == 0)
				fn->inclusive += after - (before + seg->w->entry_offset);
		} else {
			frame_push(st, fn, before + seg->w->entry_offset, sp_entry);
		}
	}
	if (seg->w->ends_in_ret)
		while (st->n && st->f[st->n - 1].sp < sp_now)
			frame_pop(st, after);
	top_sync();
}

/* The lookups and the fetch model of a segment whose helper always runs
 * (a call helper): its compact block when it has one (nl lines, fetch
 * kind kind: sim_blk_fetch_kind; the fetch model's constants then settled
 * by totals_sync), else (nl 0) its segment. */
static inline __attribute__((always_inline)) void call_caches(struct lace_seg *seg, UInt nl,
							      UInt kind)
{
	if (nl) {
		sim_blk_fetch_kind(&model.fetch, &seg->b, kind);
		/* no MRU test first: the lines of calls to many functions take
		 * turns in their sets */
		sim_blk_update_n(&model, &seg->b, seg_pend(seg), nl, 0);
	} else {
		sim_fetch_seg_apply(&model.fetch, &seg->w->fetch);
		sim_seg_refs_run(&model, &seg->w->cold->s, seg->w->refs, seg->w->nlines,
				 seg->w->refs + seg->w->nlines, seg->w->npages);
	}
}

/* A segment that starts a function and/or ends in a return: always
 * called (its generated code counts its instructions first). */
VG_REGPARM(3) void lace_seg_call_helper(struct lace_seg *seg, UWord sp_entry,
					       UWord sp_now)
{
	ULong after = model.t.instructions;

	seg->w->execs++;   /* lazy: the lookups and functions (totals_sync) */
	seg_frames(seg, sp_entry, sp_now, after - seg->w->ninsn, after);
	/* last: its rare slow path is a call with nothing left to do after */
	call_caches(seg, seg_flags(seg) & SEG_BLK ? seg->b.nl : 0, SIM_BLK_KIND_ANY);
}

/* A call counted in the hot line whose count wrapped: out of line, as
 * every rare case of leaf_run, which then makes no call of its own (no
 * frame, no register saved). */
static __attribute__((noinline)) void leaf_wrapped(struct lace_seg *seg)
{
	seg->w->fast_hi += (ULong)1 << 32;
	call_caches(seg, seg->b.nl, SIM_BLK_KIND_ANY);
}

/* The same for a segment that holds a whole call (a function's entry,
 * then the return from it; every call of a leaf function, mostly).  The
 * common case -- the call ran below its caller's stack pointer and the
 * return pops no older frame -- pushes and pops nothing, and counts the
 * call in the hot line (see struct lace_seg); the others are
 * lace_seg_call_helper's.  nl: the compact block's lines, 0 without one
 * (then every call takes the general path), and kind its fetch kind. */
static inline __attribute__((always_inline)) void leaf_run(struct lace_seg *seg, UWord sp_entry,
							   UWord sp_now, UInt nl, UInt kind)
{
	if (__builtin_expect(!(nl && sp_entry < sp_now && top_sp >= sp_now), 0))
		lace_seg_call_helper(seg, sp_entry, sp_now);
	else if (__builtin_expect(++seg->b.host32 == 0, 0))
		leaf_wrapped(seg);
	else
		call_caches(seg, nl, kind);
}

static VG_REGPARM(3) void lace_leaf_helper(struct lace_seg *seg, UWord sp_entry, UWord sp_now)
{
	leaf_run(seg, sp_entry, sp_now, 0, SIM_BLK_KIND_ANY);
}

/* The same with the count of lines and the fetch kind built in (a
 * compact block; F: 0, A aligned, L late): each copy's loops then run a
 * fixed number of times, which the host's branch predictor gets right,
 * where the shared loop's length changes with every call to another
 * function (1, 2 or 3 lines of code), and its fetch step tests no flag. */
#define LEAF_HELPER(NL, F)                                                            \
	static VG_REGPARM(3) void lace_leaf_helper_##NL##F(struct lace_seg *seg,      \
							  UWord sp_entry, UWord sp_now) \
	{                                                                             \
		leaf_run(seg, sp_entry, sp_now, NL, SIM_BLK_KIND_##F);                \
	}
#define LEAF_HELPER3(NL) LEAF_HELPER(NL, 0) LEAF_HELPER(NL, A) LEAF_HELPER(NL, L)
LEAF_HELPER3(1) LEAF_HELPER3(2) LEAF_HELPER3(3)
#undef LEAF_HELPER3
#undef LEAF_HELPER

/* A segment that ends in a return, without functions (SEG_RET): its
 * executions counted in the hot line as a leaf's calls are, its lookups
 * and fetch step as a call helper's, no frames. */
static inline __attribute__((always_inline)) void ret_run(struct lace_seg *seg, UInt nl,
							  UInt kind)
{
	if (__builtin_expect(++seg->b.host32 == 0, 0))
		leaf_wrapped(seg);
	else
		call_caches(seg, nl, kind);
}

#define RET_HELPER(NL, F)                                                         \
	static VG_REGPARM(1) void lace_ret_helper_##NL##F(struct lace_seg *seg)   \
	{                                                                         \
		ret_run(seg, NL, SIM_BLK_KIND_##F);                               \
	}
#define RET_HELPER3(NL) RET_HELPER(NL, 0) RET_HELPER(NL, A) RET_HELPER(NL, L)
RET_HELPER3(1) RET_HELPER3(2) RET_HELPER3(3)
#undef RET_HELPER3
#undef RET_HELPER

seg_helper_fn ret_helper_for(const struct lace_seg *seg)
{
#define KINDS(NL) { lace_ret_helper_##NL##0, lace_ret_helper_##NL##A, lace_ret_helper_##NL##L }
	static const seg_helper_fn fixed[SIM_BLK_LINES][3] = { KINDS(1), KINDS(2), KINDS(3) };
#undef KINDS

	tl_assert(seg_flags(seg) & SEG_BLK);
	return fixed[seg->b.nl - 1][sim_blk_kind(&seg->b)];
}

leaf_helper_fn leaf_helper_for(const struct lace_seg *seg)
{
#define KINDS(NL) { lace_leaf_helper_##NL##0, lace_leaf_helper_##NL##A, lace_leaf_helper_##NL##L }
	static const leaf_helper_fn fixed[SIM_BLK_LINES][3] = { KINDS(1), KINDS(2), KINDS(3) };
#undef KINDS

	if (seg_flags(seg) & SEG_BLK)
		return fixed[seg->b.nl - 1][sim_blk_kind(&seg->b)];
	return lace_leaf_helper;
}
