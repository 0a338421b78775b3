/* lace-vg's generated code: the IR that updates the model in place for a
 * segment (its counts, the fetch model), the guard that decides whether
 * the cache helper must run at all, and the call of the helper that fits
 * the segment (ir_seg_call; lace_vg_main.c's seg_flush adds it).  Split
 * from lace_vg_main.c, which instruments superblocks and keeps the
 * functions, stacks and output. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcprint.h"
#include "libvex_guest_offsets.h"

#include "measure/model/model.h"
#include "measure/vg/tool/lace_vg_exec.h"
#include "measure/vg/tool/lace_vg_ir.h"


static IRExpr *ir_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

static IRExpr *ir_c64(ULong v)
{
	return IRExpr_Const(IRConst_U64(v));
}

/* The model's address, loaded once per superblock into a temporary
 * (model_base) so that its fields, and whatever lies within a gigabyte of
 * it, are reached as base + offset: a 64-bit constant address costs a
 * 10-byte instruction per access. */
static struct sim_model *const model_addr = &model;
static IRTemp model_base = IRTemp_INVALID;

/* $LACE_VG_NULL_MODEL set: every segment calls an empty helper and adds
 * no code of its own (bench/bench_sim.sh's floor of the instrumentation:
 * what one helper call per segment costs, nothing modelled, every count
 * 0), as the plugin's $LACE_TCG_NULL_EXEC. */
static Bool null_model;

void ir_init(void)
{
	null_model = VG_(getenv)("LACE_VG_NULL_MODEL") != NULL;
	if (null_model)
		VG_(umsg)("lace-vg: LACE_VG_NULL_MODEL is set: nothing is modelled, every count is 0\n");
}

static VG_REGPARM(1) void lace_null_helper(struct lace_seg *seg)
{
	(void)seg;
}

void ir_model_base_reset(void)
{
	model_base = IRTemp_INVALID;
}

static IRExpr *ir_addr(IRSB *sb, const void *p)
{
	Long off = (Long)((HWord)p - (HWord)&model);

	/* the model and what the tool keeps next to it in its own static
	 * memory (lace_vg_main.c's pools: tags, hot segment parts) */
	if (off < -(1LL << 30) || off >= (1LL << 30))
		return mkIRExpr_HWord((HWord)p);
	if (model_base == IRTemp_INVALID) {
		model_base = newIRTemp(sb->tyenv, Ity_I64);
		addStmtToIRSB(sb, IRStmt_WrTmp(model_base,
					       IRExpr_Load(Iend_LE, Ity_I64,
							   mkIRExpr_HWord((HWord)&model_addr))));
	}
	return ir_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(model_base),
						 mkIRExpr_HWord((HWord)off)));
}

static IRExpr *ir_ld64(IRSB *sb, const void *p)
{
	return ir_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, ir_addr(sb, p)));
}

static void ir_st64(IRSB *sb, void *p, IRExpr *v)
{
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, ir_addr(sb, p), v));
}

static IRExpr *ir_op(IRSB *sb, IROp op, IRExpr *a, IRExpr *b)
{
	return ir_tmp(sb, Ity_I64, IRExpr_Binop(op, a, b));
}

/* 64-bit 1 when the bit b is set */
static IRExpr *ir_bit64(IRSB *sb, IRExpr *b)
{
	return ir_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64, b));
}

static void ir_add64(IRSB *sb, void *p, ULong k)
{
	if (k)
		ir_st64(sb, p, ir_op(sb, Iop_Add64, ir_ld64(sb, p), ir_c64(k)));
}

/* Most kept lookups a segment's call is guarded by; longer segments call
 * their helper every time. */
#define MAX_GUARD_REFS 8

/* The condition for calling the cache helper: some kept lookup is not the
 * most recently used tag of its set.  When each is, each is a hit that
 * changes nothing (a hit on the MRU tag leaves the set as it is, so the
 * later lookups see the state the test saw) and the call would do nothing.
 * NULL: call always. */
static IRExpr *ir_cache_guard(IRSB *sb, const struct sim_seg *s)
{
	IRExpr *acc = NULL;
	UInt i;

	if (s->nlines + s->npages > MAX_GUARD_REFS)
		return NULL;
	for (i = 0; i < s->nlines + s->npages; i++) {
		const struct sim_ref *r = i < s->nlines ? &s->lines[i] : &s->pages[i - s->nlines];
		const uint64_t *mru = i < s->nlines ? model.l1i.mru : model.itlb.mru;
		IRExpr *x = ir_op(sb, Iop_Xor64, ir_ld64(sb, &mru[r->insn]), ir_c64(r->block));
		acc = acc ? ir_op(sb, Iop_Or64, acc, x) : x;
	}
	return ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, acc, ir_c64(0)));
}

static void ir_add_instructions(IRSB *sb, UInt n)
{
	ir_add64(sb, &model.t.instructions, n);
}

/* What sim_seg_run() does besides the cache lookups, as generated code:
 * the instruction count, the lazy executions (counted in *execs, from
 * which totals_sync derives the lookups) and the fetch model
 * (sim_fetch_seg_apply). */
