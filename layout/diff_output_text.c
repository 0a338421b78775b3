/* lace diff as text: a one-screen summary, then the details. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/diff_output.h"
#include "util/array.h"

void diff_bloat_line(const struct lace_bloat *b, struct strbuf *sb)
{
	/* bloat-o-meter: "%s/%s ... up/down: %s/%s (%s)" % (..., up, -down, up-down) */
	strbuf_addf(sb, "add/remove: %u/%u grow/shrink: %u/%u up/down: %" PRIu64 "/%" PRId64 " (%" PRId64 ")",
		    b->add, b->remove, b->grow, b->shrink, b->up, -(int64_t)b->down, b->net);
}

size_t diff_func_rows(const struct lace_func_delta *f, bool all, const char **names, size_t max)
{
	static const unsigned order[] = { LACE_CH_ADDED, LACE_CH_REMOVED, LACE_CH_REGION, LACE_CH_RESIZED,
					  LACE_CH_REALIGNED, LACE_CH_STRADDLE };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(order) && n < max; i++)
		if (f->changes & order[i])
			names[n++] = change_name(order[i]);
	if (!n && all && (f->changes & LACE_CH_SHIFTED) && n < max)
		names[n++] = change_name(LACE_CH_SHIFTED);
	return n;
}

static void footprint_rows(const struct lace_diff *d, struct strbuf *sb)
{
	const struct lace_footprint *o = &d->hot_old, *n = &d->hot_new;

	strbuf_addf(sb, "  %-10s %8s %8s %8s %12s\n", "", "old", "new", "delta", "ideal(new)");
	strbuf_addf(sb, "  %-10s %8zu %8zu %+8td %12zu\n", "functions", o->funcs, n->funcs,
		    (ptrdiff_t)n->funcs - (ptrdiff_t)o->funcs, n->funcs);
	strbuf_addf(sb, "  %-10s %8" PRIu64 " %8" PRIu64 " %+8" PRId64 " %12" PRIu64 "\n", "bytes", o->bytes,
		    n->bytes, (int64_t)n->bytes - (int64_t)o->bytes, n->bytes);
	strbuf_addf(sb, "  %-10s %8zu %8zu %+8td %12zu\n", "64B lines", o->lines, n->lines,
		    (ptrdiff_t)n->lines - (ptrdiff_t)o->lines, n->ideal_lines);
	strbuf_addf(sb, "  %-10s %8zu %8zu %+8td %12zu\n", "4K pages", o->pages, n->pages,
		    (ptrdiff_t)n->pages - (ptrdiff_t)o->pages, n->ideal_pages);
	strbuf_addf(sb, "  %-10s %8zu %8zu %+8td %12zu\n", "2M pages", o->hugepages, n->hugepages,
		    (ptrdiff_t)n->hugepages - (ptrdiff_t)o->hugepages, n->ideal_hugepages);
}

static const struct lace_function *fn(const struct lace_image *img, int idx)
{
	return idx >= 0 ? &img->funcs[idx] : NULL;
}

static void addr_pair(struct strbuf *sb, const struct lace_function *o, const struct lace_function *n)
{
	if (o)
		strbuf_addf(sb, "0x%" PRIx64, o->addr);
	else
		strbuf_addstr(sb, "-");
	strbuf_addstr(sb, " -> ");
	if (n)
		strbuf_addf(sb, "0x%" PRIx64, n->addr);
	else
		strbuf_addstr(sb, "-");
}

