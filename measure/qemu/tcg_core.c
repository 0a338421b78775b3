/* Pure parts of the TCG plugin; see tcg_core.h. */
#include "measure/qemu/tcg_core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse_num.h"
#include "util/array.h"

const uint8_t tcg_mark_open_x86[TCG_MARK_LEN] = { 0x0f, 0x1f, 0x80, 0x4f, 0x43, 0x41, 0x4c };
const uint8_t tcg_mark_close_x86[TCG_MARK_LEN] = { 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x41, 0x4c };

enum tcg_mark tcg_mark_kind(const uint8_t *bytes, size_t len)
{
	if (len != TCG_MARK_LEN || !bytes)
		return TCG_MARK_NONE;
	if (!memcmp(bytes, tcg_mark_open_x86, TCG_MARK_LEN))
		return TCG_MARK_OPEN;
	if (!memcmp(bytes, tcg_mark_close_x86, TCG_MARK_LEN))
		return TCG_MARK_CLOSE;
	return TCG_MARK_NONE;
}

int tcg_arch_from_target(const char *t)
{
	if (!t)
		return -1;
	if (!strcmp(t, "x86_64"))
		return TCG_ARCH_X86_64;
	if (!strcmp(t, "ppc64"))
		return TCG_ARCH_PPC64;
	return -1;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

enum tcg_mark tcg_mark_kind_ppc64(const uint8_t *insn, const uint8_t *next)
{
	uint32_t a, b;

	if (!insn || !next)
		return TCG_MARK_NONE;
	a = le32(insn);
	b = le32(next);
	if (a != b)
		return TCG_MARK_NONE;
	return a == TCG_PPC_MARK_OPEN ? TCG_MARK_OPEN
	       : a == TCG_PPC_MARK_CLOSE ? TCG_MARK_CLOSE : TCG_MARK_NONE;
}

static int x86_is_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:   /* segment */
	case 0x66: case 0x67: case 0xf2: case 0xf3:                         /* size, repeat */
		return 1;
	default:
		return 0;
	}
}

static int x86_is_call(const uint8_t *b, size_t len)
{
	size_t i = 0;

	/* legacy prefixes, then REX */
	while (i < len && x86_is_prefix(b[i]))
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return 0;
	if (b[i] == 0xe8)
		return 1;
	/* ff /2 (call near indirect), ff /3 (far) */
	return b[i] == 0xff && i + 1 < len && ((b[i + 1] >> 3) & 7) >= 2 && ((b[i + 1] >> 3) & 7) <= 3;
}

static int ppc64_is_call(uint32_t w)
{
	uint32_t op = w >> 26, xo = (w >> 1) & 0x3ff;

	if (!(w & 1))
		return 0;   /* LK clear: no return address */
	if (op == 18)
		return 1;   /* bl, bla */
	if (op == 16)
		return w != 0x429f0005u;   /* bcl, except bcl 20,31,$+4 */
	return op == 19 && (xo == 16 || xo == 528 || xo == 560);   /* bclrl, bcctrl, bctarl */
}

int tcg_insn_is_call(enum tcg_arch arch, const uint8_t *bytes, size_t len)
{
	if (!bytes)
		return 0;
	if (arch == TCG_ARCH_PPC64)
		return len == 4 && ppc64_is_call(le32(bytes));
	return x86_is_call(bytes, len);
}

int tcg_exception_entry(enum tcg_arch arch, const char *name)
{
	/* raised by no instruction: they can land between any two */
	static const char *const async[] = { "asm_exc_nmi", "asm_exc_nmi_noist", "asm_exc_machine_check",
					     "asm_exc_double_fault", "asm_exc_spurious_interrupt_bug",
					     "asm_exc_xen_hypervisor_callback" };

	/* ppc64: the interrupt vectors (exc_virt_0x4300_data_access, the
	 * relocated copy the kernel runs with AIL, and exc_real_...) of the
	 * interrupts an instruction raises */
	static const char *const ppc_sync[] = { "_data_access", "_data_access_slb", "_instruction_access",
						"_instruction_access_slb", "_alignment", "_program_check",
						"_fp_unavailable", "_altivec_unavailable", "_vsx_unavailable",
						"_facility_unavailable", "_h_facility_unavailable",
						"_h_data_storage", "_h_instr_storage", "_emulation_assist" };

	if (!name)
		return 0;
	if (arch == TCG_ARCH_PPC64) {
		const char *u;
		if (strncmp(name, "exc_virt_0x", 11) && strncmp(name, "exc_real_0x", 11))
			return 0;
		u = strchr(name + 11, '_');
		for (size_t i = 0; u && i < ARRAY_SIZE(ppc_sync); i++)
			if (!strcmp(u, ppc_sync[i]))
				return 1;
		return 0;
	}
	if (strncmp(name, "asm_exc_", 8))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(async); i++)
		if (!strcmp(name, async[i]))
			return 0;
	return 1;
}

