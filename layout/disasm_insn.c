/* The instruction-level engine behind image_disassemble(): walks one
 * symbol-to-symbol chunk of code the way objdump's disassemble_bytes() does
 * (zero runs skipped, a failed decode ends the chunk) and records branches.
 *
 * libopcodes does all text formatting inside its print_insn, so the output
 * callbacks here do nothing except notice a return mnemonic; on x86 the
 * branch type and direct target come from disassemble_info (insn_type,
 * insn_info_valid, target).  On ppc64 libopcodes only gives the instruction
 * boundaries and the branch word is decoded here. */
#include "layout/disasm.h"

#include <dis-asm.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/bsearch.h"
#include "util/error.h"
#include "util/xalloc.h"

struct disasm {
	enum lace_arch arch;
	bool fast;                 /* x86 table decoder first */
	disassembler_ftype print_insn;
	struct disassemble_info di;
	bool saw_ret, saw_xbegin;  /* set by the styled callback */
	size_t nfast, nslow;
};

/* objdump's defaults (DEFAULT_SKIP_ZEROES, DEFAULT_SKIP_ZEROES_AT_END). */
#define SKIP_ZEROES 8
#define SKIP_ZEROES_AT_END 3

static bool mnemonic_is_ret(const char *s, size_t n)
{
	/* ret retq retw lret lretq iret iretq iretd sysret sysretq sysexit ... */
	while (n && s[n - 1] == ' ')
		n--;
	if (n >= 3 && !memcmp(s, "ret", 3))
		return n <= 4;
	if (n >= 4 && (!memcmp(s, "lret", 4) || !memcmp(s, "iret", 4)))
		return n <= 5;
	if (n >= 6 && !memcmp(s, "sysret", 6))
		return n <= 7;
	if (n >= 7 && !memcmp(s, "sysexit", 7))
		return n <= 8;
	return false;
}

static int cb_fprintf(void *stream, const char *fmt, ...)
{
	(void)stream;
	(void)fmt;
	return 0;
}

/* Called for every piece of text; only mnemonics matter, and only on x86
 * (ppc returns are recognised from the instruction word). */
static int cb_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	struct disasm *d = stream;
	const char *s;
	size_t n;
	va_list ap;

	if (style != dis_style_mnemonic || fmt[0] != '%')
		return 0;
	va_start(ap, fmt);
	if (fmt[1] == 's' && !fmt[2]) {
		s = va_arg(ap, const char *);
		n = s ? strlen(s) : 0;
	} else if (!strcmp(fmt, "%.*s")) {
		int len = va_arg(ap, int);
		s = va_arg(ap, const char *);
		n = len > 0 ? (size_t)len : 0;
	} else {
		s = NULL;
		n = 0;
	}
	va_end(ap);
	if (s && n && (s[0] == 'r' || s[0] == 'l' || s[0] == 'i' || s[0] == 's') &&
	    mnemonic_is_ret(s, n))
		d->saw_ret = true;
	else if (s && n >= 6 && s[0] == 'x' && !memcmp(s, "xbegin", 6))
		d->saw_xbegin = true;
	return 0;
}

static void cb_address(bfd_vma addr, struct disassemble_info *di)
{
	(void)addr;
	(void)di;
}

static void cb_memory_error(int status, bfd_vma addr, struct disassemble_info *di)
{
	(void)status;
	(void)addr;
	(void)di;
}

struct disasm *disasm_new(enum lace_arch arch, enum disasm_engine engine)
{
	enum bfd_architecture barch;
	unsigned long mach;
	bool big = false;

	switch (arch) {
	case LACE_ARCH_X86_64:
		barch = bfd_arch_i386;
		mach = bfd_mach_x86_64;
		break;
	case LACE_ARCH_PPC64LE:
		barch = bfd_arch_powerpc;
		mach = bfd_mach_ppc64;
		break;
	case LACE_ARCH_PPC64:
		barch = bfd_arch_powerpc;
		mach = bfd_mach_ppc64;
		big = true;
		break;
	default:
		lace_error_set(ENOTSUP, "no branch decoder for this architecture");
		return NULL;
	}