static void func_detail(const struct lace_diff *d, const struct lace_func_delta *f, bool all, struct strbuf *sb)
{
	const char *rows[8];
	size_t nr = diff_func_rows(f, all, rows, 8);
	const struct lace_function *o = fn(d->old, f->old_idx), *n = fn(d->new, f->new_idx);
	const char *orn = image_func_region_name(d->old, f->old_idx), *nrn = image_func_region_name(d->new, f->new_idx);

	if (!nr)
		return;
	strbuf_addf(sb, "  %s%s", f->name, f->hot ? " [hot]" : "");
	if (f->old_name && strcmp(f->old_name, f->name))
		strbuf_addf(sb, " (was %s)", f->old_name);
	strbuf_addstr(sb, ": ");
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", rows[i]);
	strbuf_addch(sb, '\n');
	strbuf_addstr(sb, "      ");
	if (o && n && strcmp(orn, nrn))
		strbuf_addf(sb, "region %s -> %s, ", *orn ? orn : "-", *nrn ? nrn : "-");
	else if (n || o)
		strbuf_addf(sb, "region %s, ", n ? (*nrn ? nrn : "-") : (*orn ? orn : "-"));
	strbuf_addstr(sb, "addr ");
	addr_pair(sb, o, n);
	if (o && n) {
		strbuf_addf(sb, " (%+" PRId64 ")", f->addr_delta);
		strbuf_addf(sb, ", size %" PRIu64, o->size);
		if (o->size != n->size)
			strbuf_addf(sb, " -> %" PRIu64, n->size);
		strbuf_addf(sb, ", align %" PRIu64 " -> %" PRIu64, o->alignment, n->alignment);
		strbuf_addf(sb, ", pad %" PRIu64 " -> %" PRIu64, o->pad_before, n->pad_before);
		strbuf_addf(sb, ", lines %u -> %u, pages %u -> %u", o->lines, n->lines, o->pages, n->pages);
		if (n->straddles_page != o->straddles_page)
			strbuf_addf(sb, ", %s a page", n->straddles_page ? "now straddles" : "no longer straddles");
		else if (n->straddles_line != o->straddles_line)
			strbuf_addf(sb, ", %s a line", n->straddles_line ? "now straddles" : "no longer straddles");
	} else {
		const struct lace_function *x = n ? n : o;
		strbuf_addf(sb, ", size %" PRIu64 ", align %" PRIu64 ", lines %u, pages %u", x->size, x->alignment,
			    x->lines, x->pages);
	}
	strbuf_addch(sb, '\n');
}

static void jump_detail(const struct lace_jump_delta *j, struct strbuf *sb)
{
	strbuf_addf(sb, "  %s%s%s: ", j->func, *j->key ? " key " : "", j->key);
	if (j->changes & LACE_JCH_ADDED)
		strbuf_addf(sb, "added, slow path in %s at %+" PRId64, *j->new_target_region ? j->new_target_region : "?",
			    j->new_distance);
	else if (j->changes & LACE_JCH_REMOVED)
		strbuf_addf(sb, "removed (slow path was in %s at %+" PRId64 ")",
			    *j->old_target_region ? j->old_target_region : "?", j->old_distance);
	else
		strbuf_addf(sb, "slow path %s %+" PRId64 " -> %s %+" PRId64 "%s",
			    *j->old_target_region ? j->old_target_region : "?", j->old_distance,
			    *j->new_target_region ? j->new_target_region : "?", j->new_distance,
			    j->new_hot && !j->old_hot ? " (now next to hot code)" :
			    j->old_hot && !j->new_hot ? " (moved away from hot code)" : "");
	strbuf_addch(sb, '\n');
}

