/* lace layout --json.  Addresses are strings "0x..." (JSON numbers lose
 * 64-bit precision in most readers); sizes and counts are numbers; indices
 * into the other arrays are numbers, -1 for none. */
#include "layout/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/names.h"
#include "util/json.h"
#include "util/json_schema.h"

json_t *layout_json_hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_string(b);
}

static json_t *region_name_of(const struct lace_image *img, int r)
{
	return lace_json_string(r >= 0 ? img->regions[r].name : NULL);
}

static json_t *func_name_of(const struct lace_image *img, int f)
{
	return lace_json_string(f >= 0 ? img->funcs[f].name : NULL);
}

json_t *section_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_section *s = &img->sections[i];
	return json_pack("{s:o, s:o, s:I, s:o, s:I, s:I, s:b, s:b, s:i}", "name", lace_json_string(s->name), "address",
			 layout_json_hex(s->addr), "size", (json_int_t)s->size, "file_offset", layout_json_hex(s->file_offset),
			 "flags", (json_int_t)s->flags, "alignment", (json_int_t)((uint64_t)1 << (s->align_pow & 63)),
			 "code", s->code, "alloc", s->alloc, "elf_index", s->elf_index);
}

json_t *region_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_region *r = &img->regions[i];
	return json_pack("{s:o, s:s, s:o, s:o, s:I, s:i, s:o, s:o, s:o, s:i, s:o, s:I, s:I}", "name", lace_json_string(r->name),
			 "kind", region_kind_name(r->kind), "start", layout_json_hex(r->start), "end", layout_json_hex(r->end),
			 "size", (json_int_t)(r->end - r->start), "section", r->section, "section_name",
			 lace_json_string(r->section >= 0 ? img->sections[r->section].name : NULL),
			 "start_symbol", lace_json_string(r->start_symbol), "end_symbol", lace_json_string(r->end_symbol),
			 "parent", r->parent, "parent_name", region_name_of(img, r->parent), "nfuncs",
			 (json_int_t)r->nfuncs, "func_bytes", (json_int_t)r->func_bytes);
}

json_t *function_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_function *f = &img->funcs[i];
	json_t *o = json_pack("{s:o, s:o, s:o, s:I, s:i, s:i, s:o, s:b, s:o, s:I, s:s, s:i, s:o}", "name",
			      lace_json_string(f->name), "base_name", lace_json_string(f->base_name ? f->base_name : f->name), "address",
			      layout_json_hex(f->addr), "size", (json_int_t)f->size, "section", f->section, "region",
			      f->region, "region_name", region_name_of(img, f->region), "global", f->global,
			      "file", lace_json_string(f->file), "static_ordinal", (json_int_t)f->static_ordinal,
			      "suffix", suffix_name(f->suffix), "parent", f->parent, "parent_name",
			      func_name_of(img, f->parent));
	json_t *g = json_pack("{s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:I, s:I, s:I, s:I}", "alignment",
			      (json_int_t)f->alignment, "pad_before", (json_int_t)f->pad_before, "lines",
			      (json_int_t)f->lines, "pages", (json_int_t)f->pages, "straddles_line",
			      f->straddles_line, "straddles_page", f->straddles_page, "src_file",
			      lace_json_string(f->src_file), "src_line", (json_int_t)f->src_line, "inlined",
			      (json_int_t)f->inlined, "first_branch", (json_int_t)f->first_branch, "nbranches",
			      (json_int_t)f->nbranches);
	json_object_update(o, g);
	json_decref(g);
	return o;
}

json_t *branch_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_branch *b = &img->branches[i];
	return json_pack("{s:o, s:o, s:s, s:i, s:i, s:i, s:i}", "address", layout_json_hex(b->addr), "target",
			 b->has_target ? layout_json_hex(b->target) : json_null(), "kind", layout_branch_kind(b->kind),
			 "func", b->func, "region", b->region, "target_region", b->target_region, "target_func",
			 b->target_func);
}