uint32_t tcg_block_rest(const uint16_t *off, uint32_t n, uint64_t vaddr, uint64_t resume)
{
	if (!off || resume < vaddr || resume - vaddr > UINT16_MAX)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (off[i] == resume - vaddr)
			return n - i;
	return 0;
}

int tcg_ppc64_has_local_entry(const uint8_t *first8)
{
	/* addis r2,r12,HI (0x3c4c....) then addi r2,r2,LO (0x3842....) */
	return first8 && (le32(first8) >> 16) == 0x3c4c && (le32(first8 + 4) >> 16) == 0x3842;
}

/* One more call of f took n instructions.  Lengths are few (a path
 * takes one of a handful of branches; interrupted calls are rare), so a
 * sorted array with insertion is cheap and prints in order. */
static void path_len_add(struct tcg_path_fn *f, uint64_t n, int interrupted)
{
	size_t lo = 0, hi = f->nlen;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->len[mid].instructions < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->nlen || f->len[lo].instructions != n) {
		if (f->nlen == f->caplen) {
			size_t cap = f->caplen ? 2 * f->caplen : 16;
			struct tcg_path_len *v = realloc(f->len, cap * sizeof(*v));

			if (!v)
				abort();   /* inside QEMU, which aborts on allocation failure */
			f->len = v;
			f->caplen = cap;
		}
		memmove(f->len + lo + 1, f->len + lo, (f->nlen - lo) * sizeof(*f->len));
		f->len[lo] = (struct tcg_path_len){ .instructions = n };
		f->nlen++;
	}
	f->len[lo].calls++;
	f->len[lo].interrupted += interrupted != 0;
	f->interrupted += interrupted != 0;
}

static void path_pop(struct tcg_paths *p, uint64_t now)
{
	struct tcg_path_fn *f = &p->fn[p->stack[--p->depth].fn];

	if (--f->active == 0) {
		uint64_t n = now - p->stack[p->depth].start;

		f->inclusive += n;
		path_len_add(f, n, p->stack[p->depth].interrupted);
		if (p->totals) {
			f->l1i_misses += p->totals->l1i_misses - p->stack[p->depth].start_l1i;
			f->itlb_misses += p->totals->itlb_misses - p->stack[p->depth].start_itlb;
		}
	}
}

void tcg_paths_interrupt(struct tcg_paths *p)
{
	for (size_t i = 0; i < p->depth; i++)
		p->stack[i].interrupted = 1;
}

void tcg_paths_release(struct tcg_paths *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->fn[i].len);
		p->fn[i].len = NULL;
		p->fn[i].nlen = p->fn[i].caplen = 0;
	}
}

int tcg_is_async_vector(enum tcg_arch arch, const char *sym)
{
	static const char *const ppc[] = { "100_system_reset", "200_machine_check",
		"500_hardware_interrupt", "900_decrementer", "980_hdecrementer",
		"a00_doorbell_super", "e60_hmi_exception", "e80_h_doorbell", "ea0_h_virt_irq",
		"f00_performance_monitor" };
	static const char *const x86[] = { "asm_common_interrupt", "asm_spurious_interrupt",
		"asm_exc_nmi", "asm_exc_machine_check" };

	if (arch == TCG_ARCH_PPC64) {
		const char *v;

		if (!strncmp(sym, "exc_real_0x", 11))
			v = sym + 11;
		else if (!strncmp(sym, "exc_virt_0x4", 12))
			v = sym + 12;
		else
			return 0;
		for (size_t i = 0; i < ARRAY_SIZE(ppc); i++)
			if (!strcmp(v, ppc[i]))
				return 1;
		return 0;
	}
	if (!strncmp(sym, "asm_sysvec_", 11))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(x86); i++)
		if (!strcmp(sym, x86[i]))
			return 1;
	return 0;
}

