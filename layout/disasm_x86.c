/* A table-driven x86-64 length and branch decoder for the instructions that
 * make up almost all compiled code (integer ALU, mov/lea, push/pop, jcc,
 * call/jmp, ret, multi-byte nops, setcc/cmovcc, movzx/movsx ...).
 *
 * Why: libopcodes formats operand text inside print_insn even when nobody
 * prints it, and that dominates the cost of `lace layout --branches` on a
 * kernel.  This decoder accepts an instruction only when its length and
 * branch class are certain and libopcodes would decode it the same way;
 * everything else (VEX/EVEX/XOP, SSE, x87, moffs, far branches, invalid
 * opcodes, operand-size overrides on relative branches, unusual prefix
 * runs) returns 0 and goes to libopcodes, so the output is libopcodes'
 * own.  tests/unit/test_disasm.c cross-checks both on real binaries. */
#include "layout/disasm.h"

/* One-byte map in 64-bit mode. */
enum {
	X_BAD = 0,   /* not handled here: libopcodes decides */
	X_NONE,      /* no ModRM, no immediate */
	X_M,         /* ModRM */
	X_MI8,       /* ModRM + imm8 */
	X_MIZ,       /* ModRM + imm16/32 */
	X_I8,        /* imm8 */
	X_IZ,        /* imm16/32 */
	X_IV,        /* imm16/32/64 (mov r, imm) */
	X_PREFIX,    /* legacy prefix */
	X_REX,
	X_ESC,       /* 0f */
	X_SPECIAL,   /* decided in code below */
};

static const unsigned char map1[256] = {
	/* 00-3f: ALU ops: 4 ModRM forms, then AL,imm8 and eAX,imm32 */
#define ALU(b) [b] = X_M, [b + 1] = X_M, [b + 2] = X_M, [b + 3] = X_M, [b + 4] = X_I8, [b + 5] = X_IZ
	ALU(0x00), ALU(0x08), ALU(0x10), ALU(0x18), ALU(0x20), ALU(0x28), ALU(0x30), ALU(0x38),
#undef ALU
	[0x0f] = X_ESC,
	[0x26] = X_PREFIX, [0x2e] = X_PREFIX, [0x36] = X_PREFIX, [0x3e] = X_PREFIX,
	[0x40 ... 0x4f] = X_REX,
	[0x50 ... 0x5f] = X_NONE,
	[0x63] = X_M,
	[0x64] = X_PREFIX, [0x65] = X_PREFIX, [0x66] = X_PREFIX, [0x67] = X_PREFIX,
	[0x68] = X_IZ, [0x69] = X_MIZ, [0x6a] = X_I8, [0x6b] = X_MI8,
	[0x6c ... 0x6f] = X_NONE,
	[0x70 ... 0x7f] = X_SPECIAL, /* jcc rel8 */
	[0x80] = X_MI8, [0x81] = X_MIZ, [0x83] = X_MI8,
	[0x84 ... 0x8c] = X_M,
	[0x8d] = X_SPECIAL,          /* lea: register form is invalid */
	[0x8e] = X_M,
	[0x8f] = X_SPECIAL,          /* pop r/m, or XOP */
	[0x90 ... 0x99] = X_NONE,
	[0x9c ... 0x9f] = X_NONE,
	[0xa4 ... 0xa7] = X_NONE,
	[0xa8] = X_I8, [0xa9] = X_IZ,
	[0xaa ... 0xaf] = X_NONE,
	[0xb0 ... 0xb7] = X_I8,
	[0xb8 ... 0xbf] = X_IV,
	[0xc0] = X_MI8, [0xc1] = X_MI8,
	[0xc2] = X_SPECIAL, [0xc3] = X_SPECIAL, /* ret */
	[0xc6] = X_SPECIAL, [0xc7] = X_SPECIAL, /* mov r/m, imm; xabort; xbegin */
	[0xc8] = X_SPECIAL,          /* enter imm16, imm8 */
	[0xc9] = X_NONE,
	[0xcc] = X_NONE, [0xcd] = X_I8,
	[0xd0 ... 0xd3] = X_M,
	[0xe0 ... 0xe3] = X_SPECIAL, /* loop*, jrcxz */
	[0xe4 ... 0xe7] = X_I8,
	[0xe8] = X_SPECIAL, [0xe9] = X_SPECIAL, [0xeb] = X_SPECIAL,
	[0xec ... 0xef] = X_NONE,
	[0xf0] = X_PREFIX, [0xf1] = X_NONE, [0xf2] = X_PREFIX, [0xf3] = X_PREFIX,
	[0xf4] = X_NONE, [0xf5] = X_NONE,
	[0xf6] = X_SPECIAL, [0xf7] = X_SPECIAL, /* test has an immediate, the rest not */
	[0xf8 ... 0xfd] = X_NONE,
	[0xfe] = X_SPECIAL, [0xff] = X_SPECIAL,
};

/* Two-byte (0f xx) map; with a 66 prefix only what map2_66_ok() allows,
 * with f2/f3 only endbr64/endbr32. */