void diff_output_text(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb)
{
	const struct lace_diff_counts *c = &d->counts;
	size_t nsev[3] = { 0 };
	size_t jchanged = 0, jregion = 0, jdist = 0;

	strbuf_addf(sb, "lace diff %s -> %s\n", d->old->path ? d->old->path : "old",
		    d->new->path ? d->new->path : "new");
	strbuf_addf(sb, "functions: %zu matched, %zu added, %zu removed; %zu changed "
		    "(region %zu, resized %zu, realigned %zu, straddle %zu); %zu shifted, %zu re-padded\n",
		    c->matched, c->added, c->removed, c->changed, c->region, c->resized, c->realigned,
		    c->straddle, c->shifted, c->padded);
	diff_bloat_line(&d->bloat, sb);
	strbuf_addch(sb, '\n');

	/* own span: the region's address range less the regions nested in it,
	 * padding included, so growth by alignment padding shows; function
	 * bytes: the sum of the sizes of the functions inside */
	strbuf_addf(sb, "\nregions:\n  %-24s %10s %10s %9s %10s %10s %9s %7s %7s\n", "", "old span", "new span",
		    "delta", "old fbytes", "new fbytes", "delta", "old fn", "new fn");
	for (size_t i = 0; i < d->nregions; i++) {
		const struct lace_region_delta *r = &d->regions[i];
		if (!o->all && !r->old_bytes && !r->new_bytes)
			continue; /* PLT stubs and the like: no function bytes either side */
		strbuf_addf(sb, "  %-24s %10" PRIu64 " %10" PRIu64 " %+9" PRId64 " %10" PRIu64 " %10" PRIu64
			    " %+9" PRId64 " %7zu %7zu%s\n", r->name, r->old_own, r->new_own,
			    (int64_t)r->new_own - (int64_t)r->old_own, r->old_bytes, r->new_bytes,
			    (int64_t)r->new_bytes - (int64_t)r->old_bytes, r->old_funcs, r->new_funcs,
			    !r->in_old ? "  (new region)" : !r->in_new ? "  (gone)" : "");
	}

	strbuf_addstr(sb, "\ncross-region branches (old -> new):\n");
	if (!d->branches_old || !d->branches_new)
		strbuf_addstr(sb, "  (not disassembled)\n");
	else if (!d->nxbranches)
		strbuf_addstr(sb, "  none\n");
	size_t hidden = 0;
	for (size_t i = 0; i < d->nxbranches; i++) {
		const struct lace_xbranch *x = &d->xbranches[i];
		if (!o->all && x->old_count == x->new_count && d->nxbranches > 12) {
			hidden++; /* a kernel has dozens of pairs: show the ones that changed */
			continue;
		}
		strbuf_addf(sb, "  %-20s -> %-20s %7zu -> %zu\n", x->from, x->to, x->old_count, x->new_count);
	}
	if (hidden)
		strbuf_addf(sb, "  %zu region pairs unchanged (--all lists them)\n", hidden);

	strbuf_addf(sb, "\nhot set (%s):\n",
		    o->hot_source ? o->hot_source :
				    "default: entry path text + jump-label sites, less init and cold code");
	if (d->hot_unmatched)
		strbuf_addf(sb, "  %zu hot names found in neither image\n", d->hot_unmatched);
	footprint_rows(d, sb);
	if (d->rule_page[0] != 4096 || d->rule_page[1] != 4096)
		strbuf_addf(sb, "  page rules use %" PRIu64 " KiB -> %" PRIu64 " KiB pages%s\n", d->rule_page[0] >> 10,
			    d->rule_page[1] >> 10, d->rule_page[1] == 2u << 20 ? " (x86-64 kernel text: 2 MiB mappings)" : "");

	for (size_t i = 0; i < d->njumps; i++) {
		unsigned ch = d->jumps[i].changes;
		jchanged += !!ch;
		jregion += !!(ch & LACE_JCH_REGION);
		jdist += !!(ch & LACE_JCH_DISTANCE);
	}
	strbuf_addf(sb, "\njump-label sites: %zu old, %zu new; %zu changed (slow path region %zu, distance %zu)\n",
		    d->old->njumps, d->new->njumps, jchanged, jregion, jdist);

	size_t nexpected = 0;
	for (size_t i = 0; i < d->nfindings; i++) {
		nsev[d->findings[i].severity]++;
		nexpected += !!d->findings[i].expected;
	}
	strbuf_addf(sb, "\nfindings: %zu error, %zu warning, %zu info", nsev[2], nsev[1], nsev[0]);
	if (nexpected)
		strbuf_addf(sb, " (%zu of them expected)", nexpected);
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < d->nfindings; i++) {
		const struct lace_finding *f = &d->findings[i];
		strbuf_addf(sb, "  %-7s %-22s %s: %s", severity_name(f->severity), lace_rules[f->rule].id,
			    f->subject, f->reason);
		if (f->expected)
			strbuf_addf(sb, " (expected: %s)", f->expected);
		strbuf_addch(sb, '\n');
	}
	for (size_t i = 0; d->opts.expect && i < d->opts.expect->n; i++)
		if (!d->expect_matched[i])
			strbuf_addf(sb, "  note: --expect %s matched no finding (a stale declaration?)\n",
				    d->opts.expect->v[i].spec);

	if (c->changed || (o->all && c->shifted)) {
		strbuf_addstr(sb, "\nchanged functions:\n");
		for (size_t i = 0; i < d->nfuncs; i++)
			func_detail(d, &d->funcs[i], o->all, sb);
	}
	if (jchanged) {
		strbuf_addstr(sb, "\njump-label sites whose slow path changed:\n");
		for (size_t i = 0; i < d->njumps; i++)
			if (d->jumps[i].changes)
				jump_detail(&d->jumps[i], sb);
	}
}
