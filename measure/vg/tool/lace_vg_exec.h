/* lace-vg at execution time (lace_vg_exec.c): functions, call stacks and
 * the helpers a segment's generated code calls; what lace_vg_main.c
 * builds segments and results with. */
#ifndef LACE_SIM_VG_LACE_VG_EXEC_H
#define LACE_SIM_VG_LACE_VG_EXEC_H

#include "pub_tool_basics.h"

#include "measure/model/model.h"

/* What the call stacks update on every call.  It lives in the hot part
 * of the function's first entry segment (struct lace_seg), on the host
 * cache line the helper of a call reads anyway; later entry segments of
 * the function point at it. */
struct lace_seg;
struct lace_fn_hot {
	ULong inclusive;   /* instructions from entry to return, callees included */
	UInt active;       /* frames of it on the call stacks (recursion) */
	struct lace_seg *leaves;   /* its leaf segments (see struct lace_seg) */
};

struct lace_fn {
	struct sim_fn_stats stats;
	struct lace_fn_hot *hot;   /* NULL until a segment holds its entry */
	struct lace_fn *next;
	UInt hash;
	HChar name[];
};

#define FN_BUCKETS 8192
/* every function seen, by name hash */
extern struct lace_fn *fn_table[FN_BUCKETS];
/* The function holding a (its debug-info name, "???" without one);
 * *entry: a is its first instruction. */
struct lace_fn *fn_of(DiEpoch ep, Addr a, Bool *entry);

/* A segment as the tool keeps it, in three parts.  The hot one is one
 * 64-byte host cache line, carved with the others from a dense arena (a
 * loop's or a program's segments share as few host cache lines as
 * possible): the model's compact block (struct sim_blk: the fetch states,
 * the kept lookups and their hints) when the segment fits one (SEG_BLK),
 * and the warm part's address; it is all a helper reads on a call that
 * hits.  The warm one (struct lace_seg_warm, near the model: the
 * generated code counts executions there) holds the pending misses, the
 * counts, the function entry, the fetch summary and the kept lookups as
 * the model's segment has them; the cold one (struct lace_seg_cold) holds
 * the model's segment (whose lines and pages point at the warm copy of
 * the lookups) and the rest.
 *
 * A leaf segment (SEG_LEAF: a function's entry, then a return from it, a
 * whole call) counts its calls that need no frame in b.host32, and
 * nothing else: its executions' constants -- lookups, fetch entries,
 * function counts, and the inclusive count, the call's own instructions
 * when no frame of its function is open -- are settled from the count
 * (totals_sync, leaf_inclusive), the frames' pushes and pops noting how
 * many of them ran while one was (act_mark, act_fast). */
#define SEG_BLK  1u   /* b is usable */
#define SEG_LEAF 2u   /* a whole call (leaf_helper_for) */
#define SEG_CALL 4u   /* starts a function or ends in a return: a call
		       * helper (its fetch constants are settled) */
#define SEG_RET  8u   /* without functions, a compact block that ends in a
		       * return: always called, counted in the hot line
		       * (ret_helper_for; its fetch constants are settled) */
#define SEG_PEND 16u  /* b's misses go to a function (pend_to): counted in
		       * w->pend.  Without it the helpers count them in the
		       * model's totals alone, and do not write the warm line
		       * (a host cache miss on most of a large program's
		       * misses, lace stat's default mode) */
#define seg_flags(seg) ((seg)->b.host8[0])
struct lace_seg_cold;
struct lace_seg_warm;
struct lace_seg {
	struct sim_blk b;           /* with SEG_BLK; b.host32: a leaf's calls counted there */
	struct lace_seg_warm *w;
};

struct lace_seg_warm {
	struct lace_seg_cold *cold;
	struct sim_fn_stats pend;   /* b's misses, not yet in pend_to */
	struct sim_fn_stats *pend_to;   /* b's function's counters, or NULL */
	ULong execs;                /* executions not yet in cold->s.execs (but b.host32's) */
	ULong fast_hi;              /* b.host32's wraps, times 2^32 */
	ULong fast_done;            /* b.host32's calls settled into cold->s.execs */
	ULong act_mark, act_fast;   /* leaf_fast() when its function's first frame was
				     * pushed; summed over the times one was open */
	struct lace_seg *next_leaf; /* the function's next leaf segment */
	struct lace_fn_hot *entry;  /* non-NULL: one instruction is a function's entry */
	UInt ninsn;
	UInt entry_offset;          /* how many instructions of the segment precede it */
	UShort nlines, npages;
	Bool ends_in_ret;
	struct lace_fn_hot own;     /* the entry's function's, when this is its
				     * first entry segment */
	struct sim_fetch_seg fetch;
	struct sim_ref refs[];      /* nlines lines, then npages pages */
};

/* A leaf segment's calls that needed no frame, since the counts were
 * last reset. */
static inline ULong leaf_fast(const struct lace_seg *seg)
{
	return seg->w->fast_done + seg->w->fast_hi + seg->b.host32;
}

struct lace_seg_cold {
	struct sim_seg s;
	struct lace_seg *hot;
	struct lace_seg_cold *next_all;  /* every segment, for settling the lazy counts */
};

/* One call stack per thread (VG_N_THREADS). */
void stacks_init(void);
/* Pop every frame (at exit: each open call counts up to now). */
void stacks_unwind_all(void);
/* Drop every frame without counting it (a forked child). */
void stacks_forget(void);
/* Valgrind's start_client_code: which thread's stack the helpers use. */
void lace_start_client_code(ThreadId tid, ULong blocks_done);

/* The instructions of the calls a function's leaf segments counted (its
 * frames all popped). */
ULong leaf_inclusive(const struct lace_fn_hot *fn);

/* The helper of a plain segment (guarded by the generated code) and of a
 * segment holding a whole call, specialised on the segment's lookup
 * counts where that pays. */
typedef VG_REGPARM(1) void (*seg_helper_fn)(struct lace_seg *);
typedef VG_REGPARM(3) void (*leaf_helper_fn)(struct lace_seg *, UWord, UWord);
seg_helper_fn seg_helper_for(const struct lace_seg *seg);
leaf_helper_fn leaf_helper_for(const struct lace_seg *seg);
/* The helper of a SEG_RET segment (a compact block's). */
seg_helper_fn ret_helper_for(const struct lace_seg *seg);
/* The helper of any other segment that starts a function or ends in a
 * return (pushes and pops frames). */
VG_REGPARM(3) void lace_seg_call_helper(struct lace_seg *seg, UWord sp_entry, UWord sp_now);

#endif