static const unsigned char map2[256] = {
	[0x05] = X_NONE, [0x06] = X_NONE, [0x08] = X_NONE, [0x09] = X_NONE, [0x0b] = X_NONE,
	[0x1f] = X_M,
	[0x20 ... 0x23] = X_M,
	[0x30 ... 0x33] = X_NONE,
	[0x40 ... 0x4f] = X_M,
	[0x80 ... 0x8f] = X_SPECIAL, /* jcc rel32 */
	[0x90 ... 0x9f] = X_M,
	[0xa0] = X_NONE, [0xa1] = X_NONE, [0xa2] = X_NONE, [0xa3] = X_M,
	[0xa4] = X_MI8, [0xa5] = X_M,
	[0xa8] = X_NONE, [0xa9] = X_NONE, [0xab] = X_M, [0xac] = X_MI8, [0xad] = X_M,
	[0xaf] = X_M,
	[0xb0] = X_M, [0xb1] = X_M, [0xb3] = X_M,
	[0xb6] = X_M, [0xb7] = X_M,
	[0xba] = X_SPECIAL,          /* bt* r/m, imm8: /4../7 only */
	[0xbb] = X_M, [0xbc] = X_M, [0xbd] = X_M, [0xbe] = X_M, [0xbf] = X_M,
	[0xc0] = X_M, [0xc1] = X_M,
	[0xc8 ... 0xcf] = X_NONE,
};

/* 0f opcodes whose length and meaning class do not change under a 66
 * prefix (nopw, cmovcc, imul, movzx/movsx, bit tests, bsf/bsr, xadd ...). */
static bool map2_66_ok(unsigned op)
{
	return op == 0x1f || (op >= 0x40 && op <= 0x4f) || op == 0xa3 || op == 0xa4 ||
	       op == 0xa5 || op == 0xab || op == 0xac || op == 0xad || op == 0xaf ||
	       op == 0xb1 || op == 0xb3 || op == 0xb6 || op == 0xb7 || op == 0xbb ||
	       op == 0xbc || op == 0xbd || op == 0xbe || op == 0xbf || op == 0xc1;
}

/* Bytes taken by ModRM, SIB and displacement at p (64-bit addressing; a 67
 * prefix changes sizes, not the encoding), or 0 when not all readable. */
static unsigned modrm_len(const uint8_t *p, size_t avail)
{
	if (!avail)
		return 0;
	unsigned m = p[0], mod = m >> 6, rm = m & 7, n = 1;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (avail < 2)
			return 0;
		n = 2;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		n += 4; /* rip-relative */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= avail ? n : 0;
}

