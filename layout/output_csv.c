/* lace layout --csv: one table with a header row.  The first columns of
 * the function and branch tables are a stable interface (more may follow):
 *   functions: name,address,size,region,alignment,lines,pages,...
 *   branches:  address,target,kind,function,target_region,...
 * Addresses are hex with 0x; an unknown value is an empty field. */
#include "layout/output.h"

#include <inttypes.h>

#include "layout/names.h"
#include "util/strbuf.h"

static void field(struct strbuf *sb, const char *s)
{
	strbuf_add_csv(sb, s ? s : "", ',');
	strbuf_addch(sb, ',');
}

static void hex(struct strbuf *sb, uint64_t v)
{
	strbuf_addf(sb, "0x%" PRIx64 ",", v);
}

static void num(struct strbuf *sb, uint64_t v)
{
	strbuf_addf(sb, "%" PRIu64 ",", v);
}

static const char *rname(const struct lace_image *img, int r)
{
	return r >= 0 ? img->regions[r].name : "";
}

static const char *fname(const struct lace_image *img, int f)
{
	return f >= 0 ? img->funcs[f].name : "";
}

static void row_end(FILE *f, struct strbuf *sb)
{
	sb->buf[sb->len - 1] = '\n'; /* the last field's comma */
	fwrite(sb->buf, 1, sb->len, f);
	strbuf_reset(sb);
}

static void functions_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("name,address,size,region,alignment,lines,pages,pad_before,straddles_line,straddles_page,"
	      "section,base_name,suffix,parent,global,file,src_file,src_line,inlined,nbranches\n", f);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *fn = &img->funcs[i];
		field(sb, fn->name);
		hex(sb, fn->addr);
		num(sb, fn->size);
		field(sb, rname(img, fn->region));
		num(sb, fn->alignment);
		num(sb, fn->lines);
		num(sb, fn->pages);
		num(sb, fn->pad_before);
		num(sb, fn->straddles_line);
		num(sb, fn->straddles_page);
		field(sb, fn->section >= 0 ? img->sections[fn->section].name : "");
		field(sb, fn->base_name);
		field(sb, suffix_name(fn->suffix));
		field(sb, fname(img, fn->parent));
		num(sb, fn->global);
		field(sb, fn->file);
		field(sb, fn->src_file);
		if (fn->src_file)
			num(sb, fn->src_line);
		else
			field(sb, "");
		num(sb, fn->inlined);
		num(sb, fn->nbranches);
		row_end(f, sb);
	}
}

static void branches_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("address,target,kind,function,target_region,region,target_function\n", f);
	for (size_t i = 0; i < img->nbranches; i++) {
		const struct lace_branch *b = &img->branches[i];
		hex(sb, b->addr);
		if (b->has_target)
			hex(sb, b->target);
		else
			field(sb, "");
		field(sb, layout_branch_kind(b->kind));
		field(sb, fname(img, b->func));
		field(sb, rname(img, b->target_region));
		field(sb, rname(img, b->region));
		field(sb, fname(img, b->target_func));
		row_end(f, sb);
	}
}

static void sections_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("name,address,size,alignment,code,alloc,flags,file_offset\n", f);
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		field(sb, s->name);
		hex(sb, s->addr);
		num(sb, s->size);
		num(sb, (uint64_t)1 << (s->align_pow & 63));
		num(sb, s->code);
		num(sb, s->alloc);
		hex(sb, s->flags);
		hex(sb, s->file_offset);
		row_end(f, sb);
	}
}

static void regions_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("name,kind,start,end,size,section,parent,nfuncs,func_bytes,start_symbol,end_symbol\n", f);
	for (size_t i = 0; i < img->nregions; i++) {
		const struct lace_region *r = &img->regions[i];
		field(sb, r->name);
		field(sb, region_kind_name(r->kind));
		hex(sb, r->start);
		hex(sb, r->end);
		num(sb, r->end - r->start);
		field(sb, r->section >= 0 ? img->sections[r->section].name : "");
		field(sb, rname(img, r->parent));
		num(sb, r->nfuncs);
		num(sb, r->func_bytes);
		field(sb, r->start_symbol);
		field(sb, r->end_symbol);
		row_end(f, sb);
	}
}

static void jumps_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("code,target,function,region,target_function,target_region,distance,key,key_symbol,key_flags,table,init\n", f);
	for (size_t i = 0; i < img->njumps; i++) {
		const struct lace_jump_site *j = &img->jumps[i];
		hex(sb, j->code);
		hex(sb, j->target);
		field(sb, fname(img, j->func));
		field(sb, rname(img, j->region));
		field(sb, fname(img, j->target_func));
		field(sb, rname(img, j->target_region));
		strbuf_addf(sb, "%" PRId64 ",", (int64_t)(j->target - j->code));
		hex(sb, j->key);
		field(sb, j->key_symbol);
		num(sb, j->key_flags);
		field(sb, j->table);
		num(sb, j->init);
		row_end(f, sb);
	}
}

static void probes_csv(FILE *f, const struct lace_image *img, struct strbuf *sb)
{
	fputs("provider,name,pc,function,semaphore,base,args\n", f);
	for (size_t i = 0; i < img->nprobes; i++) {
		const struct lace_sdt_probe *p = &img->probes[i];
		field(sb, p->provider);
		field(sb, p->name);
		hex(sb, p->pc);
		field(sb, fname(img, p->func));
		hex(sb, p->semaphore);
		hex(sb, p->base);
		field(sb, p->args);
		row_end(f, sb);
	}
}

void layout_print_csv(FILE *f, const struct lace_image *img, enum layout_table what)
{
	struct strbuf sb = STRBUF_INIT;

	switch (what) {
	case LAYOUT_ALL:
	case LAYOUT_FUNCTIONS: functions_csv(f, img, &sb); break;
	case LAYOUT_BRANCHES: branches_csv(f, img, &sb); break;
	case LAYOUT_SECTIONS: sections_csv(f, img, &sb); break;
	case LAYOUT_REGIONS: regions_csv(f, img, &sb); break;
	case LAYOUT_JUMPS: jumps_csv(f, img, &sb); break;
	case LAYOUT_PROBES: probes_csv(f, img, &sb); break;
	}
	strbuf_release(&sb);
}
