/* lace-vg's generated code (lace_vg_ir.c): IR emitted per segment so that
 * the common case updates the model without a helper call. */
#ifndef LACE_SIM_VG_LACE_VG_IR_H
#define LACE_SIM_VG_LACE_VG_IR_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "measure/model/model.h"

/* The one model of the tool (lace_vg_main.c owns it). */
extern struct sim_model model;

/* Read the environment (after the command line). */
void ir_init(void);
/* A new superblock: the model's base address is loaded again in it. */
void ir_model_base_reset(void);
struct lace_seg;
/* The generated code of segment seg (model segment s) up to its helper's
 * call, returned for the caller to add last; entry_sp: the temporary of
 * the stack pointer at its function's entry, when it has one. */
IRDirty *ir_seg_call(IRSB *sb, struct lace_seg *seg, const struct sim_seg *s, IRTemp entry_sp);
/* Is e the test of a failed compare-and-swap (CasCmpNE: VEX's own op for
 * it, so that tools can tell it from other compares)? */
Bool ir_cas_failure(const IRExpr *e);

#endif
