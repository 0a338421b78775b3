/* lace layout's text report: a summary line, then sections, regions,
 * functions, jump-label sites, SDT probes and (with --branches) branch
 * counts, the region-pair matrix and the fetch-offset histogram. */
#include "layout/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/branch_stats.h"
#include "layout/names.h"
#include "util/xalloc.h"


static const char *rname(const struct lace_image *img, int r)
{
	return r >= 0 ? img->regions[r].name : "-";
}

static const char *fname(const struct lace_image *img, int f)
{
	return f >= 0 ? img->funcs[f].name : "-";
}

static void summary(FILE *f, const struct lace_image *img)
{
	fprintf(f, "%s: %s (%s)%s, %zu sections, %zu regions, %zu functions, %zu jump sites, %zu probes",
		img->path, arch_name(img->arch), img->arch_name ? img->arch_name : "?",
		img->relocatable ? " relocatable" : "", img->nsections, img->nregions, img->nfuncs, img->njumps,
		img->nprobes);
	if (img->disassembled)
		fprintf(f, ", %zu branches", img->nbranches);
	fprintf(f, "\ngeometry: line %u B, page %u B, fetch %u B%s\n", img->geom.line, img->geom.page,
		img->geom.fetch, img->has_dwarf ? "; DWARF present" : "");
}

static void sections(FILE *f, const struct lace_image *img)
{
	fprintf(f, "\nSections:\n  %-4s %-24s %-18s %10s %6s %s\n", "idx", "name", "address", "size", "align", "flags");
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		fprintf(f, "  %-4zu %-24s 0x%016" PRIx64 " %10" PRIu64 " %6llu %s%s\n", i, s->name, s->addr, s->size,
			1ull << (s->align_pow & 63), s->alloc ? "alloc" : "-", s->code ? ",code" : "");
	}
}

static void regions(FILE *f, const struct lace_image *img)
{
	fprintf(f, "\nRegions:\n  %-22s %-8s %-18s %-18s %10s %7s %10s %s\n", "name", "kind", "start", "end", "size",
		"funcs", "func_bytes", "inside");
	for (size_t i = 0; i < img->nregions; i++) {
		const struct lace_region *r = &img->regions[i];
		fprintf(f, "  %-22s %-8s 0x%016" PRIx64 " 0x%016" PRIx64 " %10" PRIu64 " %7zu %10" PRIu64 " %s\n", r->name,
			region_kind_name(r->kind), r->start, r->end, r->end - r->start, r->nfuncs, r->func_bytes,
			rname(img, r->parent));
	}
}

static void functions(FILE *f, const struct lace_image *img)
{
	fprintf(f, "\nFunctions:\n  %-18s %8s %5s %6s %5s %5s %-4s %-16s %s\n", "address", "size", "align", "pad",
		"lines", "pages", "strd", "region", "name");
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *fn = &img->funcs[i];
		char strd[4] = "--";
		if (fn->straddles_line)
			strd[0] = 'L';
		if (fn->straddles_page)
			strd[1] = 'P';
		fprintf(f, "  0x%016" PRIx64 " %8" PRIu64 " %5" PRIu64 " %6" PRIu64 " %5u %5u %-4s %-16s %s", fn->addr,
			fn->size, fn->alignment, fn->pad_before, fn->lines, fn->pages, strd, rname(img, fn->region),
			fn->name);
		if (fn->parent >= 0)
			fprintf(f, " (%s of %s)", suffix_name(fn->suffix), img->funcs[fn->parent].name);
		if (fn->src_file)
			fprintf(f, " [%s:%u%s]", fn->src_file, fn->src_line, "");
		if (fn->inlined)
			fprintf(f, " inlined=%u", fn->inlined);
		fputc('\n', f);
	}
}

