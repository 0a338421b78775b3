/* System.map reader; see symmap.h. */
#include "measure/qemu/symmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct symmap_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int symmap_parse(struct symmap *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cap = 0;

	m->syms = NULL;
	m->n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[512], type, name[400];
		unsigned long long addr;
		size_t l = (size_t)(le - p);

		if (l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = '\0';
			if (sscanf(line, "%llx %c %399s", &addr, &type, name) == 3 &&
			    strchr("tTwW", type)) {
				if (m->n == cap) {
					struct symmap_sym *s;

					cap = cap ? cap * 2 : 1024;
					s = realloc(m->syms, cap * sizeof(*s));
					if (!s)
						goto nomem;
					m->syms = s;
				}
				m->syms[m->n].addr = addr;
				m->syms[m->n].name = strdup(name);
				if (!m->syms[m->n].name)
					goto nomem;
				m->n++;
			}
		}
		p = le + 1;
	}
	qsort(m->syms, m->n, sizeof(*m->syms), sym_cmp);
	return 0;
nomem:
	symmap_free(m);
	return lace_error_set(ENOMEM, "out of memory reading a System.map");
}

int symmap_load(struct symmap *m, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	if (!f)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	for (;;) {
		if (cap - len < 65536) {
			char *b = realloc(buf, cap + (1 << 20));
			if (!b) {
				free(buf);
				fclose(f);
				return lace_error_set(ENOMEM, "%s: out of memory", path);
			}
			buf = b;
			cap += 1 << 20;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	fclose(f);
	rc = symmap_parse(m, buf, len);
	free(buf);
	if (!rc && !m->n)
		return lace_error_set(EINVAL, "%s: no code symbols (not a System.map?)", path);
	return rc;
}

void symmap_free(struct symmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->syms[i].name);
	free(m->syms);
	m->syms = NULL;
	m->n = 0;
}

long symmap_lookup(const struct symmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	if (!m->n || addr < m->syms[0].addr)
		return -1;
	/* last symbol <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1 < m->n ? (long)lo : -1;
}

uint64_t symmap_addr(const struct symmap *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->syms[i].name, name))
			return m->syms[i].addr;
	return 0;
}