void tcg_paths_block(struct tcg_paths *p, uint64_t vaddr, long entry_fn, uint64_t call_ret,
		     uint64_t now)
{
	/* a return to a frame's call site ends it and every frame above it
	 * (those returned without being seen: longjmp-like exits) */
	for (size_t i = p->depth; i-- > 0;) {
		if (p->stack[i].ret != vaddr)
			continue;
		while (p->depth > i)
			path_pop(p, now);
		break;
	}
	if (entry_fn >= 0 && (size_t)entry_fn < p->n && p->pending_ret &&
	    p->depth < TCG_PATH_DEPTH) {
		struct tcg_path_fn *f = &p->fn[entry_fn];

		p->stack[p->depth].fn = (uint32_t)entry_fn;
		p->stack[p->depth].start = now;
		p->stack[p->depth].ret = p->pending_ret;
		p->stack[p->depth].interrupted = 0;
		p->stack[p->depth].start_l1i = p->totals ? p->totals->l1i_misses : 0;
		p->stack[p->depth].start_itlb = p->totals ? p->totals->itlb_misses : 0;
		p->depth++;
		f->active++;
		f->calls++;
	}
	p->pending_ret = call_ret;
}

#define FIELDS(X) X(instructions) X(l1i_loads) X(l1i_misses) X(itlb_loads) \
	X(itlb_misses) X(stlb_loads) X(stlb_misses) X(fetch_blocks) X(fetch_late)

void tcg_split_account(struct tcg_split *w, int kernel, const struct sim_totals *now,
		       struct sim_totals *last)
{
	struct sim_totals *side = kernel ? &w->k : &w->u;

#define ADD(f) side->f += now->f - last->f;
	FIELDS(ADD)
#undef ADD
	*last = *now;
}

int tcg_split_format(char *buf, size_t size, unsigned window, const struct tcg_split *w)
{
	return snprintf(buf, size,
			"window %u"
#define FMT(f) " u." #f "=%" PRIu64
			FIELDS(FMT)
#undef FMT
#define FMT(f) " k." #f "=%" PRIu64
			FIELDS(FMT)
#undef FMT
			"\n", window
#define ARG(f) , w->u.f
			FIELDS(ARG)
#undef ARG
#define ARG(f) , w->k.f
			FIELDS(ARG)
#undef ARG
			);
}

static uint64_t *split_field(struct tcg_split *w, const char *key, size_t len)
{
	struct sim_totals *side;

	if (len > 2 && key[0] == 'u' && key[1] == '.')
		side = &w->u;
	else if (len > 2 && key[0] == 'k' && key[1] == '.')
		side = &w->k;
	else
		return NULL;
	key += 2;
	len -= 2;
#define KEY(f) if (len == sizeof(#f) - 1 && !memcmp(key, #f, len)) return &side->f;
	FIELDS(KEY)
#undef KEY
	return NULL;
}

int tcg_split_parse(const char *line, unsigned *window, struct tcg_split *w)
{
	const char *p;
	uint64_t n;
	size_t len;

	if (strncmp(line, "window ", 7))
		return -1;
	len = strspn(line + 7, "0123456789");
	if (parse_u64_n(line + 7, len, &n) || n > UINT32_MAX)
		return -1;
	memset(w, 0, sizeof(*w));
	*window = (unsigned)n;
	p = line + 7 + len;
	while (*p == ' ') {
		const char *key = ++p, *eq = strchr(key, '=');
		uint64_t *field;

		if (!eq)
			return -1;
		field = split_field(w, key, (size_t)(eq - key));
		if (!field)
			return -1;
		len = strspn(eq + 1, "0123456789");
		if (parse_u64_n(eq + 1, len, field))
			return -1;
		p = eq + 1 + len;
	}
	return *p == '\n' || *p == '\0' ? 0 : -1;
}