static void jumps(FILE *f, const struct lace_image *img)
{
	fprintf(f, "\nJump-label sites:\n  %-18s %-18s %10s %-12s %-12s %-s\n", "code", "target", "distance", "region",
		"target_rgn", "function -> target function  [key]");
	for (size_t i = 0; i < img->njumps; i++) {
		const struct lace_jump_site *j = &img->jumps[i];
		fprintf(f, "  0x%016" PRIx64 " 0x%016" PRIx64 " %10" PRId64 " %-12s %-12s %s -> %s  [%s%s%s]\n", j->code,
			j->target, (int64_t)(j->target - j->code), rname(img, j->region), rname(img, j->target_region),
			fname(img, j->func), fname(img, j->target_func), j->key_symbol ? j->key_symbol : "?",
			j->key_flags & 1 ? " branch" : "", j->init ? " init" : "");
	}
}

static void probes(FILE *f, const struct lace_image *img)
{
	fprintf(f, "\nSDT probes:\n  %-18s %-30s %-24s %s\n", "pc", "provider:name", "function", "args");
	for (size_t i = 0; i < img->nprobes; i++) {
		const struct lace_sdt_probe *p = &img->probes[i];
		char pn[256];
		snprintf(pn, sizeof(pn), "%s:%s", p->provider, p->name);
		fprintf(f, "  0x%016" PRIx64 " %-30s %-24s %s\n", p->pc, pn, fname(img, p->func), p->args);
	}
}

/* Branch kinds, cross-region pairs (from -> to, only pairs that occur) and
 * where direct jump targets fall within the fetch block (branch_stats.c). */
static void branches(FILE *f, const struct lace_image *img)
{
	size_t kinds[LACE_BR_RET + 1] = { 0 };
	struct branch_matrix m;
	struct branch_pair *pairs = NULL;
	struct fetch_histogram h;

	for (size_t i = 0; i < img->nbranches; i++)
		if ((unsigned)img->branches[i].kind <= LACE_BR_RET)
			kinds[img->branches[i].kind]++;
	fprintf(f, "\nBranches: %zu\n", img->nbranches);
	for (int k = 0; k <= LACE_BR_RET; k++)
		fprintf(f, "  %-14s %zu\n", layout_branch_kind((enum lace_branch_kind)k), kinds[k]);

	branch_matrix_compute(img, BRANCH_KINDS_DIRECT, &m);
	size_t np = branch_matrix_pairs(&m, true, &pairs);
	fprintf(f, "\nCross-region direct branches: %" PRIu64 " of %" PRIu64 " (from -> to: count)\n", m.cross,
		m.total);
	for (size_t i = 0; i < np; i++)
		fprintf(f, "  %-22s -> %-22s %" PRIu64 "\n", pairs[i].from >= 0 ? img->regions[pairs[i].from].name : "(outside)",
			pairs[i].to >= 0 ? img->regions[pairs[i].to].name : "(outside)", pairs[i].count);
	free(pairs);
	branch_matrix_release(&m);

	if (fetch_histogram_compute(img, BRANCH_KINDS_JUMPS, &h) == 0) {
		fprintf(f, "\nJump-target offset within the %u B fetch block (direct jumps, %" PRIu64 "):\n", h.fetch,
			h.total);
		for (unsigned o = 0; o < h.fetch; o++)
			if (h.count[o])
				fprintf(f, "  +%-3u %8" PRIu64 "  %5.1f%%\n", o, h.count[o],
					100.0 * (double)h.count[o] / (double)h.total);
		fetch_histogram_release(&h);
	}
}

void layout_print_text(FILE *f, const struct lace_image *img, enum layout_table what)
{
	if (what == LAYOUT_ALL)
		summary(f, img);
	if (what == LAYOUT_ALL || what == LAYOUT_SECTIONS)
		sections(f, img);
	if (what == LAYOUT_ALL || what == LAYOUT_REGIONS)
		regions(f, img);
	if (what == LAYOUT_ALL || what == LAYOUT_FUNCTIONS)
		functions(f, img);
	if ((what == LAYOUT_ALL && img->njumps) || what == LAYOUT_JUMPS)
		jumps(f, img);
	if ((what == LAYOUT_ALL && img->nprobes) || what == LAYOUT_PROBES)
		probes(f, img);
	if ((what == LAYOUT_ALL && img->disassembled) || what == LAYOUT_BRANCHES)
		branches(f, img);
}
