/* The address space: its hashed page table, its mappings and their Linux
 * PTEs, statistics and inspection helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hashmmu/hashmmu_priv.h"
#include "util/error.h"
#include "util/prng.h"
#include "util/xalloc.h"

#define MIN_USER_CONTEXT 9   /* 4 kernel + vmalloc + io + vmemmap + 2 */

/* The hashed page table, aligned to 256 KiB like the kernel's (htab is
 * aligned to its size, at least 256 KiB).  Anonymous memory comes zeroed
 * from the kernel: clearing it by hand would put a megabyte of stores in
 * front of every workload, which a simulator counts instruction by
 * instruction and which would dilute the code-footprint figures. */
static struct hash_pte *htab_alloc(size_t bytes)
{
	const size_t align = (size_t)1 << 18;
	size_t len = bytes + align;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		xdie_oom();
	uintptr_t a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	/* give back the slack on both sides */
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	size_t tail = (uintptr_t)p + len - (a + bytes);
	if (tail)
		munmap((char *)(a + bytes), tail);
	return (struct hash_pte *)a;
}

struct hashmmu_mm *hashmmu_create(const struct hashmmu_config *cfg)
{
	struct hashmmu_config def = { .htab_bytes = 1 << 20, .psize = MMU_PAGE_64K, .young = true };
	struct hashmmu_mm *mm;

	if (!cfg)
		cfg = &def;
	/* the architecture's minimum HPT is 256 KiB (2^11 groups) */
	if (cfg->htab_bytes < (1UL << 18) || (cfg->htab_bytes & (cfg->htab_bytes - 1))) {
		lace_error_set(EINVAL, "hash table size %zu is not a power of two >= 256 KiB",
			       cfg->htab_bytes);
		return NULL;
	}
	if (cfg->psize != MMU_PAGE_4K && cfg->psize != MMU_PAGE_64K) {
		lace_error_set(EINVAL, "unknown MMU page size %d", (int)cfg->psize);
		return NULL;
	}
	if (cfg->context >= (1UL << CONTEXT_BITS)) {
		lace_error_set(EINVAL, "context %lu does not fit %d bits",
			       (unsigned long)cfg->context, CONTEXT_BITS);
		return NULL;
	}
	mm = xcalloc(1, sizeof(*mm));
	mm->htab = htab_alloc(cfg->htab_bytes);
	mm->pteg_count = cfg->htab_bytes / (HPTES_PER_GROUP * HPTE_SIZE);
	mm->htab_hash_mask = mm->pteg_count - 1;
	mm->psize = cfg->psize;
	mm->young = cfg->young;
	mm->context = cfg->context ? cfg->context : MIN_USER_CONTEXT;
	mm->seed = cfg->seed;
	mm->next_pfn = 0x100; /* leave frame 0 unused: pa 0 looks like a bug */
	hashmmu_register_traps();
	return mm;
}

void hashmmu_destroy(struct hashmmu_mm *mm)
{
	if (!mm)
		return;
	for (size_t i = 0; i < mm->nvma; i++) {
		free(mm->vmas[i].ptes);
		free(mm->vmas[i].hidx);
	}
	free(mm->vmas);
	munmap(mm->htab, mm->pteg_count * HPTES_PER_GROUP * HPTE_SIZE);
	free(mm);
}

int hashmmu_map(struct hashmmu_mm *mm, uint64_t ea, size_t len, uint64_t prot)
{
	struct hashmmu_vma *v;
	size_t npages;

	if (!len || (ea | len) & (LINUX_PAGE_SIZE - 1) || ea + len < ea ||
	    (prot & ~_PAGE_RWX) || !hash_get_vsid(mm->context, ea + len - 1))
		return lace_error_set(EINVAL, "bad mapping %#lx+%#zx prot %#lx",
				      (unsigned long)ea, len, (unsigned long)prot);
	for (size_t i = 0; i < mm->nvma; i++)
		if (ea < mm->vmas[i].end && mm->vmas[i].start < ea + len)
			return lace_error_set(EEXIST, "mapping %#lx+%#zx overlaps another",
					      (unsigned long)ea, len);
	ALLOC_GROW(mm->vmas, mm->nvma + 1, mm->avma);
	v = &mm->vmas[mm->nvma++];
	npages = len >> LINUX_PAGE_SHIFT;
	v->start = ea;
	v->end = ea + len;
	v->prot = prot;
	v->ptes = xcalloc(npages, sizeof(*v->ptes));
	v->hidx = xcalloc(npages, sizeof(*v->hidx));
	v->pfn_base = mm->next_pfn;
	mm->next_pfn += npages;
	return 0;
}

