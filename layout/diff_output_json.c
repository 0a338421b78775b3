/* lace diff as JSON (jansson).  Field names are stable and documented in
 * doc/lace-diff.1; addresses are hex strings ("0x..."), because 64-bit
 * kernel addresses do not survive JSON readers that use doubles. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "layout/diff_output.h"
#include "util/error.h"
#include "util/json.h"
#include "util/json_schema.h"

static json_t *hex(uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

/* A JSON string even for names that are not UTF-8 (util/utf8.h's rule):
 * a symbol table can hold anything; "" for none. */
static json_t *jstr(const char *s)
{
	return lace_json_string(s ? s : "");
}

static json_t *footprint_json(const struct lace_footprint *f)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "functions", (json_int_t)f->funcs, "bytes",
			 (json_int_t)f->bytes, "lines", (json_int_t)f->lines, "pages", (json_int_t)f->pages,
			 "hugepages", (json_int_t)f->hugepages, "ideal_lines", (json_int_t)f->ideal_lines,
			 "ideal_pages", (json_int_t)f->ideal_pages, "ideal_hugepages", (json_int_t)f->ideal_hugepages);
}

static void func_side(json_t *o, const char *side, const struct lace_image *img, int idx)
{
	char k[32];
	const struct lace_function *f = idx >= 0 ? &img->funcs[idx] : NULL;

#define SET(name, val) do { snprintf(k, sizeof(k), "%s_%s", side, name); json_object_set_new(o, k, f ? (val) : json_null()); } while (0)
	SET("region", jstr(image_func_region_name(img, idx)));
	SET("address", hex(f->addr));
	SET("size", json_integer((json_int_t)f->size));
	SET("align", json_integer((json_int_t)f->alignment));
	SET("pad", json_integer((json_int_t)f->pad_before));
	SET("lines", json_integer(f->lines));
	SET("pages", json_integer(f->pages));
	SET("straddles_line", json_boolean(f->straddles_line));
	SET("straddles_page", json_boolean(f->straddles_page));
#undef SET
}

static json_t *changes_json(unsigned ch)
{
	json_t *a = json_array();
	for (unsigned b = 1; b <= LACE_CH_SHIFTED; b <<= 1)
		if (ch & b)
			json_array_append_new(a, json_string(change_name(b)));
	return a;
}

static json_t *jump_changes_json(unsigned ch)
{
	static const char *const names[] = { "added", "removed", "region", "distance", "hot" };
	json_t *a = json_array();
	for (unsigned i = 0; i < 5; i++)
		if (ch & (1u << i))
			json_array_append_new(a, json_string(names[i]));
	return a;
}