json_t *jump_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_jump_site *j = &img->jumps[i];
	return json_pack("{s:o, s:o, s:I, s:o, s:i, s:b, s:s, s:i, s:o, s:i, s:o, s:i, s:o, s:i, s:o, s:o}",
			 "code", layout_json_hex(j->code), "target", layout_json_hex(j->target), "distance",
			 (json_int_t)(int64_t)(j->target - j->code), "key", layout_json_hex(j->key), "key_flags",
			 (int)j->key_flags, "init", j->init, "table", j->table, "func", j->func, "func_name",
			 func_name_of(img, j->func), "region", j->region, "region_name",
			 region_name_of(img, j->region), "target_func", j->target_func,
			 "target_func_name", func_name_of(img, j->target_func), "target_region",
			 j->target_region, "target_region_name", region_name_of(img, j->target_region),
			 "key_symbol", lace_json_string(j->key_symbol));
}

json_t *probe_to_json(const struct lace_image *img, size_t i)
{
	const struct lace_sdt_probe *p = &img->probes[i];
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}", "provider", lace_json_string(p->provider), "name", lace_json_string(p->name),
			 "pc", layout_json_hex(p->pc), "base", layout_json_hex(p->base), "semaphore", layout_json_hex(p->semaphore),
			 "args", lace_json_string(p->args), "func", p->func, "func_name", func_name_of(img, p->func));
}

static void dump(FILE *f, json_t *o)
{
	json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	json_decref(o);
}

static void array_print(FILE *f, const char *key, const struct lace_image *img, size_t n,
			json_t *(*one)(const struct lace_image *, size_t))
{
	fprintf(f, ",\n\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(",\n", f);
		dump(f, one(img, i));
	}
	fputs("]", f);
}

void layout_print_json(FILE *f, const struct lace_image *img, enum layout_table what)
{
	json_t *head = json_pack("{s:o, s:s, s:s, s:b, s:b, s:b, s:b, s:{s:i, s:i, s:i}}", "path", lace_json_string(img->path),
				 "arch", arch_name(img->arch), "arch_name", img->arch_name ? img->arch_name : "",
				 "relocatable", img->relocatable, "has_symbols", img->has_symbols, "has_dwarf",
				 img->has_dwarf, "disassembled", img->disassembled, "geometry", "line",
				 (int)img->geom.line, "page", (int)img->geom.page, "fetch", (int)img->geom.fetch);
	json_t *doc = json_schema_object("lace-layout");
	json_object_update(doc, head);
	json_decref(head);
	head = doc;
	json_t *w = json_array();
	for (size_t i = 0; i < img->nwarnings; i++)
		json_array_append_new(w, lace_json_string(img->warnings[i]));
	json_object_set_new(head, "warnings", w);
	/* the header object without its closing brace, then the arrays */
	char *s = json_dumps(head, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	json_decref(head);
	size_t l = strlen(s);
	fwrite(s, 1, l - 1, f);
	free(s);
	if (what == LAYOUT_ALL || what == LAYOUT_SECTIONS)
		array_print(f, "sections", img, img->nsections, section_to_json);
	if (what == LAYOUT_ALL || what == LAYOUT_REGIONS)
		array_print(f, "regions", img, img->nregions, region_to_json);
	if (what == LAYOUT_ALL || what == LAYOUT_FUNCTIONS)
		array_print(f, "functions", img, img->nfuncs, function_to_json);
	if ((what == LAYOUT_ALL && img->disassembled) || what == LAYOUT_BRANCHES)
		array_print(f, "branches", img, img->nbranches, branch_to_json);
	if (what == LAYOUT_ALL || what == LAYOUT_JUMPS)
		array_print(f, "jumps", img, img->njumps, jump_to_json);
	if (what == LAYOUT_ALL || what == LAYOUT_PROBES)
		array_print(f, "probes", img, img->nprobes, probe_to_json);
	fputs("}\n", f);
}
