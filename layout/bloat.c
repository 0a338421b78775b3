/* bloat-o-meter -t, computed the way scripts/bloat-o-meter computes it
 * (Linux 6.1): `nm --size-sort` symbols of type t/T, generated names
 * skipped, every ".NUMBER" removed, sizes of equal names summed, then per
 * name old/new/delta; rows sorted by (delta, name) descending as Python's
 * sort+reverse of (delta, name) tuples does. */
#include <stdlib.h>
#include <string.h>

#include "layout/diff.h"
#include "util/xalloc.h"

struct bsym {
	char *name;
	uint64_t size;
};

static int cmp_bsym(const void *a, const void *b)
{
	return strcmp(((const struct bsym *)a)->name, ((const struct bsym *)b)->name);
}

/* bloat-o-meter's re.sub(r'\.[0-9]+', '', name) */
static char *strip_numbers(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	while (*s) {
		if (s[0] == '.' && s[1] >= '0' && s[1] <= '9') {
			s++;
			while (*s >= '0' && *s <= '9')
				s++;
			continue;
		}
		*o++ = *s++;
	}
	*o = 0;
	return out;
}

/* its "strip generated symbols" list, and the lines it never parses: nm
 * lines holding ':' (archive member headers) */
static bool bloat_skip(const char *n)
{
	return !strncmp(n, "__mod_", 6) || !strncmp(n, "__se_sys", 8) || !strncmp(n, "__se_compat_sys", 15) ||
	       !strncmp(n, "__addressable_", 14) || !strcmp(n, "linux_banner") || !strcmp(n, "vermagic") ||
	       strchr(n, ':');
}

static struct bsym *bloat_syms(const struct lace_image *img, const int *map, size_t *count)
{
	size_t cap = img->ntext_syms > img->nfuncs ? img->ntext_syms : img->nfuncs;
	struct bsym *v = xcalloc(cap + 1, sizeof(*v));
	size_t m = 0, k = 0;

	/* an image loaded from a file has priv: its text symbols are what nm
	 * lists (none when stripped); a model built in memory has functions */
	if (img->priv) {
		for (size_t i = 0; i < img->ntext_syms; i++) {
			const struct lace_text_symbol *t = &img->text_syms[i];
			if (t->size && t->name && !bloat_skip(t->name))
				v[m++] = (struct bsym){ strip_numbers(t->name), t->size };
		}
	} else {
		for (size_t i = 0; i < img->nfuncs; i++) {
			const struct lace_function *f = &img->funcs[i];
			if (map[i] < 0 || !f->size || !f->name || bloat_skip(f->name))
				continue;
			v[m++] = (struct bsym){ strip_numbers(f->name), f->size };
		}
	}
	qsort(v, m, sizeof(*v), cmp_bsym);
	for (size_t i = 0; i < m; i++) {
		if (k && !strcmp(v[k - 1].name, v[i].name)) {
			v[k - 1].size += v[i].size;
			free(v[i].name);
		} else {
			v[k++] = v[i];
		}
	}
	*count = k;
	return v;
}

/* Python: delta.sort(); delta.reverse() over (delta, name) tuples */
static int cmp_row(const void *a, const void *b)
{
	const struct lace_bloat_row *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	return -strcmp(x->name, y->name);
}

void diff_bloat(struct lace_diff *d)
{
	size_t no, nn, i = 0, j = 0, alloc = 0;
	struct bsym *o = bloat_syms(d->old, d->old_to_delta, &no);
	struct bsym *n = bloat_syms(d->new, d->new_to_delta, &nn);
	struct lace_bloat *b = &d->bloat;

	memset(b, 0, sizeof(*b));
	for (size_t k = 0; k < no; k++)
		b->old_total += o[k].size;
	for (size_t k = 0; k < nn; k++)
		b->new_total += n[k].size;
	while (i < no || j < nn) {
		int c = i >= no ? 1 : j >= nn ? -1 : strcmp(o[i].name, n[j].name);
		struct lace_bloat_row r;
		if (c < 0) {
			b->remove++;
			b->down += o[i].size;
			r = (struct lace_bloat_row){ o[i].name, (int64_t)o[i].size, -1, -(int64_t)o[i].size };
			i++;
		} else if (c > 0) {
			b->add++;
			b->up += n[j].size;
			r = (struct lace_bloat_row){ n[j].name, -1, (int64_t)n[j].size, (int64_t)n[j].size };
			j++;
		} else {
			if (n[j].size > o[i].size) {
				b->grow++;
				b->up += n[j].size - o[i].size;
			} else if (n[j].size < o[i].size) {
				b->shrink++;
				b->down += o[i].size - n[j].size;
			}
			r = (struct lace_bloat_row){ n[j].name, (int64_t)o[i].size, (int64_t)n[j].size,
						     (int64_t)n[j].size - (int64_t)o[i].size };
			free(o[i].name);
			i++;
			j++;
		}
		ALLOC_GROW(b->rows, b->nrows + 1, alloc);
		b->rows[b->nrows++] = r;
	}
	if (b->nrows)
		qsort(b->rows, b->nrows, sizeof(*b->rows), cmp_row);
	b->net = (int64_t)b->up - (int64_t)b->down;
	free(o);
	free(n);
}
