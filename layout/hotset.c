/* Hot sets: parsing hot files and counting the lines/pages code touches. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/hotset.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int cmp_str_idx(const void *a, const void *b, void *arg)
{
	char **names = arg;
	return strcmp(names[*(const size_t *)a], names[*(const size_t *)b]);
}

int hotset_parse(const char *text, struct lace_hotset *hs)
{
	size_t alloc = 0, walloc = 0, lineno = 0;

	memset(hs, 0, sizeof(*hs));
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len);
		char *hash = strchr(line, '#');
		char *name, *w, *rest;

		lineno++;
		p += len + (eol ? 1 : 0);
		if (hash)
			*hash = 0;
		name = strtok_r(line, " \t\r", &rest);
		if (!name) {
			free(line);
			continue;
		}
		double weight = 1;
		w = strtok_r(NULL, " \t\r", &rest);
		if (w) {
			int err = 0;
			if (parse_double(w, &weight) || weight < 0)
				err = lace_error_set(EINVAL, "line %zu: weight '%s' is not a non-negative number",
						     lineno, w);
			else if (strtok_r(NULL, " \t\r", &rest))
				err = lace_error_set(EINVAL, "line %zu: expected 'NAME [WEIGHT]'", lineno);
			if (err) {
				free(line); /* after the message: w points into it */
				hotset_free(hs);
				return err;
			}
		}
		ALLOC_GROW(hs->names, hs->n + 1, alloc);
		ALLOC_GROW(hs->weights, hs->n + 1, walloc);
		hs->names[hs->n] = xstrdup(name);
		hs->weights[hs->n] = weight;
		hs->n++;
		free(line);
	}
	size_t *idx = xcalloc(hs->n, sizeof(*idx));
	for (size_t i = 0; i < hs->n; i++)
		idx[i] = i;
	qsort_r(idx, hs->n, sizeof(*idx), cmp_str_idx, hs->names);
	hs->index = idx;
	return 0;
}

int hotset_load(const char *path, struct lace_hotset *hs)
{
	struct strbuf sb = STRBUF_INIT;
	int err = strbuf_read_file(&sb, path);

	memset(hs, 0, sizeof(*hs));
	if (err < 0) {
		strbuf_release(&sb);
		return lace_error_set(-err, "cannot read hot file: %s", strerror(-err));
	}
	if (memchr(sb.buf, 0, sb.len)) {
		strbuf_release(&sb);
		return lace_error_set(EINVAL, "hot file is not text");
	}
	switch (hotset_detect(sb.buf)) {
	case HOT_PERF_REPORT:
		err = hotset_parse_perf_report(sb.buf, hs);
		break;
	case HOT_PERF_SCRIPT:
		err = hotset_parse_perf_script(sb.buf, hs);
		break;
	default:
		err = hotset_parse(sb.buf, hs);
		break;
	}
	strbuf_release(&sb);
	return err;
}

void hotset_free(struct lace_hotset *hs)
{
	for (size_t i = 0; i < hs->n; i++)
		free(hs->names[i]);
	free(hs->names);
	free(hs->weights);
	free(hs->index);
	memset(hs, 0, sizeof(*hs));
}

static long lookup(const struct lace_hotset *hs, const char *name)
{
	const size_t *idx = hs->index;
	size_t lo = 0, hi = hs->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(hs->names[idx[mid]], name);
		if (!c)
			return (long)idx[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

long hotset_find(const struct lace_hotset *hs, const char *name, const char *base)
{
	long i = -1;

	if (!hs || !hs->n || !hs->index)
		return -1;
	if (name)
		i = lookup(hs, name);
	if (i < 0 && base)
		i = lookup(hs, base);
	return i;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The ranges as sorted, merged [first, last] unit intervals (pairs):
 * O(n log n) however large the ranges are, so a function that claims an
 * absurd size costs no more than a small one. */
uint64_t *ranges_units(const uint64_t *start, const uint64_t *size, size_t n, uint64_t unit, size_t *nint)
{
	uint64_t *iv = xcalloc(2 * n, sizeof(*iv));
	size_t m = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!size[i])
			continue;
		uint64_t end = start[i] + size[i] - 1;
		if (end < start[i])
			end = UINT64_MAX; /* wraps: clamp */
		iv[2 * m] = start[i] / unit;
		iv[2 * m + 1] = end / unit;
		m++;
	}
	/* sort pairs by first element: qsort over 16-byte records */
	qsort(iv, m, 2 * sizeof(*iv), cmp_u64);
	for (size_t i = 0; i < m;) {
		uint64_t lo = iv[2 * i], hi = iv[2 * i + 1];
		size_t j = i + 1;
		while (j < m && iv[2 * j] <= hi) {
			if (iv[2 * j + 1] > hi)
				hi = iv[2 * j + 1];
			j++;
		}
		iv[2 * k] = lo;
		iv[2 * k + 1] = hi;
		k++;
		i = j;
	}
	*nint = k;
	return iv;
}

bool units_contain(const uint64_t *iv, size_t nint, uint64_t u)
{
	size_t lo = 0, hi = nint;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u < iv[2 * mid])
			hi = mid;
		else if (u > iv[2 * mid + 1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static size_t count_units(const uint64_t *start, const uint64_t *size, size_t n, uint64_t unit)
{
	size_t nint, total = 0;
	uint64_t *iv = ranges_units(start, size, n, unit, &nint);

	for (size_t i = 0; i < nint; i++)
		total += iv[2 * i + 1] - iv[2 * i] + 1;
	free(iv);
	return total;
}

void ranges_count(const uint64_t *start, const uint64_t *size, size_t n,
		  unsigned line, unsigned page, uint64_t hugepage, struct lace_span_count *out)
{
	out->lines = count_units(start, size, n, line ? line : 64);
	out->pages = count_units(start, size, n, page ? page : 4096);
	out->hugepages = count_units(start, size, n, hugepage ? hugepage : (2u << 20));
}
