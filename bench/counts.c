#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "bench/counts.h"

int counts_init(struct counts *c, const char *const *names)
{
	void *p;

	memset(c, 0, sizeof(*c));
	while (names[c->n]) {
		if (c->n == COUNTS_MAX)
			return -E2BIG;
		c->names[c->n] = names[c->n];
		c->n++;
	}
	p = mmap(NULL, COUNTS_MAX * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->val = p;
	return 0;
}

void counts_free(struct counts *c)
{
	if (c->val)
		munmap(c->val, COUNTS_MAX * sizeof(uint64_t));
	c->val = NULL;
	c->n = 0;
}

int counts_index(const struct counts *c, const char *name)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return (int)i;
	return -1;
}

void counts_add(struct counts *c, unsigned idx, uint64_t v)
{
	if (idx < c->n)
		__atomic_fetch_add(&c->val[idx], v, __ATOMIC_RELAXED);
}

uint64_t counts_get(const struct counts *c, unsigned idx)
{
	return idx < c->n ? __atomic_load_n(&c->val[idx], __ATOMIC_RELAXED) : 0;
}

void counts_format(const struct counts *c, const char *workload, const char *extra,
		   struct strbuf *out)
{
	size_t w = 0;

	for (unsigned i = 0; i < c->n; i++)
		if (strlen(c->names[i]) > w)
			w = strlen(c->names[i]);
	for (unsigned i = 0; i < c->n; i++)
		strbuf_addf(out, "  %-*s %llu\n", (int)w, c->names[i],
			    (unsigned long long)counts_get(c, i));
	strbuf_addf(out, "lace-counts: workload=%s", workload);
	if (extra && *extra)
		strbuf_addf(out, " %s", extra);
	for (unsigned i = 0; i < c->n; i++)
		strbuf_addf(out, " %s=%llu", c->names[i], (unsigned long long)counts_get(c, i));
	strbuf_addch(out, '\n');
}
