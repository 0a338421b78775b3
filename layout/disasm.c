/* image_disassemble(): decode every code section of an image in the chunks
 * objdump uses (symbol to symbol), then give each branch its function and
 * regions and each function its branch range. */
#include "layout/disasm.h"

#include <bfd.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/image_priv.h"
#include "util/error.h"
#include "util/xalloc.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_branch(const void *a, const void *b)
{
	const struct lace_branch *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether what starts at addr (symbols from index k on) is code: yes
 * unless the only symbols there are data objects, as objdump decides. */
static bool chunk_is_code(const struct image_priv *p, int idx, size_t k, uint64_t addr)
{
	bool object = false, func = false;
	for (size_t j = k; j < p->nsyms && p->syms[j].addr == addr; j++) {
		if (p->syms[j].section != idx)
			continue;
		object |= p->syms[j].type == STT_OBJECT;
		func |= p->syms[j].type == STT_FUNC;
	}
	return func || !object;
}

/* Relocatable inputs: a branch whose displacement is relocated against a
 * symbol the file does not define (a .o or .ko calling out) would point at
 * whatever lies at address 0 + addend; its real target is unknown here, so
 * it loses the target, except that the kernel's thunks are recognised by the
 * symbol's name (a module's `jmp __x86_return_thunk` is a ret). */
struct ext_reloc {
	uint64_t addr;
	enum disasm_thunk thunk;
};

static int cmp_ext(const void *a, const void *b)
{
	const struct ext_reloc *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static size_t ext_relocs_load(struct lace_image *img, int idx, struct ext_reloc **out)
{
	struct image_priv *p = image_priv(img);
	asection *s;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!p->abfd || !p->bfd_syms)
		return 0;
	for (s = p->abfd->sections; s && s->index != (unsigned)idx; s = s->next)
		;
	if (!s || !(s->flags & SEC_RELOC))
		return 0;
	long size = bfd_get_reloc_upper_bound(p->abfd, s);
	if (size <= 0)
		return 0;
	arelent **rel = xmalloc((size_t)size);
	long c = bfd_canonicalize_reloc(p->abfd, s, rel, p->bfd_syms);
	for (long i = 0; i < c; i++) {
		asymbol *sym = rel[i]->sym_ptr_ptr ? *rel[i]->sym_ptr_ptr : NULL;
		if (!sym || !bfd_is_und_section(sym->section))
			continue;
		ALLOC_GROW(*out, n + 1, alloc);
		(*out)[n].addr = img->sections[idx].addr + rel[i]->address;
		(*out)[n].thunk = disasm_thunk_kind(bfd_asymbol_name(sym));
		n++;
	}
	free(rel);
	if (n)
		qsort(*out, n, sizeof(**out), cmp_ext);
	return n;
}

static void ext_branches_fix(struct lace_image *img, struct disasm *d, int idx, const uint8_t *data,
			     size_t len, struct lace_branch *b, size_t nb)
{
	struct ext_reloc *rel;
	size_t nrel = ext_relocs_load(img, idx, &rel), k = 0;
	uint64_t base = img->sections[idx].addr;
	struct branch_vec scratch = { 0 };

	for (size_t i = 0; i < nb && nrel; i++) {
		if (!branch_is_direct(&b[i]))
			continue;
		while (k < nrel && rel[k].addr < b[i].addr)
			k++;
		if (k == nrel)
			break;
		/* is the relocated field inside this instruction? */
		scratch.n = 0;
		int l = disasm_one(d, data + (b[i].addr - base), len - (b[i].addr - base), b[i].addr,
				   &scratch);
		if (l <= 0 || rel[k].addr >= b[i].addr + (uint64_t)l)
			continue;
		if (rel[k].thunk == DISASM_THUNK_RET)
			b[i].kind = LACE_BR_RET;
		else if (rel[k].thunk == DISASM_THUNK_INDIRECT)
			b[i].kind = b[i].kind == LACE_BR_CALL ? LACE_BR_INDIRECT_CALL
							      : LACE_BR_INDIRECT_JUMP;
		b[i].has_target = false;
		b[i].target = 0;
	}
	branch_vec_release(&scratch);
	free(rel);
}

/* Decode section idx: chunks start at the section start and at every
 * distinct symbol address in it; a chunk whose symbols are data objects
 * only is not code (objdump dumps it as bytes). */
static void section_decode(struct lace_image *img, struct disasm *d, int idx,
			   struct branch_vec *out)
{
	const struct lace_section *s = &img->sections[idx];
	const struct image_priv *p = image_priv(img);
	size_t len;
	const uint8_t *data = image_section_data(img, idx, &len);

	if (!data || !len)
		return;
	uint64_t end = s->addr + len, at = s->addr;
	size_t k = image_syms_lower(p, s->addr), first = out->n;
	bool code = chunk_is_code(p, idx, k, at);

	while (at < end) {
		/* the next restart point: the next symbol of this section */
		while (k < p->nsyms && p->syms[k].addr < end &&
		       (p->syms[k].addr <= at || p->syms[k].section != idx))
			k++;
		uint64_t next = k < p->nsyms && p->syms[k].addr < end ? p->syms[k].addr : end;
		if (code)
			disasm_chunk(d, data, len, s->addr, at, next, out);
		if (next >= end)
			break;
		code = chunk_is_code(p, idx, k, next);
		at = next;
	}
	/* out->v is still NULL when no branch was found: NULL + 0 is undefined */
	if (img->relocatable && out->n > first)
		ext_branches_fix(img, d, idx, data, len, out->v + first, out->n - first);
}

/* Addresses of the kernel's return and indirect-branch thunks. */
static void thunks_collect(const struct image_priv *p, uint64_t **ret, size_t *nret,
			   uint64_t **ind, size_t *nind)
{
	size_t aret = 0, aind = 0;
	*ret = *ind = NULL;
	*nret = *nind = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		switch (disasm_thunk_kind(p->syms[i].name)) {
		case DISASM_THUNK_RET:
			ALLOC_GROW(*ret, *nret + 1, aret);
			(*ret)[(*nret)++] = p->syms[i].addr;
			break;
		case DISASM_THUNK_INDIRECT:
			ALLOC_GROW(*ind, *nind + 1, aind);
			(*ind)[(*nind)++] = p->syms[i].addr;
			break;
		default:
			break;
		}
	}
	/* the arrays stay NULL when no thunk exists: qsort(NULL, 0) is undefined */
	if (*nret > 1)
		qsort(*ret, *nret, sizeof(**ret), cmp_u64);
	if (*nind > 1)
		qsort(*ind, *nind, sizeof(**ind), cmp_u64);
}

