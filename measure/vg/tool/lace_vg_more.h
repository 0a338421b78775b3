/* lace-vg's other CPU profiles (lace_vg_more.c): --lace-more=... models
 * one more front end beside the first on the same segments, in the same
 * run (`lace stat --backend sim --cpu-profile A,B`).  Their events only:
 * the functions, call stacks and recording are the first profile's. */
#ifndef LACE_SIM_VG_LACE_VG_MORE_H
#define LACE_SIM_VG_LACE_VG_MORE_H

#include "pub_tool_basics.h"

#include "measure/model/model.h"
#include "measure/vg/tool/lace_vg_out.h"

#define MORE_MAX 7

struct lace_more {
	const HChar *name;
	struct sim_config cfg;
	struct sim_model m;
	struct sim_totals inherited;
	struct sim_totals window_start;   /* m.t at the open mark */
	struct sim_totals window_sum;     /* of the closed windows */
};
extern struct lace_more more[MORE_MAX];
extern UInt nmore;

/* --lace-more=NAME:SIZE,WAYS,LINE:ENTRIES,WAYS:ENTRIES,WAYS:PAGE:FETCH
 * (the L1i, iTLB, STLB, page and fetch block), repeatable; False when arg
 * is not one. */
Bool more_option(const HChar *arg);
/* After the options: the models (a bad geometry is a usage error). */
void more_init(void);

/* A segment's parts for the other profiles: compiled from its n
 * instructions (sa, sl: scratch of n entries), kept for the process. */
struct lace_seg_x;
struct lace_seg_x *more_seg_build(const struct sim_insn *insns, UInt n, uint64_t *sa,
				  uint32_t *sl);
/* One execution of a segment in the other profiles' models (the helper
 * every segment calls when there are any). */
VG_REGPARM(1) void lace_more_helper(struct lace_seg_x *x);

/* The models' totals, up to date (the fetch model's own counters). */
void more_totals_sync(void);
/* The window marks, a fork (what the parent had, then zero), an exec. */
void more_window_open(void);
void more_window_close(void);
void more_window_reset(void);
void more_fork_child(void);
void more_reset_counts(void);
/* Each model's lines of the result file: "more K NAME", then its totals
 * as "mK-..." (and "mK-window-...", "mK-inherited-..." as the first's). */
void more_print(struct outbuf *o, Bool inherited, UInt windows, Bool window_open);

#endif
