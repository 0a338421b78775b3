/* lace diff as Markdown (a review comment: summary, tables, findings). */
#include <inttypes.h>
#include <string.h>

#include "layout/diff_output.h"

#define MD_MAX_ROWS 40

void diff_output_md(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb)
{
	const struct lace_diff_counts *c = &d->counts;
	const struct lace_footprint *ho = &d->hot_old, *hn = &d->hot_new;
	size_t rows = 0, more = 0;

	strbuf_addstr(sb, "### lace diff: ");
	strbuf_add_md_code(sb, d->old->path ? d->old->path : "old", 0);
	strbuf_addstr(sb, " → ");
	strbuf_add_md_code(sb, d->new->path ? d->new->path : "new", 0);
	strbuf_addstr(sb, "\n\n```\n");
	diff_bloat_line(&d->bloat, sb);
	strbuf_addstr(sb, "\n```\n\n");
	strbuf_addf(sb, "%zu functions matched, %zu added, %zu removed; **%zu changed** "
		    "(region %zu, resized %zu, realigned %zu, straddle %zu); %zu at a new address.\n\n",
		    c->matched, c->added, c->removed, c->changed, c->region, c->resized, c->realigned, c->straddle,
		    c->shifted);

	strbuf_addstr(sb, "| region | old bytes | new bytes | delta |\n|---|--:|--:|--:|\n");
	for (size_t i = 0; i < d->nregions; i++) {
		const struct lace_region_delta *r = &d->regions[i];
		if (r->old_bytes == r->new_bytes && !o->all)
			continue;
		strbuf_addstr(sb, "| ");
		strbuf_add_md_code(sb, r->name, 1);
		strbuf_addf(sb, " | %" PRIu64 " | %" PRIu64 " | %+" PRId64 " |\n", r->old_bytes, r->new_bytes,
			    (int64_t)r->new_bytes - (int64_t)r->old_bytes);
	}
	strbuf_addstr(sb, "\n**Hot set** (");
	strbuf_add_md(sb, o->hot_source ? o->hot_source : "entry region + jump-label sites");
	strbuf_addf(sb, ", %zu functions):\n\n", hn->funcs);
	strbuf_addstr(sb, "| | old | new | ideal |\n|---|--:|--:|--:|\n");
	strbuf_addf(sb, "| 64 B lines | %zu | %zu | %zu |\n", ho->lines, hn->lines, hn->ideal_lines);
	strbuf_addf(sb, "| 4 KiB pages | %zu | %zu | %zu |\n", ho->pages, hn->pages, hn->ideal_pages);
	strbuf_addf(sb, "| 2 MiB pages | %zu | %zu | %zu |\n\n", ho->hugepages, hn->hugepages, hn->ideal_hugepages);

	if (d->branches_old && d->branches_new && d->nxbranches) {
		strbuf_addstr(sb, "| cross-region branches | old | new |\n|---|--:|--:|\n");
		for (size_t i = 0; i < d->nxbranches; i++) {
			const struct lace_xbranch *x = &d->xbranches[i];
			if (x->old_count == x->new_count && !o->all)
				continue;
			strbuf_addstr(sb, "| ");
			strbuf_add_md_code(sb, x->from, 1);
			strbuf_addstr(sb, " → ");
			strbuf_add_md_code(sb, x->to, 1);
			strbuf_addf(sb, " | %zu | %zu |\n", x->old_count, x->new_count);
		}
		strbuf_addch(sb, '\n');
	}

	if (d->nfindings) {
		strbuf_addstr(sb, "**Findings:**\n\n");
		for (size_t i = 0; i < d->nfindings; i++) {
			const struct lace_finding *f = &d->findings[i];
			strbuf_addf(sb, "- **%s** `%s` ", severity_name(f->severity), lace_rules[f->rule].id);
			strbuf_add_md_code(sb, f->subject, 0);
			strbuf_addstr(sb, ": ");
			strbuf_add_md(sb, f->reason);
			if (f->expected) {
				strbuf_addstr(sb, " (expected: ");
				strbuf_add_md_code(sb, f->expected, 0);
				strbuf_addch(sb, ')');
			}
			strbuf_addch(sb, '\n');
		}
		strbuf_addch(sb, '\n');
	} else {
		strbuf_addstr(sb, "No findings.\n\n");
	}
	for (size_t i = 0; d->opts.expect && i < d->opts.expect->n; i++) {
		if (d->expect_matched[i])
			continue;
		strbuf_addstr(sb, "- note: ");
		strbuf_add_md_code(sb, d->opts.expect->v[i].spec, 0);
		strbuf_addstr(sb, " (`--expect`) matched no finding: a stale declaration?\n\n");
	}

	for (size_t i = 0; i < d->nfuncs; i++) {
		const char *names[8];
		const struct lace_func_delta *f = &d->funcs[i];
		size_t nr = diff_func_rows(f, o->all, names, 8);
		if (!nr)
			continue;
		if (rows >= MD_MAX_ROWS) {
			more++;
			continue;
		}
		if (!rows++)
			strbuf_addstr(sb, "| function | change | region | address | align | size |\n|---|---|---|---|---|---|\n");
		const struct lace_function *of = f->old_idx >= 0 ? &d->old->funcs[f->old_idx] : NULL;
		const struct lace_function *nf = f->new_idx >= 0 ? &d->new->funcs[f->new_idx] : NULL;
		strbuf_addstr(sb, "| ");
		strbuf_add_md_code(sb, f->name, 1);
		strbuf_addstr(sb, f->hot ? " 🔥 | " : " | ");
		for (size_t k = 0; k < nr; k++)
			strbuf_addf(sb, "%s%s", k ? ", " : "", names[k]);
		strbuf_addstr(sb, " | ");
		strbuf_add_md(sb, of ? image_func_region_name(d->old, f->old_idx) : "–");
		strbuf_addstr(sb, " → ");
		strbuf_add_md(sb, nf ? image_func_region_name(d->new, f->new_idx) : "–");
		strbuf_addstr(sb, " | ");
		if (of)
			strbuf_addf(sb, "0x%" PRIx64, of->addr);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " → ");
		if (nf)
			strbuf_addf(sb, "0x%" PRIx64, nf->addr);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " | ");
		if (of)
			strbuf_addf(sb, "%" PRIu64, of->alignment);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " → ");
		if (nf)
			strbuf_addf(sb, "%" PRIu64, nf->alignment);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " | ");
		if (of)
			strbuf_addf(sb, "%" PRIu64, of->size);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " → ");
		if (nf)
			strbuf_addf(sb, "%" PRIu64, nf->size);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, " |\n");
	}
	if (more)
		strbuf_addf(sb, "\n…and %zu more changed functions (`lace diff --csv` lists them all).\n", more);
}
