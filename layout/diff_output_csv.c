/* lace diff as CSV (the stable function table). */
#include <inttypes.h>
#include <string.h>

#include "layout/diff_output.h"

static void csv_u64(struct strbuf *sb, bool have, uint64_t v, bool hex)
{
	strbuf_addch(sb, ',');
	if (have)
		strbuf_addf(sb, hex ? "0x%" PRIx64 : "%" PRIu64, v);
}

void diff_output_csv(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb)
{
	strbuf_addstr(sb, "name,change,old_region,new_region,old_address,new_address,old_align,new_align,"
			  "old_size,new_size,old_pad,new_pad,old_lines,new_lines,old_pages,new_pages,hot\n");
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct lace_func_delta *f = &d->funcs[i];
		const struct lace_function *of = f->old_idx >= 0 ? &d->old->funcs[f->old_idx] : NULL;
		const struct lace_function *nf = f->new_idx >= 0 ? &d->new->funcs[f->new_idx] : NULL;
		const char *rows[8];
		size_t nr = diff_func_rows(f, o->all, rows, 8);

		for (size_t r = 0; r < nr; r++) {
			strbuf_add_csv(sb, f->name, ',');
			strbuf_addf(sb, ",%s,", rows[r]);
			strbuf_add_csv(sb, image_func_region_name(d->old, f->old_idx), ',');
			strbuf_addch(sb, ',');
			strbuf_add_csv(sb, image_func_region_name(d->new, f->new_idx), ',');
			csv_u64(sb, of, of ? of->addr : 0, true);
			csv_u64(sb, nf, nf ? nf->addr : 0, true);
			csv_u64(sb, of, of ? of->alignment : 0, false);
			csv_u64(sb, nf, nf ? nf->alignment : 0, false);
			csv_u64(sb, of, of ? of->size : 0, false);
			csv_u64(sb, nf, nf ? nf->size : 0, false);
			csv_u64(sb, of, of ? of->pad_before : 0, false);
			csv_u64(sb, nf, nf ? nf->pad_before : 0, false);
			csv_u64(sb, of, of ? of->lines : 0, false);
			csv_u64(sb, nf, nf ? nf->lines : 0, false);
			csv_u64(sb, of, of ? of->pages : 0, false);
			csv_u64(sb, nf, nf ? nf->pages : 0, false);
			strbuf_addf(sb, ",%d\n", f->hot ? 1 : 0);
		}
	}
}
