/* Allocation that cannot fail: out of memory is the one error lace does not
 * try to survive, so callers need not check. */
#ifndef LACE_XALLOC_H
#define LACE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array of nmemb elements of size `size` to hold at least `need`. */
void *xgrow(void *p, size_t size, size_t need, size_t *alloc);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
__attribute__((noreturn)) void xdie_oom(void);

#define ALLOC_GROW(arr, need, alloc) \
	((arr) = xgrow((arr), sizeof(*(arr)), (need), &(alloc)))

#endif
