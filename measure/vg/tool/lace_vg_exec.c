/* lace-vg at execution time: the functions the events are attributed
 * to, the call stacks behind inclusive counts, and the helpers the
 * generated code calls for a segment (lace_vg_main.c instruments the
 * superblocks and writes the results; lace_vg_ir.c emits the inline
 * part).  Split from lace_vg_main.c: what runs per segment at execution
 * time is one job, instrumenting and output another. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
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

/* now: the instruction count at the return */
static void frame_pop(struct lace_stack *st, ULong now)
{
	struct lace_frame *fr = &st->f[--st->n];

	if (--fr->fn->active == 0)
		fr->fn->inclusive += now - fr->start;
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
	fn->active++;
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

/* A plain segment: its generated code does all but the cache lookups
 * (see seg_flush), and calls this only when a lookup can change state. */
static VG_REGPARM(1) void lace_seg_helper(struct lace_seg *seg)
{
	sim_seg_run_caches(&model, &seg->cold->s);
}

/* The same with the counts of lookups built in, for the common ones (see
 * the leaf helpers below: a loop of fixed length is predicted right). */
#define SEG_HELPER(NL, NP)                                                        \
	static VG_REGPARM(1) void lace_seg_helper_##NL##_##NP(struct lace_seg *seg) \
	{                                                                         \
		sim_seg_refs_run(&model, &seg->cold->s, seg->refs, NL, seg->refs + NL, NP); \
	}
SEG_HELPER(1, 1) SEG_HELPER(2, 1) SEG_HELPER(3, 1) SEG_HELPER(4, 1)
SEG_HELPER(1, 2) SEG_HELPER(2, 2) SEG_HELPER(3, 2) SEG_HELPER(4, 2)
#undef SEG_HELPER

seg_helper_fn seg_helper_for(const struct lace_seg *seg)
{
	static const seg_helper_fn fixed[2][4] = {
		{ lace_seg_helper_1_1, lace_seg_helper_2_1, lace_seg_helper_3_1,
		  lace_seg_helper_4_1 },
		{ lace_seg_helper_1_2, lace_seg_helper_2_2, lace_seg_helper_3_2,
		  lace_seg_helper_4_2 },
	};

	if (seg->nlines >= 1 && seg->nlines <= 4 && seg->npages >= 1 && seg->npages <= 2)
		return fixed[seg->npages - 1][seg->nlines - 1];
	return lace_seg_helper;
}

/* The call stacks' part of a segment that starts a function and/or ends
 * in a return; before, after: the instruction count around it. */
static void seg_frames(struct lace_seg *seg, UWord sp_entry, UWord sp_now, ULong before,
		       ULong after)
{
	struct lace_stack *st = &stacks[current_tid];
	struct lace_fn_hot *fn = seg->entry;

	if (fn) {
		if (seg->ends_in_ret && sp_entry < sp_now && st->n < MAX_FRAMES) {
			/* a whole call in one segment: its frame would be
			 * pushed and popped right away (the push cannot fail,
			 * the pop takes it first) */
			if (fn->active == 0)
				fn->inclusive += after - (before + seg->entry_offset);
		} else {
			frame_push(st, fn, before + seg->entry_offset, sp_entry);
		}
	}
	if (seg->ends_in_ret)
		while (st->n && st->f[st->n - 1].sp < sp_now)
			frame_pop(st, after);
	top_sync();
}

/* A segment that starts a function and/or ends in a return: always
 * called, so it runs the whole segment itself (sim_seg_run(), inline: one
 * call per function call is the tool's hottest path). */
VG_REGPARM(3) void lace_seg_call_helper(struct lace_seg *seg, UWord sp_entry,
					       UWord sp_now)
{
	ULong before = model.t.instructions;
	ULong after = before + seg->ninsn;

	model.t.instructions = after;
	seg->execs++;   /* lazy: the lookups and functions (totals_sync) */
	sim_fetch_seg_apply(&model.fetch, &seg->fetch);
	seg_frames(seg, sp_entry, sp_now, before, after);
	/* last: its rare slow path is a call with nothing left to do after */
	sim_seg_refs_run(&model, &seg->cold->s, seg->refs, seg->nlines, seg->refs + seg->nlines,
			 seg->npages);
}

/* The same for a segment that holds a whole call (a function's entry,
 * then the return from it; every call of a leaf function, mostly): the
 * common case -- the call ran below its caller's stack pointer and the
 * return pops no older frame -- pushes and pops nothing, and only adds
 * the call to the function's inclusive count when no frame of it is open
 * (the general path would push the frame and pop it right away). */
static inline __attribute__((always_inline)) void leaf_run(struct lace_seg *seg, UWord sp_entry,
							   UWord sp_now, UInt nlines, UInt npages)
{
	ULong before = model.t.instructions;
	ULong after = before + seg->ninsn;

	model.t.instructions = after;
	seg->execs++;
	sim_fetch_seg_apply(&model.fetch, &seg->fetch);
	if (__builtin_expect(sp_entry < sp_now && top_sp >= sp_now, 1)) {
		struct lace_fn_hot *fn = seg->entry;
		if (fn->active == 0)
			fn->inclusive += seg->ninsn - seg->entry_offset;
	} else {
		seg_frames(seg, sp_entry, sp_now, before, after);
	}
	sim_seg_refs_run(&model, &seg->cold->s, seg->refs, nlines, seg->refs + nlines, npages);
}

static VG_REGPARM(3) void lace_leaf_helper(struct lace_seg *seg, UWord sp_entry, UWord sp_now)
{
	leaf_run(seg, sp_entry, sp_now, seg->nlines, seg->npages);
}

/* The same with the counts of lookups built in, for the common ones: each
 * copy's loops then run a fixed number of times, which the host's branch
 * predictor gets right, where the shared loop's length changes with every
 * call to another function (1, 2 or 3 lines of code). */
#define LEAF_HELPER(NL, NP)                                                           \
	static VG_REGPARM(3) void lace_leaf_helper_##NL##_##NP(struct lace_seg *seg,  \
							      UWord sp_entry, UWord sp_now) \
	{                                                                             \
		leaf_run(seg, sp_entry, sp_now, NL, NP);                              \
	}
LEAF_HELPER(1, 1) LEAF_HELPER(2, 1) LEAF_HELPER(3, 1) LEAF_HELPER(4, 1)
LEAF_HELPER(1, 2) LEAF_HELPER(2, 2) LEAF_HELPER(3, 2) LEAF_HELPER(4, 2)
#undef LEAF_HELPER

leaf_helper_fn leaf_helper_for(const struct lace_seg *seg)
{
	static const leaf_helper_fn fixed[2][4] = {
		{ lace_leaf_helper_1_1, lace_leaf_helper_2_1, lace_leaf_helper_3_1,
		  lace_leaf_helper_4_1 },
		{ lace_leaf_helper_1_2, lace_leaf_helper_2_2, lace_leaf_helper_3_2,
		  lace_leaf_helper_4_2 },
	};

	if (seg->nlines >= 1 && seg->nlines <= 4 && seg->npages >= 1 && seg->npages <= 2)
		return fixed[seg->npages - 1][seg->nlines - 1];
	return lace_leaf_helper;
}
