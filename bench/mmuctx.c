#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench/mmuctx.h"
#include "bench/opts.h"
#include "probes/tracepoint.h"

const char *const mmuctx_count_names[] = {
	"hash_faults", "linux_faults", "inserts", "evictions", "secondary",
	"accessed_faults", "dirty_faults", "preloads", "touches", "hpte_hits",
	"pte_retries", "tp_hash_fault", NULL,
};

int mmuctx_parse_psize(const char *s, enum hash_psize *psize)
{
	if (!strcasecmp(s, "4k") || !strcmp(s, "4096")) {
		*psize = MMU_PAGE_4K;
		return 0;
	}
	if (!strcasecmp(s, "64k") || !strcmp(s, "65536")) {
		*psize = MMU_PAGE_64K;
		return 0;
	}
	return -1;
}

int mmuctx_parse_htab(const char *s, uint64_t *kib)
{
	uint64_t v;

	if (opts_uint(s, 256, 1ULL << 24, &v) || (v & (v - 1)))
		return -1;
	*kib = v;
	return 0;
}

uint64_t mmuctx_page_bytes(enum hash_psize psize)
{
	return psize == MMU_PAGE_4K ? 4096 : 65536;
}

uint64_t mmuctx_htab_entries(const struct mmuctx_opts *o)
{
	return o->htab_kib * 1024 / HPTE_SIZE;
}

struct hashmmu_mm *mmuctx_create(const struct mmuctx_opts *o, uint64_t seed)
{
	struct hashmmu_config cfg = {
		.htab_bytes = o->htab_kib * 1024,
		.psize = o->psize,
		.young = o->young,
		.context = 0,
		.seed = seed,
	};

	return hashmmu_create(&cfg);
}

static unsigned long tp_hits(void)
{
	struct lace_tracepoint *tp = lace_trace_find("hash_fault");

	return tp ? __atomic_load_n(&tp->hits, __ATOMIC_RELAXED) : 0;
}

void mmuctx_count_begin(struct hashmmu_mm *mm)
{
	struct lace_tracepoint *tp = lace_trace_find("hash_fault");

	hashmmu_reset_stats(mm);
	if (tp)
		lace_trace_reset(tp);
}

void mmuctx_count_end(struct hashmmu_mm *mm, struct counts *c, unsigned first)
{
	struct hashmmu_stats st;
	unsigned long w[MMUCTX_NCOUNTS];

	hashmmu_get_stats(mm, &st);
	w[0] = st.faults;
	w[1] = st.linux_faults;
	w[2] = st.inserts;
	w[3] = st.evictions;
	w[4] = st.secondary;
	w[5] = st.accessed_faults;
	w[6] = st.dirty_faults;
	w[7] = st.preloads;
	w[8] = st.touches;
	w[9] = st.hpte_hits;
	w[10] = st.busy_retries + st.cmpxchg_retries;
	w[11] = tp_hits();
	for (unsigned i = 0; i < MMUCTX_NCOUNTS; i++)
		counts_add(c, first + i, w[i]);
}

const char *mmuctx_describe(const struct mmuctx_opts *o)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "hash MMU model: %llu KiB HPT (%llu HPTEs), %s pages, PTEs created %s",
		 (unsigned long long)o->htab_kib, (unsigned long long)mmuctx_htab_entries(o),
		 o->psize == MMU_PAGE_4K ? "4K" : "64K", o->young ? "young" : "old");
	return buf;
}
