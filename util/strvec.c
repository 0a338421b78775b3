#include "util/strvec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

const char *strvec_empty[] = { NULL };

void strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty;
	sv->nr = 0;
	sv->alloc = 0;
}

static const char *strvec_push_nodup(struct strvec *sv, char *s)
{
	if (sv->v == strvec_empty)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
	return s;
}

const char *strvec_push(struct strvec *sv, const char *s)
{
	return strvec_push_nodup(sv, xstrdup(s));
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strvec_push_nodup(sv, strbuf_detach(&sb, NULL));
}

void strvec_pushv(struct strvec *sv, const char **v)
{
	for (; *v; v++)
		strvec_push(sv, *v);
}

void strvec_split(struct strvec *sv, const char *s)
{
	while (s && *s) {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n)
			strvec_push_nodup(sv, xstrndup(s, n));
		s += n;
	}
}

long strvec_find(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

void strvec_insert_before(struct strvec *sv, const char *mark, const char *const *items)
{
	long at = strvec_find(sv, mark);
	size_t n = 0, pos;

	while (items[n])
		n++;
	pos = at < 0 ? sv->nr : (size_t)at;
	for (size_t i = 0; i < n; i++)
		strvec_push(sv, items[i]);   /* grows v; the copies land at the end */
	if (pos + n < sv->nr) {
		const char **tmp = xmalloc(n * sizeof(*tmp) + 1);

		memcpy(tmp, sv->v + sv->nr - n, n * sizeof(*tmp));
		memmove(sv->v + pos + n, sv->v + pos, (sv->nr - n - pos) * sizeof(*sv->v));
		memcpy(sv->v + pos, tmp, n * sizeof(*tmp));
		free(tmp);
	}
}

void strvec_clear(struct strvec *sv)
{
	if (sv->v != strvec_empty) {
		for (size_t i = 0; i < sv->nr; i++)
			free((char *)sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}