struct hashmmu_vma *hashmmu_find_vma(struct hashmmu_mm *mm, uint64_t ea)
{
	for (size_t i = 0; i < mm->nvma; i++)
		if (ea >= mm->vmas[i].start && ea < mm->vmas[i].end)
			return &mm->vmas[i];
	return NULL;
}

uint64_t *find_linux_pte(struct hashmmu_mm *mm, uint64_t ea, uint64_t **hidxp)
{
	struct hashmmu_vma *v = hashmmu_find_vma(mm, ea);
	size_t idx;

	if (!v)
		return NULL;
	idx = (ea - v->start) >> LINUX_PAGE_SHIFT;
	if (hidxp)
		*hidxp = &v->hidx[idx];
	return &v->ptes[idx];
}

uint64_t hashmmu_mftb(struct hashmmu_mm *mm)
{
	/* the n-th number of the seed's stream (util/prng.h), n shared by
	 * every thread of the mm */
	return prng_at(mm->seed, 1 + __atomic_fetch_add(&mm->tb, 1, __ATOMIC_RELAXED));
}

void hashmmu_get_stats(const struct hashmmu_mm *mm, struct hashmmu_stats *st)
{
	const unsigned long *src = (const unsigned long *)&mm->st;
	unsigned long *dst = (unsigned long *)st;

	for (size_t i = 0; i < sizeof(*st) / sizeof(unsigned long); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void hashmmu_reset_stats(struct hashmmu_mm *mm)
{
	unsigned long *p = (unsigned long *)&mm->st;

	for (size_t i = 0; i < sizeof(mm->st) / sizeof(unsigned long); i++)
		__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
}

size_t hashmmu_htab_groups(const struct hashmmu_mm *mm)
{
	return mm->pteg_count;
}

uint64_t hashmmu_hash_mask(const struct hashmmu_mm *mm)
{
	return mm->htab_hash_mask;
}

const struct hash_pte *hashmmu_htab(const struct hashmmu_mm *mm)
{
	return mm->htab;
}

uint64_t hashmmu_vsid(const struct hashmmu_mm *mm, uint64_t ea)
{
	return hash_get_vsid(mm->context, ea);
}

uint64_t *hashmmu_ptep(struct hashmmu_mm *mm, uint64_t ea)
{
	return find_linux_pte(mm, ea, NULL);
}

uint64_t hashmmu_pte_hidx(struct hashmmu_mm *mm, uint64_t ea)
{
	uint64_t *hidxp;

	return find_linux_pte(mm, ea, &hidxp) ? __atomic_load_n(hidxp, __ATOMIC_ACQUIRE) : 0;
}

const struct hash_pte *hashmmu_find_hpte(struct hashmmu_mm *mm, uint64_t ea)
{
	long idx = hpte_find(mm, hpt_vpn(ea, hash_get_vsid(mm->context, ea)), mm->psize);

	return idx < 0 ? NULL : &mm->htab[idx];
}

size_t hashmmu_count_valid(const struct hashmmu_mm *mm)
{
	size_t n = 0;

	for (size_t i = 0; i < mm->pteg_count * HPTES_PER_GROUP; i++)
		n += !!(__atomic_load_n(&mm->htab[i].v, __ATOMIC_RELAXED) & HPTE_V_VALID);
	return n;
}

void hashmmu_set_race_hook(struct hashmmu_mm *mm, hashmmu_race_hook fn, void *arg)
{
	mm->race_arg = arg;
	mm->race_hook = fn;
}

void hashmmu_set_busy_hook(struct hashmmu_mm *mm, hashmmu_race_hook fn, void *arg)
{
	mm->busy_arg = arg;
	mm->busy_hook = fn;
}
