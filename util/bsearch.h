/* bsearch: lower and upper bound in a sorted array, the one binary search
 * lace's lookups are built on (libc's bsearch() finds only an equal
 * element, and not the first of several).
 *
 * cmp(key, elem) is <0, 0, >0 as key sorts before, with or after elem;
 * the array must be sorted by it.  static inline, so that a comparator
 * known at the call is inlined and the loop costs what a hand-written
 * one does (image_func_at() runs once per branch of a vmlinux). */
#ifndef LACE_BSEARCH_H
#define LACE_BSEARCH_H

#include <stddef.h>

typedef int bsearch_cmp_fn(const void *key, const void *elem);

/* Index of the first element not before key (cmp(key, elem) <= 0), or n. */
static inline size_t bsearch_lower(const void *key, const void *base, size_t n, size_t size,
				   bsearch_cmp_fn *cmp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(key, (const char *)base + mid * size) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first element after key (cmp(key, elem) < 0), or n: the
 * element before it is the last one at or before key. */
static inline size_t bsearch_upper(const void *key, const void *base, size_t n, size_t size,
				   bsearch_cmp_fn *cmp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(key, (const char *)base + mid * size) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
