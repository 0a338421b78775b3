/* Tracepoint registry, enabling, counters and the optional ring buffer.
 * The tracepoints themselves are instantiated by probes/define_trace.h in
 * the file that owns each trace header; each leaves a pointer in the
 * `__lace_tracepoints` section, which is how this file finds them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/tracepoint.h"
#include "util/error.h"
#include "util/xalloc.h"

extern struct lace_tracepoint *const __start___lace_tracepoints[] __attribute__((weak));
extern struct lace_tracepoint *const __stop___lace_tracepoints[] __attribute__((weak));

/* Records are copied into fixed slots; the writer claims a slot with an
 * atomic increment, so concurrent hits never share one.  A reader dumps
 * only while the tracepoint is quiet. */
struct lace_trace_ring {
	size_t nrec;          /* power of two */
	size_t stride;        /* rec_size rounded up to 8 */
	unsigned long head;   /* records ever written (atomic) */
	unsigned char *buf;
};

struct lace_tracepoint *const *lace_trace_begin(void)
{
	return __start___lace_tracepoints;
}

struct lace_tracepoint *const *lace_trace_end(void)
{
	return __stop___lace_tracepoints ? __stop___lace_tracepoints : __start___lace_tracepoints;
}

struct lace_tracepoint *lace_trace_find(const char *name)
{
	for (struct lace_tracepoint *const *p = lace_trace_begin(); p < lace_trace_end(); p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

int lace_trace_enable(const char *name)
{
	struct lace_tracepoint *tp = lace_trace_find(name);

	if (!tp)
		return lace_error_set(ENOENT, "no tracepoint '%s'", name);
	return static_branch_enable(&tp->key);
}

int lace_trace_disable(const char *name)
{
	struct lace_tracepoint *tp = lace_trace_find(name);

	if (!tp)
		return lace_error_set(ENOENT, "no tracepoint '%s'", name);
	return static_branch_disable(&tp->key);
}

int lace_trace_enable_list(const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	int n = 0, rc = 0;

	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, "all")) {
			for (struct lace_tracepoint *const *p = lace_trace_begin(); p < lace_trace_end(); p++) {
				rc = static_branch_enable(&(*p)->key);
				if (rc)
					goto out;
				n++;
			}
			continue;
		}
		rc = lace_trace_enable(tok);
		if (rc)
			goto out;
		n++;
	}
out:
	free(copy);
	return rc ? rc : n;
}

int lace_trace_init_env(void)
{
	const char *env = getenv("LACE_TRACE");

	return env && *env ? lace_trace_enable_list(env) : 0;
}

/* LACE_TRACE is honoured before main(); an unknown name is reported on
 * stderr (the one place this library prints: there is no caller yet). */
__attribute__((constructor)) static void trace_env_ctor(void)
{
	if (lace_trace_init_env() < 0)
		lace_warn("LACE_TRACE", "%s", lace_error_msg());
}

unsigned long lace_trace_hits(const char *name)
{
	struct lace_tracepoint *tp = lace_trace_find(name);

	return tp ? __atomic_load_n(&tp->hits, __ATOMIC_RELAXED) : -1UL;
}

void lace_trace_reset(struct lace_tracepoint *tp)
{
	__atomic_store_n(&tp->hits, 0, __ATOMIC_RELAXED);
	if (tp->ring)
		__atomic_store_n(&tp->ring->head, 0, __ATOMIC_RELAXED);
}

int lace_trace_ring_alloc(struct lace_tracepoint *tp, size_t nrec)
{
	struct lace_trace_ring *r = tp->ring;
	size_t n = 1;

	if (r) {
		__atomic_store_n(&tp->ring, NULL, __ATOMIC_RELEASE);
		free(r->buf);
		free(r);
	}
	if (!nrec)
		return 0;
	while (n < nrec)
		n <<= 1;
	r = xcalloc(1, sizeof(*r));
	r->nrec = n;
	r->stride = (tp->rec_size + 7) & ~(size_t)7;
	r->buf = xcalloc(n, r->stride);
	__atomic_store_n(&tp->ring, r, __ATOMIC_RELEASE);
	return 0;
}

void *lace_trace_ring_reserve(struct lace_tracepoint *tp)
{
	struct lace_trace_ring *r = __atomic_load_n(&tp->ring, __ATOMIC_ACQUIRE);
	unsigned long slot;

	if (!r)
		return NULL;
	slot = __atomic_fetch_add(&r->head, 1, __ATOMIC_RELAXED);
	return r->buf + (slot & (r->nrec - 1)) * r->stride;
}

size_t lace_trace_ring_dump(struct lace_tracepoint *tp, FILE *f)
{
	struct lace_trace_ring *r = tp->ring;
	unsigned long head, first;

	if (!r)
		return 0;
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	first = head > r->nrec ? head - r->nrec : 0;
	for (unsigned long i = first; i < head; i++)
		tp->print(f, r->buf + (i & (r->nrec - 1)) * r->stride);
	return head - first;
}
