/* hashmmu internals shared by the model's files (not for the workloads). */
#ifndef LACE_HASHMMU_PRIV_H
#define LACE_HASHMMU_PRIV_H

#include <stdint.h>

#include "hashmmu/hashmmu.h"

/* One mapping (a VMA) with its Linux PTEs: one per 64 KiB page, and the
 * sub-page slot word of each (the kernel keeps it in the second half of
 * the PTE page, ptep + PTRS_PER_PTE; here it is a parallel array). */
struct hashmmu_vma {
	uint64_t start, end;
	uint64_t prot;
	uint64_t *ptes;
	uint64_t *hidx;
	uint64_t pfn_base;       /* "physical" frames, assigned at map time */
};

/* real_pte_t: the PTE value and its hidx word, read together. */
struct real_pte {
	uint64_t pte;
	uint64_t hidx;
};

struct hashmmu_mm {
	struct hash_pte *htab;
	uint64_t htab_hash_mask;         /* pteg_count - 1 */
	size_t pteg_count;
	enum hash_psize psize;
	int young;
	uint64_t context;
	uint64_t seed;
	unsigned long tb;                /* model timebase ticks (atomic) */
	struct hashmmu_vma *vmas;
	size_t nvma, avma;
	uint64_t next_pfn;
	struct hashmmu_stats st;         /* updated with atomics */
	hashmmu_race_hook race_hook, busy_hook;
	void *race_arg, *busy_arg;
};

#define STAT_INC(mm, field) __atomic_fetch_add(&(mm)->st.field, 1, __ATOMIC_RELAXED)

/* mftb(): the kernel uses the timebase's low bits as a cheap random
 * number when choosing the group and slot to evict; the model hashes a
 * tick counter with the seed, so choices are reproducible per run. */
uint64_t hashmmu_mftb(struct hashmmu_mm *mm);

/* find_linux_pte(): the PTE and hidx word for ea, or NULL. */
uint64_t *find_linux_pte(struct hashmmu_mm *mm, uint64_t ea, uint64_t **hidxp);
struct hashmmu_vma *hashmmu_find_vma(struct hashmmu_mm *mm, uint64_t ea);

/* mmu_hash_ops (hash_native.c) */
long hpte_updatepp(struct hashmmu_mm *mm, uint64_t slot, uint64_t newpp, uint64_t vpn,
		   enum hash_psize bpsize, enum hash_psize apsize);
void hpte_invalidate(struct hashmmu_mm *mm, uint64_t slot, uint64_t vpn,
		     enum hash_psize bpsize, enum hash_psize apsize);
/* The hardware's search: the HPTE index translating vpn, or -1. */
long hpte_find(struct hashmmu_mm *mm, uint64_t vpn, enum hash_psize psize);

/* hash_64k.c */
int __hash_page_4K(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t vsid,
		   uint64_t *ptep, uint64_t *hidxp, uint64_t trap, unsigned long flags);
int __hash_page_64K(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t vsid,
		    uint64_t *ptep, uint64_t *hidxp, uint64_t trap, unsigned long flags);
uint64_t pte_get_hash_gslot(struct hashmmu_mm *mm, uint64_t vpn, unsigned shift,
			    struct real_pte rpte, unsigned subpg_index);
/* flush_hash_page(): invalidate every HPTE the PTE says it has. */
void flush_hash_page(struct hashmmu_mm *mm, uint64_t vpn, struct real_pte rpte,
		     enum hash_psize psize);
int check_pte_access(uint64_t access, uint64_t ptev);

#endif
