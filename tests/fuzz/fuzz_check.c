/* Model invariants for the fuzz harnesses (see fuzz_check.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_check.h"

static void violated(const char *what, size_t i)
{
	fprintf(stderr, "fuzz: image invariant broken: %s (entry %zu)\n", what, i);
	abort();
}

/* an index into an array of n, or -1 */
static int idx_ok(int idx, size_t n)
{
	return idx == -1 || (idx >= 0 && (size_t)idx < n);
}

static volatile unsigned sink;

static void touch_string(const char *s)
{
	if (s)
		sink += (unsigned)strlen(s);
}

void fuzz_check_image(struct lace_image *img)
{
	touch_string(img->path);
	touch_string(img->arch_name);
	for (size_t i = 0; i < img->nwarnings; i++) {
		if (!img->warnings[i])
			violated("NULL warning", i);
		if (strchr(img->warnings[i], '\n'))
			violated("warning is not one line", i);
	}
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		size_t len = 0;
		const uint8_t *d = image_section_data(img, (int)i, &len);

		touch_string(s->name);
		if (!d && len)
			violated("section data NULL with a length", i);
		for (size_t k = 0; d && k < len; k += 64)
			sink += d[k];
		if (d && len)
			sink += d[len - 1];
	}
	for (size_t i = 0; i < img->nregions; i++) {
		const struct lace_region *r = &img->regions[i];
		touch_string(r->name);
		touch_string(r->start_symbol);
		touch_string(r->end_symbol);
		if (r->start > r->end)
			violated("region starts after its end", i);
		if (!idx_ok(r->section, img->nsections))
			violated("region section index out of range", i);
	}
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		touch_string(f->name);
		touch_string(f->base_name);
		touch_string(f->file);
		touch_string(f->src_file);
		if (i && img->funcs[i - 1].addr > f->addr)
			violated("functions not sorted by address", i);
		if (!idx_ok(f->section, img->nsections) || !idx_ok(f->region, img->nregions) ||
		    !idx_ok(f->parent, img->nfuncs))
			violated("function index out of range", i);
		if (f->first_branch > img->nbranches || f->nbranches > img->nbranches - f->first_branch)
			violated("function branch range out of range", i);
		if (image_func_at(img, f->addr) < 0 && f->size)
			violated("image_func_at misses a sized function's start", i);
	}
	for (size_t i = 0; i < img->nbranches; i++) {
		const struct lace_branch *b = &img->branches[i];
		if (i && img->branches[i - 1].addr > b->addr)
			violated("branches not sorted by address", i);
		if (!idx_ok(b->func, img->nfuncs) || !idx_ok(b->region, img->nregions) ||
		    !idx_ok(b->target_region, img->nregions) || !idx_ok(b->target_func, img->nfuncs))
			violated("branch index out of range", i);
		if (b->has_target) {
			sink += (unsigned)image_func_at(img, b->target);
			sink += (unsigned)image_region_at(img, b->target);
		}
	}
	for (size_t i = 0; i < img->njumps; i++) {
		const struct lace_jump_site *j = &img->jumps[i];
		touch_string(j->table);
		touch_string(j->key_symbol);
		if (!idx_ok(j->func, img->nfuncs) || !idx_ok(j->region, img->nregions) ||
		    !idx_ok(j->target_func, img->nfuncs) || !idx_ok(j->target_region, img->nregions))
			violated("jump site index out of range", i);
	}
	for (size_t i = 0; i < img->nprobes; i++) {
		const struct lace_sdt_probe *p = &img->probes[i];
		touch_string(p->provider);
		touch_string(p->name);
		touch_string(p->args);
		if (!idx_ok(p->func, img->nfuncs))
			violated("probe function index out of range", i);
	}
}
