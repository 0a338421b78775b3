#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void xdie_oom(void)
{
	static const char msg[] = "lace: out of memory\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xdie_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		xdie_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		xdie_oom();
	return p;
}

void *xgrow(void *p, size_t size, size_t need, size_t *alloc)
{
	if (need <= *alloc)
		return p;
	size_t n = *alloc ? *alloc : 16;
	while (n < need)
		n = n * 3 / 2 + 16;
	if (n > (size_t)-1 / size)
		xdie_oom();
	p = xrealloc(p, n * size);
	*alloc = n;
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		xdie_oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		xdie_oom();
	return p;
}