static int64_t rel_at(const uint8_t *p, unsigned size)
{
	if (size == 1)
		return (int8_t)p[0];
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

unsigned x86_decode_fast(const uint8_t *p, size_t avail, struct x86_insn *out)
{
	size_t i = 0;
	bool opsize = false, adsize = false, rex_w = false, rex = false, f2 = false, f3 = false;
	unsigned npfx = 0;

	out->branch = false;
	out->has_target = false;
	out->rel = 0;

	/* prefixes: a REX counts only right before the opcode (libopcodes
	 * prints a REX followed by a legacy prefix on its own) */
	for (;;) {
		if (i >= avail)
			return 0;
		unsigned b = p[i], t = map1[b];
		if (t == X_PREFIX) {
			if (rex || ++npfx > 4)
				return 0;
			if (b == 0x66)
				opsize = true;
			else if (b == 0x67)
				adsize = true;
			else if (b == 0xf2)
				f2 = true;
			else if (b == 0xf3)
				f3 = true;
			i++;
			continue;
		}
		if (t == X_REX) {
			if (rex)
				return 0; /* two REX: the first is ignored, libopcodes prints it */
			rex = true;
			rex_w = b & 8;
			i++;
			continue;
		}
		break;
	}

	unsigned op = p[i++], t = map1[op], imm = 0, zsize = (rex_w || !opsize) ? 4 : 2;
	const uint8_t *m = p + i; /* ModRM when there is one */
	size_t mavail = avail - i;
	unsigned ml;

	switch (t) {
	case X_NONE:
		return (unsigned)i;
	case X_M:
	case X_MI8:
	case X_MIZ:
		ml = modrm_len(m, mavail);
		if (!ml)
			return 0;
		imm = t == X_MI8 ? 1 : t == X_MIZ ? zsize : 0;
		i += ml + imm;
		return i <= avail ? (unsigned)i : 0;
	case X_I8:
		i += 1;
		return i <= avail ? (unsigned)i : 0;
	case X_IZ:
		i += zsize;
		return i <= avail ? (unsigned)i : 0;
	case X_IV:
		i += rex_w ? 8 : opsize ? 2 : 4;
		return i <= avail ? (unsigned)i : 0;
	case X_ESC:
		break;
	case X_SPECIAL:
		goto special1;
	default:
		return 0;
	}

	/* ---- 0f xx ---- */
	if (i >= avail)
		return 0;
	op = p[i++];
	m = p + i;
	mavail = avail - i;
	t = map2[op];
	if (f2 || f3) {
		/* of the f2/f3 forms only endbr64/endbr32 (f3 0f 1e fa/fb) */
		if (f3 && !f2 && !opsize && !rex && op == 0x1e && i < avail &&
		    (p[i] == 0xfa || p[i] == 0xfb))
			return (unsigned)(i + 1);
		return 0;
	}
	/* mov to/from control and debug registers: register form only */
	if (op >= 0x20 && op <= 0x23 && (!mavail || (m[0] >> 6) != 3))
		return 0;
	if (opsize && !map2_66_ok(op))
		return 0;
	switch (t) {
	case X_NONE:
		return (unsigned)i;
	case X_M:
	case X_MI8:
		ml = modrm_len(m, mavail);
		if (!ml)
			return 0;
		i += ml + (t == X_MI8);
		return i <= avail ? (unsigned)i : 0;
	case X_SPECIAL:
		break;
	default:
		return 0;
	}
	if (op >= 0x80 && op <= 0x8f) { /* jcc rel32 */
		if (opsize || adsize || i + 4 > avail)
			return 0;
		out->branch = out->has_target = true;
		out->kind = LACE_BR_COND;
		out->rel = rel_at(p + i, 4);
		return (unsigned)(i + 4);
	}
	if (op == 0xba) { /* bt/bts/btr/btc r/m, imm8 */
		if (!mavail || ((m[0] >> 3) & 7) < 4)
			return 0;
		ml = modrm_len(m, mavail);
		if (!ml || i + ml + 1 > avail)
			return 0;
		return (unsigned)(i + ml + 1);
	}
	return 0;

special1:
	switch (op) {
	case 0x70 ... 0x7f: /* jcc rel8 */
	case 0xe0 ... 0xe3: /* loopne, loope, loop, jrcxz */
	case 0xeb:          /* jmp rel8 */
		if (opsize || adsize || i + 1 > avail)
			return 0;
		out->branch = out->has_target = true;
		out->kind = op == 0xeb ? LACE_BR_JUMP : LACE_BR_COND;
		out->rel = rel_at(p + i, 1);
		return (unsigned)(i + 1);
	case 0xe8:          /* call rel32 */
	case 0xe9:          /* jmp rel32 */
		if (opsize || adsize || i + 4 > avail)
			return 0;
		out->branch = out->has_target = true;
		out->kind = op == 0xe8 ? LACE_BR_CALL : LACE_BR_JUMP;
		out->rel = rel_at(p + i, 4);
		return (unsigned)(i + 4);
	case 0xc3:
		out->branch = true;
		out->kind = LACE_BR_RET;
		return (unsigned)i;
	case 0xc2:
		if (i + 2 > avail)
			return 0;
		out->branch = true;
		out->kind = LACE_BR_RET;
		return (unsigned)(i + 2);
	case 0xc8:
		return i + 3 <= avail ? (unsigned)(i + 3) : 0;
	case 0x8d: /* lea */
		if (!mavail || (m[0] >> 6) == 3)
			return 0;
		ml = modrm_len(m, mavail);
		return ml ? (unsigned)(i + ml) : 0;
	case 0x8f: /* pop r/m (/0); other reg values are XOP */
		if (!mavail || ((m[0] >> 3) & 7) != 0)
			return 0;
		ml = modrm_len(m, mavail);
		return ml ? (unsigned)(i + ml) : 0;
	case 0xc6:
	case 0xc7: /* mov r/m, imm (/0); xabort/xbegin and the rest: libopcodes */
		if (!mavail || ((m[0] >> 3) & 7) != 0)
			return 0;
		ml = modrm_len(m, mavail);
		if (!ml)
			return 0;
		i += ml + (op == 0xc6 ? 1 : zsize);
		return i <= avail ? (unsigned)i : 0;
	case 0xf6:
	case 0xf7: { /* /0 /1 test r/m, imm; /2../7 not, neg, mul, imul, div, idiv */
		if (!mavail)
			return 0;
		unsigned reg = (m[0] >> 3) & 7;
		ml = modrm_len(m, mavail);
		if (!ml)
			return 0;
		i += ml;
		if (reg < 2)
			i += op == 0xf6 ? 1 : zsize;
		return i <= avail ? (unsigned)i : 0;
	}
	case 0xfe: /* inc/dec r/m8 */
		if (!mavail || ((m[0] >> 3) & 7) > 1)
			return 0;
		ml = modrm_len(m, mavail);
		return ml ? (unsigned)(i + ml) : 0;
	case 0xff: {
		if (!mavail)
			return 0;
		unsigned reg = (m[0] >> 3) & 7;
		if (reg == 3 || reg == 5 || reg == 7)
			return 0; /* far call/jmp, invalid */
		ml = modrm_len(m, mavail);
		if (!ml)
			return 0;
		if (reg == 2 || reg == 4) {
			if (opsize)
				return 0;
			out->branch = true;
			out->kind = reg == 2 ? LACE_BR_INDIRECT_CALL : LACE_BR_INDIRECT_JUMP;
		}
		return (unsigned)(i + ml);
	}
	}
	return 0;
}