	struct disasm *d = xcalloc(1, sizeof(*d));
	d->arch = arch;
	d->print_insn = disassembler(barch, big, mach, NULL);
	if (!d->print_insn) {
		free(d);
		lace_error_set(ENOTSUP, "libopcodes has no disassembler for this architecture");
		return NULL;
	}
	if (engine == DISASM_ENGINE_AUTO) {
		const char *e = getenv("LACE_DISASM");
		if (e && !strcmp(e, "libopcodes"))
			engine = DISASM_ENGINE_LIBOPCODES;
	}
	d->fast = arch == LACE_ARCH_X86_64 && engine != DISASM_ENGINE_LIBOPCODES;

	init_disassemble_info(&d->di, d, cb_fprintf, cb_styled);
	d->di.arch = barch;
	d->di.mach = mach;
	d->di.endian = d->di.endian_code = d->di.display_endian =
		big ? BFD_ENDIAN_BIG : BFD_ENDIAN_LITTLE;
	d->di.print_address_func = cb_address;
	d->di.memory_error_func = cb_memory_error;
	disassemble_init_for_target(&d->di);
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->di);
	free(d);
}

void disasm_counts(const struct disasm *d, size_t *fast, size_t *slow)
{
	*fast = d->nfast;
	*slow = d->nslow;
}

void branch_vec_release(struct branch_vec *bv)
{
	free(bv->v);
	bv->v = NULL;
	bv->n = bv->alloc = 0;
}

static void branch_add(struct branch_vec *out, uint64_t addr, enum lace_branch_kind kind,
		       bool has_target, uint64_t target)
{
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	struct lace_branch *b = &out->v[out->n++];
	b->addr = addr;
	b->kind = kind;
	b->has_target = has_target;
	b->target = has_target ? target : 0;
	b->func = b->region = b->target_region = b->target_func = -1;
}

/* ---- x86-64 through libopcodes ---- */

static int x86_libopcodes(struct disasm *d, uint64_t pc, struct branch_vec *out)
{
	struct disassemble_info *di = &d->di;

	di->insn_info_valid = 0;
	di->insn_type = dis_noninsn;
	di->target = 0;
	d->saw_ret = d->saw_xbegin = false;
	int n = d->print_insn(pc, di);
	if (n <= 0)
		return n;
	switch (di->insn_type) {
	case dis_branch:
		/* libopcodes types xbegin as a jump; it falls through unless
		 * the transaction aborts, so it is conditional */
		branch_add(out, pc,
			   !di->insn_info_valid ? LACE_BR_INDIRECT_JUMP
			   : d->saw_xbegin      ? LACE_BR_COND
						: LACE_BR_JUMP,
			   di->insn_info_valid, di->target);
		break;
	case dis_condbranch:
		/* jcc/jrcxz/loop/xbegin always have a target; keep the
		 * odd invalid one as an indirect jump rather than lose it */
		branch_add(out, pc, di->insn_info_valid ? LACE_BR_COND : LACE_BR_INDIRECT_JUMP,
			   di->insn_info_valid, di->target);
		break;
	case dis_jsr:
	case dis_condjsr:
		branch_add(out, pc, di->insn_info_valid ? LACE_BR_CALL : LACE_BR_INDIRECT_CALL,
			   di->insn_info_valid, di->target);
		break;
	default:
		if (d->saw_ret)
			branch_add(out, pc, LACE_BR_RET, false, 0);
		break;
	}
	return n;
}

/* ---- ppc64: boundaries from libopcodes, branches decoded here ---- */

