/* Reading 1's code facts; see kstudy_code.h. */
#include "pipeline/kstudy/kstudy_code.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "layout/disasm.h"
#include "layout/image.h"
#include "util/error.h"

/* The 4-byte word at addr, from the section holding it; false outside. */
static bool word_at(struct lace_image *img, uint64_t addr, uint32_t *w)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		const uint8_t *d;
		size_t len;

		if (!s->code || addr < s->addr || addr + 4 > s->addr + s->size)
			continue;
		d = image_section_data(img, (int)i, &len);
		if (!d || addr - s->addr + 4 > len)
			return false;
		d += addr - s->addr;
		*w = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
		return true;
	}
	return false;
}

/* enough of the ppc64 encoding to read a jump-label site (mr: the
 * argument moves a call's register constraints add) */
static const char *ppc_kind(uint32_t w)
{
	switch (w >> 26) {
	case 18:
		return w & 1 ? "bl" : "b";
	case 16:
		return "bc";
	case 19:
		return (w & 0x7fe) == 0x20 ? "blr" : (w & 0x7fe) == 0x420 ? "bctr" : "other";
	case 24:
		return w == 0x60000000 ? "nop" : "other";
	case 31:   /* mr rA,rS is or rA,rS,rS */
		return ((w >> 1) & 0x3ff) == 444 && ((w >> 21) & 31) == ((w >> 11) & 31) ? "mr"
											: "other";
	default:
		return "other";
	}
}

/* the branch decoded at addr, or NULL (branches are sorted by address) */
static const struct lace_branch *branch_at(const struct lace_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nbranches;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (img->branches[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nbranches && img->branches[lo].addr == addr ? &img->branches[lo] : NULL;
}

static const char *func_name(const struct lace_image *img, int f)
{
	return f >= 0 && (size_t)f < img->nfuncs ? img->funcs[f].name : "?";
}

static const char *region_name(const struct lace_image *img, int r)
{
	return r >= 0 && (size_t)r < img->nregions ? img->regions[r].name : "?";
}

static json_t *site_json(struct lace_image *img, const struct lace_jump_site *j)
{
	const struct lace_function *f = j->func >= 0 ? &img->funcs[j->func] : NULL;
	uint64_t base = f ? f->addr : j->code;
	const struct lace_branch *after = branch_at(img, j->code + 4), *b;
	json_t *words = json_array(), *slow;
	bool inl;
	uint64_t end;

	for (int k = -2; k <= 3; k++) {
		uint64_t a = j->code + (uint64_t)(k * 4);
		uint32_t w;

		if (word_at(img, a, &w)) {
			char hex[16];

			snprintf(hex, sizeof(hex), "0x%08x", w);
			json_array_append_new(words, json_pack("{s:I,s:s,s:s}", "offset",
							       (json_int_t)(a - base), "word", hex,
							       "kind", ppc_kind(w)));
		}
	}
	/* inline: the slow path starts right after a `b` that skips it */
	inl = after && after->kind == LACE_BR_JUMP && after->has_target &&
	      j->target == j->code + 8 && after->target > j->target;
	if (inl) {
		end = after->target;
	} else {
		/* out of line: up to the first branch that leaves it (back to
		 * the fast path, or a return), calls not counted */
		end = j->target;
		for (b = branch_at(img, j->target); !b && end < j->target + 4096; b = branch_at(img, end))
			end += 4;
		for (; b && b < img->branches + img->nbranches; b++)
			if (b->kind == LACE_BR_RET || b->kind == LACE_BR_INDIRECT_JUMP ||
			    (b->kind != LACE_BR_CALL && b->kind != LACE_BR_INDIRECT_CALL &&
			     b->has_target && (b->target < j->target || b->target > b->addr)))
				break;
		end = b && b < img->branches + img->nbranches ? b->addr + 4 : j->target;
	}
	slow = json_pack("{s:b,s:s,s:s,s:I,s:I}", "inline", inl, "function",
			 func_name(img, j->target_func), "region", region_name(img, j->target_region),
			 "offset", (json_int_t)(j->target - (j->target_func >= 0 ?
					img->funcs[j->target_func].addr : j->target)),
			 "instructions", (json_int_t)((end - j->target) / 4));
	/* what runs before the site; without a jump or conditional branch
	 * there (calls return), every call runs all of it, so a difference
	 * here is a difference on every call */
	json_int_t moves = 0, jumps = 0;

	for (uint64_t a = base; a < j->code; a += 4) {
		uint32_t w;

		if (word_at(img, a, &w) && !strcmp(ppc_kind(w), "mr"))
			moves++;
		b = branch_at(img, a);
		if (b && b->kind != LACE_BR_CALL && b->kind != LACE_BR_INDIRECT_CALL)
			jumps++;
	}
	return json_pack("{s:s,s:I,s:o,s:o,s:i,s:{s:I,s:I,s:I}}", "function",
			 func_name(img, j->func), "site_offset", (json_int_t)(j->code - base), "words",
			 words, "slow_path", slow, "disabled_instructions", inl ? 2 : 1, "before_site",
			 "instructions", (json_int_t)((j->code - base) / 4), "mr", moves, "branches",
			 jumps);
}

int kstudy_site_code(const char *vmlinux, const char *key_prefix, json_t **out)
{
	struct lace_load_opts o = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = false, .branches = true };
	struct lace_image *img;
	int err = image_load(vmlinux, &o, &img);

	*out = NULL;
	if (err) {
		char why[256];

		snprintf(why, sizeof(why), "%s", lace_error_msg());
		return lace_error_set(-err, "%s: %s", vmlinux, why);
	}
	if (img->arch != LACE_ARCH_PPC64LE) {
		image_free(img);
		return lace_error_set(ENOTSUP, "%s: not a ppc64le kernel", vmlinux);
	}
	*out = json_array();
	for (size_t i = 0; i < img->njumps; i++) {
		const struct lace_jump_site *j = &img->jumps[i];

		if (j->key_symbol && !strncmp(j->key_symbol, key_prefix, strlen(key_prefix)))
			json_array_append_new(*out, site_json(img, j));
	}
	image_free(img);
	return 0;
}