static void ir_seg_counts(IRSB *sb, const struct sim_seg *s, ULong *execs)
{
	const struct sim_fetch_seg *fs = &s->fetch;
	struct sim_fetch *f = &model.fetch;
	IRExpr *d, *jump, *e, *l;

	ir_add64(sb, &model.t.instructions, s->ninsn);
	ir_add64(sb, execs, 1);   /* lookups and functions: totals_sync */

	/* sim_fetch_seg_apply: d = state ^ first_state; a jump when d > 1.
	 * Either the run falls through into a new block from a non-empty
	 * instruction (seq_entries = jump_entries: d != 1 adds one) or not
	 * (seq_entries = empty_entries: d > 1 adds one). */
	d = ir_op(sb, Iop_Xor64, ir_ld64(sb, &f->state), ir_c64(fs->first_state));
	jump = ir_bit64(sb, ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, ir_c64(1), d)));
	if (fs->seq_entries == fs->jump_entries)
		e = ir_bit64(sb, ir_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, d, ir_c64(1))));
	else
		e = jump;
	e = ir_op(sb, Iop_Add64, e, ir_ld64(sb, &f->entries));
	e = ir_op(sb, Iop_Add64, e, ir_c64(fs->empty_entries));
	ir_st64(sb, &f->entries, e);
	/* late += seq_late + (a jump ? jump_late - seq_late : 0) */
	if (fs->jump_late || fs->seq_late) {
		l = ir_op(sb, Iop_Add64, ir_ld64(sb, &f->late), ir_c64(fs->seq_late));
		if (fs->jump_late != fs->seq_late)
			l = ir_op(sb, Iop_Add64, l, fs->jump_late - fs->seq_late == 1 ? jump :
				  ir_op(sb, Iop_Mul64, jump, ir_c64(fs->jump_late - fs->seq_late)));
		ir_st64(sb, &f->late, l);
	}
	ir_st64(sb, &f->state, ir_c64(fs->last_state));
}


/* The generated code of a segment (seg, whose model segment is s) up to
 * the call of its helper, which is returned for the caller to add after
 * what must run first (the other profiles' call, the recording's).  A
 * segment that starts a function or ends in a return counts its
 * instructions and calls its call or leaf helper with the stack pointers
 * (entry_sp: the temporary holding it at the function's entry); a
 * SEG_RET segment counts its instructions and calls its helper; a plain
 * segment runs its counts and fetch step here and calls its helper only
 * when the guard says a lookup can change state. */
IRDirty *ir_seg_call(IRSB *sb, struct lace_seg *seg, const struct sim_seg *s, IRTemp entry_sp)
{
	IRDirty *di;

	if (null_model)
		return unsafeIRDirty_0_N(1, "lace_null_helper",
					 VG_(fnptr_to_fnentry)(&lace_null_helper),
					 mkIRExprVec_1(mkIRExpr_HWord((HWord)seg)));
	if (seg->w->entry || seg->w->ends_in_ret) {
		/* the instructions first: the helper's frames read them */
		ir_add_instructions(sb, s->ninsn);
		IRExpr *sp_entry = seg->w->entry ? IRExpr_RdTmp(entry_sp) : mkIRExpr_HWord(0);
		IRExpr *sp_now = mkIRExpr_HWord(0);
		if (seg->w->ends_in_ret) {
			/* after the ret's own statements: the stack pointer the
			 * caller sees */
			IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
			addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
			sp_now = IRExpr_RdTmp(t);
		}
		if (seg->w->entry && seg->w->ends_in_ret)
			di = unsafeIRDirty_0_N(3, "lace_leaf_helper",
					       VG_(fnptr_to_fnentry)(leaf_helper_for(seg)),
					       mkIRExprVec_3(mkIRExpr_HWord((HWord)seg), sp_entry,
							     sp_now));
		else
			di = unsafeIRDirty_0_N(3, "lace_seg_call_helper",
					       VG_(fnptr_to_fnentry)(&lace_seg_call_helper),
					       mkIRExprVec_3(mkIRExpr_HWord((HWord)seg), sp_entry,
							     sp_now));
	} else if (seg_flags(seg) & SEG_RET) {
		ir_add_instructions(sb, s->ninsn);
		di = unsafeIRDirty_0_N(1, "lace_ret_helper",
				       VG_(fnptr_to_fnentry)(ret_helper_for(seg)),
				       mkIRExprVec_1(mkIRExpr_HWord((HWord)seg)));
	} else {
		IRExpr *guard;

		/* the counts first: the guard's loads, behind the last store,
		 * then fold into the call's condition (VEX's tree builder
		 * moves no load past a store) */
		ir_seg_counts(sb, s, &seg->w->execs);
		guard = ir_cache_guard(sb, s);
		di = unsafeIRDirty_0_N(1, "lace_seg_helper",
				       VG_(fnptr_to_fnentry)(seg_helper_for(seg)),
				       mkIRExprVec_1(mkIRExpr_HWord((HWord)seg)));
		if (guard)
			di->guard = guard;
	}
	return di;
}

Bool ir_cas_failure(const IRExpr *e)
{
	return e->tag == Iex_Binop && (e->Iex.Binop.op == Iop_CasCmpNE8 ||
				       e->Iex.Binop.op == Iop_CasCmpNE16 ||
				       e->Iex.Binop.op == Iop_CasCmpNE32 ||
				       e->Iex.Binop.op == Iop_CasCmpNE64);
}