static int64_t sign_extend(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

/* Classify one 32-bit ppc instruction word at pc; true when it is a branch
 * (then *kind, *has_target, *target are set). */
bool disasm_ppc_word(uint32_t w, uint64_t pc, enum lace_branch_kind *kind, bool *has_target,
		     uint64_t *target)
{
	unsigned op = w >> 26;
	bool lk = w & 1, aa = w & 2;

	if (op == 18) { /* I-form: b, ba, bl, bla */
		int64_t li = sign_extend(w & 0x03fffffc, 26);
		*target = aa ? (uint64_t)li : pc + (uint64_t)li;
		*has_target = true;
		*kind = lk ? LACE_BR_CALL : LACE_BR_JUMP;
		return true;
	}
	if (op == 16) { /* B-form: bc, bca, bcl, bcla */
		unsigned bo = (w >> 21) & 31;
		int64_t bd = sign_extend(w & 0xfffc, 16);
		*target = aa ? (uint64_t)bd : pc + (uint64_t)bd;
		*has_target = true;
		if (lk)
			*kind = LACE_BR_CALL;
		else if ((bo & 0x14) == 0x14) /* branch always */
			*kind = LACE_BR_JUMP;
		else
			*kind = LACE_BR_COND;
		return true;
	}
	if (op == 19) { /* XL-form: bclr, bcctr, bctar */
		unsigned xo = (w >> 1) & 0x3ff;
		if (xo != 16 && xo != 528 && xo != 560)
			return false;
		*has_target = false;
		*target = 0;
		if (xo == 16) /* blr and its conditional forms; blrl calls */
			*kind = lk ? LACE_BR_INDIRECT_CALL : LACE_BR_RET;
		else         /* bctr(l), btar(l) */
			*kind = lk ? LACE_BR_INDIRECT_CALL : LACE_BR_INDIRECT_JUMP;
		return true;
	}
	return false;
}

static int ppc_insn(struct disasm *d, const uint8_t *p, size_t avail, uint64_t pc,
		    struct branch_vec *out)
{
	int n = d->print_insn(pc, &d->di);
	if (n <= 0 || avail < 4)
		return n;
	/* an 8-byte prefixed instruction (primary opcode 1) is never a branch */
	if (n == 4) {
		uint32_t w = d->arch == LACE_ARCH_PPC64
			? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
			: (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
		enum lace_branch_kind kind;
		bool has_target;
		uint64_t target;
		if (disasm_ppc_word(w, pc, &kind, &has_target, &target))
			branch_add(out, pc, kind, has_target, target);
	}
	return n;
}

/* ---- the chunk walk ---- */

size_t disasm_chunk(struct disasm *d, const uint8_t *buf, size_t len, uint64_t vma,
		    uint64_t start, uint64_t stop, struct branch_vec *out)
{
	size_t ninsn = 0;

	if (start < vma)
		start = vma;
	if (stop > vma + len)
		stop = vma + len;
	if (start >= stop)
		return 0;
	d->di.buffer = (bfd_byte *)buf;
	d->di.buffer_length = len;
	d->di.buffer_vma = vma;
	/* libopcodes will not read past the next symbol (objdump sets the same) */
	d->di.stop_vma = stop;

	size_t off = start - vma, end = stop - vma;
	while (off < end) {
		if (buf[off] == 0) {
			size_t z = off;
			while (z < end && buf[z] == 0)
				z++;
			if (z - off >= SKIP_ZEROES || (z == end && z - off < SKIP_ZEROES_AT_END)) {
				/* skip in multiples of 4 unless to the end, as objdump */
				off = z == end ? z : off + ((z - off) & ~(size_t)3);
				continue;
			}
		}
		uint64_t pc = vma + off;
		int n;
		if (d->arch == LACE_ARCH_X86_64) {
			n = 0;
			if (d->fast) {
				struct x86_insn xi;
				unsigned fl = x86_decode_fast(buf + off, end - off, &xi);
				if (fl) {
					n = (int)fl;
					d->nfast++;
					if (xi.branch)
						branch_add(out, pc, xi.kind, xi.has_target,
							   pc + fl + (uint64_t)xi.rel);
				}
			}
			if (!n) {
				n = x86_libopcodes(d, pc, out);
				d->nslow++;
			}
		} else {
			n = ppc_insn(d, buf + off, end - off, pc, out);
		}
		if (n <= 0)
			break;
		off += (size_t)n;
		ninsn++;
	}
	return ninsn;
}

int disasm_one(struct disasm *d, const uint8_t *buf, size_t len, uint64_t vma,
	       struct branch_vec *out)
{
	if (!len)
		return 0;
	d->di.buffer = (bfd_byte *)buf;
	d->di.buffer_length = len;
	d->di.buffer_vma = vma;
	d->di.stop_vma = vma + len;
	if (d->arch != LACE_ARCH_X86_64)
		return ppc_insn(d, buf, len, vma, out);
	if (d->fast) {
		struct x86_insn xi;
		unsigned fl = x86_decode_fast(buf, len, &xi);
		if (fl) {
			d->nfast++;
			if (xi.branch)
				branch_add(out, vma, xi.kind, xi.has_target, vma + fl + (uint64_t)xi.rel);
			return (int)fl;
		}
	}
	d->nslow++;
	return x86_libopcodes(d, vma, out);
}

/* ---- names ---- */

static const char *const kind_names[] = {
	[LACE_BR_JUMP] = "jump",
	[LACE_BR_COND] = "cond",
	[LACE_BR_CALL] = "call",
	[LACE_BR_INDIRECT_JUMP] = "indirect-jump",
	[LACE_BR_INDIRECT_CALL] = "indirect-call",
	[LACE_BR_RET] = "ret",
};

const char *branch_kind_name(enum lace_branch_kind kind)
{
	if ((unsigned)kind >= ARRAY_SIZE(kind_names))
		return "?";
	return kind_names[kind];
}

int branch_kind_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(name, kind_names[i]))
			return (int)i;
	return -1;
}

