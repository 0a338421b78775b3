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
struct lace_fn_hot {
	ULong inclusive;   /* instructions from entry to return, callees included */
	UInt active;       /* frames of it on the call stacks (recursion) */
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

/* A segment as the tool keeps it, in two parts.  The hot one holds what
 * the helpers of calls read every time -- counts, function entry, fetch
 * summary, then the kept lookups themselves -- in two or three host cache
 * lines (64-byte aligned, carved from chunks of their own); the cold one
 * holds the model's segment (its lines and pages point at the hot copy of
 * the lookups) and the rest. */
struct lace_seg_cold;
struct lace_seg {
	ULong execs;                /* executions not yet in cold->s.execs */
	struct lace_fn_hot *entry;  /* non-NULL: one instruction is a function's entry */
	struct lace_seg_cold *cold;
	UInt ninsn;
	UInt entry_offset;          /* how many instructions of the segment precede it */
	UShort nlines, npages;
	Bool ends_in_ret;
	struct lace_fn_hot own;     /* the entry's function's, when this is its
				     * first entry segment */
	struct sim_fetch_seg fetch;
	struct sim_ref refs[];      /* nlines lines, then npages pages */
};

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

/* The helper of a plain segment (guarded by the generated code) and of a
 * segment holding a whole call, specialised on the segment's lookup
 * counts where that pays. */
typedef VG_REGPARM(1) void (*seg_helper_fn)(struct lace_seg *);
typedef VG_REGPARM(3) void (*leaf_helper_fn)(struct lace_seg *, UWord, UWord);
seg_helper_fn seg_helper_for(const struct lace_seg *seg);
leaf_helper_fn leaf_helper_for(const struct lace_seg *seg);
/* The helper of any other segment that starts a function or ends in a
 * return (pushes and pops frames). */
VG_REGPARM(3) void lace_seg_call_helper(struct lace_seg *seg, UWord sp_entry, UWord sp_now);

#endif
