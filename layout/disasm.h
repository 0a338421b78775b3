/* Branch decoding: fills img->branches (sorted by address) and each
 * function's first_branch/nbranches, with func, region, target_region and
 * target_func resolved.
 *
 * What is decoded, and why it matches `objdump -d`: every code section with
 * contents, from its start to its end, restarting at every named symbol in
 * it (markers and local labels too) exactly as objdump does, skipping
 * STT_OBJECT ranges and runs of zero bytes the way objdump skips them.  So a
 * branch may lie outside every function (PLT stubs, asm without a function
 * symbol): its func is -1.
 *
 * Kinds: direct jumps, conditional jumps (x86 jcc/jrcxz/loop/xbegin, ppc bc
 * with a condition), direct calls (ppc: any branch with LK=1 and a static
 * target), indirect jumps, indirect calls, returns (x86 ret/lret/iret/sysret,
 * ppc blr and its conditional forms).  A direct jmp/call to an x86 kernel
 * thunk is what the source meant, not what the bytes say: `jmp
 * __x86_return_thunk` (and the other return thunks) is a ret, a call/jmp to
 * `__x86_indirect_thunk_*` (and the call/jump/its thunk families) is an
 * indirect call/jump.  Such branches keep no target (has_target false): their
 * real destination is dynamic.  In a relocatable file (.o, .ko) a direct
 * branch relocated against a symbol the file does not define (a call out of
 * a module) keeps its kind but has no target either, unless the symbol is
 * one of those thunks (then ret / indirect as above).
 *
 * x86-64 is decoded by a table-driven length/branch decoder (disasm_x86.c)
 * that hands every instruction it does not fully know to libopcodes, so the
 * result is libopcodes' own; LACE_DISASM=libopcodes in the environment makes
 * libopcodes decode everything (the reference the tests compare against).
 * ppc64 (both endians) uses libopcodes for instruction boundaries and
 * decodes the I-form/B-form/XL-form branch words itself.  Other
 * architectures: no branches, one warning line in img->warnings. */
#ifndef LACE_LAYOUT_DISASM_H
#define LACE_LAYOUT_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/image.h"

/* Decode the image's code (see above); run after sections, symbols,
 * functions and regions are loaded.  Returns 0 (also for an
 * architecture without a decoder: then img->disassembled stays false and a
 * warning is added) or a negative code with lace_error_msg() set. */
int image_disassemble(struct lace_image *img);

/* "jump", "cond", "call", "indirect-jump", "indirect-call", "ret" (the CSV
 * and JSON spelling); "?" for an out-of-range value. */
const char *branch_kind_name(enum lace_branch_kind kind);
/* The inverse; -1 when name is none of those. */
int branch_kind_parse(const char *name);
/* Direct = a jump, cond or call with a known target. */
static inline bool branch_is_direct(const struct lace_branch *b)
{
	return b->has_target && (b->kind == LACE_BR_JUMP || b->kind == LACE_BR_COND ||
				 b->kind == LACE_BR_CALL);
}

/* ---- buffer-level decoder (image_disassemble's engine; tests use it) ---- */

struct branch_vec {
	struct lace_branch *v;
	size_t n, alloc;
};
void branch_vec_release(struct branch_vec *bv);

enum disasm_engine {
	DISASM_ENGINE_AUTO = 0,   /* fast x86 path with libopcodes fallback; $LACE_DISASM */
	DISASM_ENGINE_LIBOPCODES, /* libopcodes for every instruction */
	DISASM_ENGINE_FAST,       /* same as AUTO, ignoring the environment */
};

struct disasm;
/* A decoder for arch; NULL (lace_error_msg set) when lace has none for it. */
struct disasm *disasm_new(enum lace_arch arch, enum disasm_engine engine);
void disasm_free(struct disasm *d);

/* Decode buf, which holds the bytes of [vma, vma + len), from address start
 * up to stop (one symbol-to-symbol chunk: decoding restarts at start and an
 * instruction that would cross stop ends the chunk, as in objdump).  Each
 * branch is appended to out with func/region/target_* set to -1.  Returns
 * the number of instructions decoded. */
size_t disasm_chunk(struct disasm *d, const uint8_t *buf, size_t len, uint64_t vma,
		    uint64_t start, uint64_t stop, struct branch_vec *out);

/* Decode the one instruction at the start of buf (len bytes, at address
 * vma), appending it to out when it is a branch; returns its length, or
 * <= 0 when it cannot be decoded. */
int disasm_one(struct disasm *d, const uint8_t *buf, size_t len, uint64_t vma,
	       struct branch_vec *out);

/* How many instructions the fast x86 path decoded and how many it handed to
 * libopcodes since disasm_new (for the benchmark and the cross-check test). */
void disasm_counts(const struct disasm *d, size_t *fast, size_t *slow);

/* ---- single instructions (disasm_x86.c, disasm_insn.c) ---- */

struct x86_insn {
	bool branch;              /* a jump, call or return */
	bool has_target;          /* direct: target = next insn address + rel */
	enum lace_branch_kind kind;
	int64_t rel;
};
/* Length of the x86-64 instruction at p (avail bytes readable) with its
 * branch class, or 0 when the table decoder does not know it for certain
 * (then libopcodes decides).  Never reads past p[avail - 1]. */
unsigned x86_decode_fast(const uint8_t *p, size_t avail, struct x86_insn *out);

/* Classify one ppc instruction word at pc: true for a branch, with kind,
 * has_target and target set (I-form b/bl, B-form bc*, XL-form blr/bctr/btar). */
bool disasm_ppc_word(uint32_t w, uint64_t pc, enum lace_branch_kind *kind, bool *has_target,
		     uint64_t *target);

/* ---- kernel thunks ---- */

enum disasm_thunk {
	DISASM_THUNK_NONE = 0,
	DISASM_THUNK_RET,      /* __x86_return_thunk and friends */
	DISASM_THUNK_INDIRECT, /* __x86_indirect_thunk_<reg> and friends */
};
enum disasm_thunk disasm_thunk_kind(const char *symbol_name);

/* Reclassify direct jumps/calls of b[0..n) whose target is in ret[] (sorted)
 * as returns and those whose target is in ind[] (sorted) as indirect
 * jumps/calls; both lose their target.  Returns how many changed. */
size_t branches_apply_thunks(struct lace_branch *b, size_t n, const uint64_t *ret, size_t nret,
			     const uint64_t *ind, size_t nind);

#endif