/* ---- kernel thunks ---- */

enum disasm_thunk disasm_thunk_kind(const char *n)
{
	static const char *const ret[] = {
		"__x86_return_thunk", "retbleed_return_thunk", "srso_return_thunk",
		"srso_alias_return_thunk", "its_return_thunk", "call_depth_return_thunk",
		"__x86_return_skl",
	};
	static const char *const ind[] = {
		"__x86_indirect_thunk_", "__x86_indirect_call_thunk_",
		"__x86_indirect_jump_thunk_", "__x86_indirect_its_thunk_",
	};

	if (!n || (n[0] != '_' && n[0] != 'r' && n[0] != 's' && n[0] != 'i' && n[0] != 'c'))
		return DISASM_THUNK_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(ret); i++)
		if (!strcmp(n, ret[i]))
			return DISASM_THUNK_RET;
	for (size_t i = 0; i < ARRAY_SIZE(ind); i++)
		if (!strncmp(n, ind[i], strlen(ind[i])) && n[strlen(ind[i])])
			return DISASM_THUNK_INDIRECT;
	return DISASM_THUNK_NONE;
}

static int u64_cmp(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = *(const uint64_t *)elem;

	return a < b ? -1 : a > b;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = bsearch_lower(&x, v, n, sizeof(*v), u64_cmp);

	return lo < n && v[lo] == x;
}

size_t branches_apply_thunks(struct lace_branch *b, size_t n, const uint64_t *ret, size_t nret,
			     const uint64_t *ind, size_t nind)
{
	size_t changed = 0;

	if (!nret && !nind)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!b[i].has_target || b[i].kind > LACE_BR_CALL)
			continue;
		/* gcc also tail-jumps conditionally to the return thunk (a
		 * conditional return) */
		if (in_sorted(ret, nret, b[i].target))
			b[i].kind = LACE_BR_RET;
		else if (in_sorted(ind, nind, b[i].target))
			b[i].kind = b[i].kind == LACE_BR_CALL ? LACE_BR_INDIRECT_CALL
							      : LACE_BR_INDIRECT_JUMP;
		else
			continue;
		b[i].has_target = false;
		b[i].target = 0;
		changed++;
	}
	return changed;
}
