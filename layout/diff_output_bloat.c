/* lace diff --bloat: exactly what `scripts/bloat-o-meter -t OLD NEW`
 * prints (Linux 6.1's print_result), from d->bloat. */
#include <inttypes.h>

#include "layout/diff_output.h"

static void size_or_dash(struct strbuf *sb, int64_t v)
{
	/* "%7s" % old.get(n, "-") */
	if (v < 0)
		strbuf_addf(sb, " %7s", "-");
	else
		strbuf_addf(sb, " %7" PRId64, v);
}

void diff_output_bloat(const struct lace_diff *d, struct strbuf *sb)
{
	const struct lace_bloat *b = &d->bloat;

	diff_bloat_line(b, sb);
	strbuf_addch(sb, '\n');
	/* "%-40s %7s %7s %+7s": Python ignores + for a string */
	strbuf_addf(sb, "%-40s %7s %7s %7s\n", "Function", "old", "new", "delta");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct lace_bloat_row *r = &b->rows[i];
		if (!r->delta)
			continue;
		strbuf_addf(sb, "%-40s", r->name);
		size_or_dash(sb, r->old_size);
		size_or_dash(sb, r->new_size);
		strbuf_addf(sb, " %+7" PRId64 "\n", r->delta);
	}
	double pct = b->old_total ? ((double)b->new_total - (double)b->old_total) * 100.0 / (double)b->old_total : 0;
	strbuf_addf(sb, "Total: Before=%" PRIu64 ", After=%" PRIu64 ", chg %+.2f%%\n", b->old_total, b->new_total, pct);
}
