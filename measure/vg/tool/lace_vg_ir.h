/* lace-vg's generated code (lace_vg_ir.c): IR emitted per segment so that
 * the common case updates the model without a helper call. */
#ifndef LACE_SIM_VG_LACE_VG_IR_H
#define LACE_SIM_VG_LACE_VG_IR_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "measure/model/model.h"

/* The one model of the tool (lace_vg_main.c owns it). */
extern struct sim_model model;

/* A new superblock: the model's base address is loaded again in it. */
void ir_model_base_reset(void);
/* The condition for calling the cache helper: some kept lookup of s is
 * not the most recently used tag of its set; NULL: always call. */
IRExpr *ir_cache_guard(IRSB *sb, const struct sim_seg *s);
/* The instruction count, as generated code (for a segment whose helper
 * always runs). */
void ir_add_instructions(IRSB *sb, UInt n);
/* What sim_seg_run() does besides the cache lookups, as generated code;
 * s's pending executions are counted in *execs. */
void ir_seg_counts(IRSB *sb, const struct sim_seg *s, ULong *execs);
/* Is e the test of a failed compare-and-swap (CasCmpNE: VEX's own op for
 * it, so that tools can tell it from other compares)? */
Bool ir_cas_failure(const IRExpr *e);

#endif