static int branch_cmp_addr(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct lace_branch *)elem)->addr;

	return a < b ? -1 : a > b;
}

/* First branch index with addr >= a. */
static size_t branch_lower_bound(const struct lace_image *img, uint64_t a)
{
	return bsearch_lower(&a, img->branches, img->nbranches, sizeof(*img->branches), branch_cmp_addr);
}

static void branches_resolve(struct lace_image *img)
{
	int func = -1;
	uint64_t fend = 0;

	/* branches are sorted: keep the last function while inside it */
	for (size_t i = 0; i < img->nbranches; i++) {
		struct lace_branch *b = &img->branches[i];
		if (func < 0 || b->addr < img->funcs[func].addr || b->addr >= fend) {
			func = image_func_at(img, b->addr);
			fend = func >= 0 ? img->funcs[func].addr + img->funcs[func].size : 0;
		}
		b->func = func;
		b->region = image_region_at(img, b->addr);
		if (b->has_target) {
			b->target_func = image_func_at(img, b->target);
			b->target_region = image_region_at(img, b->target);
		} else {
			b->target_func = b->target_region = -1;
		}
	}
	for (size_t f = 0; f < img->nfuncs; f++) {
		struct lace_function *fn = &img->funcs[f];
		/* a corrupt size can wrap addr + size past 2^64: end at the top */
		uint64_t end = fn->addr + fn->size < fn->addr ? UINT64_MAX : fn->addr + fn->size;
		size_t lo = branch_lower_bound(img, fn->addr);
		size_t hi = branch_lower_bound(img, end);
		fn->first_branch = lo;
		fn->nbranches = hi - lo;
	}
}

int image_disassemble(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	struct branch_vec bv = { 0 };

	img->disassembled = false;
	struct disasm *d = disasm_new(img->arch, DISASM_ENGINE_AUTO);
	if (!d) {
		image_warn(img, "branches are not decoded for architecture %s",
			   img->arch_name ? img->arch_name : "unknown");
		lace_error_clear();
		return 0;
	}
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		if ((s->flags & (SEC_CODE | SEC_HAS_CONTENTS)) != (SEC_CODE | SEC_HAS_CONTENTS))
			continue;
		section_decode(img, d, (int)i, &bv);
	}
	disasm_free(d);

	/* sections come in header order, not always address order */
	for (size_t i = 1; i < bv.n; i++) {
		if (bv.v[i].addr < bv.v[i - 1].addr) {
			qsort(bv.v, bv.n, sizeof(*bv.v), cmp_branch);
			break;
		}
	}
	if (img->arch == LACE_ARCH_X86_64) {
		uint64_t *ret, *ind;
		size_t nret, nind;
		thunks_collect(p, &ret, &nret, &ind, &nind);
		branches_apply_thunks(bv.v, bv.n, ret, nret, ind, nind);
		free(ret);
		free(ind);
	}
	free(img->branches);
	img->branches = bv.v;
	img->nbranches = bv.n;
	branches_resolve(img);
	img->disassembled = true;
	return 0;
}