int diff_output_json(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb)
{
	const struct lace_diff_counts *c = &d->counts;
	const struct lace_bloat *b = &d->bloat;
	struct strbuf line = STRBUF_INIT;
	json_t *root = json_schema_object("lace-diff");

	json_object_set_new(root, "old", jstr(d->old->path));
	json_object_set_new(root, "new", jstr(d->new->path));
	json_object_set_new(root, "summary", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		"matched", (json_int_t)c->matched, "added", (json_int_t)c->added, "removed", (json_int_t)c->removed,
		"changed", (json_int_t)c->changed, "region", (json_int_t)c->region, "resized", (json_int_t)c->resized,
		"realigned", (json_int_t)c->realigned, "straddle", (json_int_t)c->straddle,
		"shifted", (json_int_t)c->shifted, "padded", (json_int_t)c->padded,
		"align_unit", (json_int_t)d->align_unit));
	diff_bloat_line(b, &line);
	json_object_set_new(root, "bloat", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s}",
		"add", (json_int_t)b->add, "remove", (json_int_t)b->remove, "grow", (json_int_t)b->grow,
		"shrink", (json_int_t)b->shrink, "up", (json_int_t)b->up, "down", (json_int_t)b->down,
		"net", (json_int_t)b->net, "old_total", (json_int_t)b->old_total, "new_total", (json_int_t)b->new_total,
		"line", line.buf));
	strbuf_release(&line);

	json_t *regions = json_array();
	for (size_t i = 0; i < d->nregions; i++) {
		const struct lace_region_delta *r = &d->regions[i];
		json_array_append_new(regions, json_pack("{s:o,s:b,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "name",
			jstr(r->name), "in_old", r->in_old, "in_new", r->in_new, "old_span", (json_int_t)r->old_span,
			"new_span", (json_int_t)r->new_span, "old_own_span", (json_int_t)r->old_own,
			"new_own_span", (json_int_t)r->new_own, "old_bytes", (json_int_t)r->old_bytes,
			"new_bytes", (json_int_t)r->new_bytes, "old_functions", (json_int_t)r->old_funcs,
			"new_functions", (json_int_t)r->new_funcs));
	}
	json_object_set_new(root, "regions", regions);

	json_t *pairs = json_array();
	for (size_t i = 0; i < d->nxbranches; i++) {
		const struct lace_xbranch *x = &d->xbranches[i];
		json_array_append_new(pairs, json_pack("{s:o,s:o,s:I,s:I}", "from", jstr(x->from), "to", jstr(x->to),
			"old", (json_int_t)x->old_count, "new", (json_int_t)x->new_count));
	}
	json_object_set_new(root, "cross_region_branches", json_pack("{s:b,s:o}", "disassembled",
		d->branches_old && d->branches_new, "pairs", pairs));

	json_t *hotf = json_array();
	for (size_t i = 0; i < d->nfuncs; i++)
		if (d->funcs[i].hot)
			json_array_append_new(hotf, json_pack("{s:o,s:f}", "name", jstr(d->funcs[i].name),
							      "weight", d->funcs[i].weight));
	json_object_set_new(root, "hot", json_pack("{s:o,s:I,s:o,s:o,s:o,s:I,s:I,s:{s:I,s:I,s:I}}",
		"source", jstr(o->hot_source ? o->hot_source : "default"), "unmatched_names", (json_int_t)d->hot_unmatched,
		"old", footprint_json(&d->hot_old), "new", footprint_json(&d->hot_new), "functions", hotf,
		"old_rule_page", (json_int_t)d->rule_page[0], "new_rule_page", (json_int_t)d->rule_page[1],
		"straddles", "gained", (json_int_t)d->straddle_gained, "lost", (json_int_t)d->straddle_lost,
		"listed", (json_int_t)d->straddle_listed));

	json_t *jumps = json_array();
	for (size_t i = 0; i < d->njumps; i++) {
		const struct lace_jump_delta *j = &d->jumps[i];
		if (!j->changes && !o->all)
			continue;
		json_t *jo = json_pack("{s:o,s:o,s:o}", "function", jstr(j->func), "key", jstr(j->key), "changes",
				       jump_changes_json(j->changes));
		json_object_set_new(jo, "old_code", j->old_idx >= 0 ? hex(d->old->jumps[j->old_idx].code) : json_null());
		json_object_set_new(jo, "new_code", j->new_idx >= 0 ? hex(d->new->jumps[j->new_idx].code) : json_null());
		json_object_set_new(jo, "old_target_region", j->old_idx >= 0 ? jstr(j->old_target_region) : json_null());
		json_object_set_new(jo, "new_target_region", j->new_idx >= 0 ? jstr(j->new_target_region) : json_null());
		json_object_set_new(jo, "old_distance", j->old_idx >= 0 ? json_integer(j->old_distance) : json_null());
		json_object_set_new(jo, "new_distance", j->new_idx >= 0 ? json_integer(j->new_distance) : json_null());
		json_object_set_new(jo, "old_hot", json_boolean(j->old_hot));
		json_object_set_new(jo, "new_hot", json_boolean(j->new_hot));
		json_array_append_new(jumps, jo);
	}
	json_object_set_new(root, "jump_sites", jumps);

	json_t *funcs = json_array();
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct lace_func_delta *f = &d->funcs[i];
		if (!(f->changes & LACE_CH_REAL) && !(o->all && f->changes))
			continue;
		json_t *fo = json_pack("{s:o,s:o,s:o,s:I,s:I,s:b,s:f}", "name", jstr(f->name),
			"old_name", f->old_name ? jstr(f->old_name) : json_null(),
			"changes", changes_json(f->changes), "address_delta", (json_int_t)f->addr_delta,
			"size_delta", (json_int_t)f->size_delta, "hot", f->hot, "weight", f->weight);
		func_side(fo, "old", d->old, f->old_idx);
		func_side(fo, "new", d->new, f->new_idx);
		json_array_append_new(funcs, fo);
	}
	json_object_set_new(root, "functions", funcs);

	json_t *findings = json_array();
	for (size_t i = 0; i < d->nfindings; i++) {
		const struct lace_finding *f = &d->findings[i];
		json_t *fo = json_pack("{s:s,s:s,s:o,s:o}", "rule", lace_rules[f->rule].id,
			"severity", severity_name(f->severity), "subject", jstr(f->subject), "reason", jstr(f->reason));
		/* only with --expect: the declaration, and the severity it lowered */
		if (f->expected) {
			json_object_set_new(fo, "expected", jstr(f->expected));
			json_object_set_new(fo, "rule_severity", json_string(severity_name(f->rule_severity)));
		}
		json_array_append_new(findings, fo);
	}
	json_object_set_new(root, "findings", findings);
	json_t *expect = json_array();
	for (size_t i = 0; d->opts.expect && i < d->opts.expect->n; i++)
		json_array_append_new(expect, json_pack("{s:o,s:I}", "declaration", jstr(d->opts.expect->v[i].spec),
							"matched", (json_int_t)d->expect_matched[i]));
	json_object_set_new(root, "expect", expect);
	int ms = diff_max_severity(d);
	json_object_set_new(root, "max_severity", ms < 0 ? json_null() : json_string(severity_name(ms)));

	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		return lace_error_set(ENOMEM, "cannot encode JSON");
	strbuf_addstr(sb, s);
	strbuf_addch(sb, '\n');
	free(s);
	return 0;
}
