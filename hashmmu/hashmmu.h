/* hashmmu: a user-space model of the ppc64 (book3s64) hash MMU fault path.
 *
 * What is modelled, after arch/powerpc/mm/book3s64/{hash_utils,hash_64k,
 * hash_native}.c and include/asm/book3s/64/{mmu-hash,hash-64k,pgtable}.h
 * (the CONFIG_PPC_64K_PAGES configuration: 64 KiB Linux pages):
 *
 *  - a hashed page table (HPT) of PTE groups, 8 HPTEs of 16 bytes each
 *    (struct hash_pte {v, r}), primary group = hpt_hash() & htab_hash_mask,
 *    secondary group = ~hash & mask (HPTE_V_SECONDARY);
 *  - 256 MB segments, VSID = vsid_scramble(protovsid) with the kernel's
 *    multiplier 12538073 modulo 2^40 - 1 (68-bit VA);
 *  - 64 KiB Linux PTEs, hashed either as one 64K HPTE (__hash_page_64K) or
 *    as 16 4K HPTEs (__hash_page_4K, H_PAGE_COMBO) with a 4-bit slot index
 *    per sub-page kept in the second half of the PTE page (real_pte_t.hidx,
 *    stored shifted by one so 0 means invalid);
 *  - Linux PTE bits _PAGE_PRESENT/READ/WRITE/EXEC/ACCESSED/DIRTY and the
 *    hash bits H_PAGE_BUSY/H_PAGE_HASHPTE/H_PAGE_COMBO, locked by the
 *    pte_xchg() cmpxchg loop;
 *  - hpte_insert() into the first free slot, hpte_remove() from a full group
 *    starting at a pseudo-random slot (the kernel uses mftb(); the model's
 *    "timebase" is a seeded util/prng.h stream so runs are reproducible), never
 *    removing a bolted entry; the R and C bits (htab_convert_pte_flags());
 *  - hash_page_mm() with the `hash_fault` tracepoint (as in the upstream
 *    patch "powerpc/mm: Add tracepoints for hash page faults" placement:
 *    first thing in hash_page_mm()), returning 0 (handled / retry) or 1
 *    (go to the Linux page fault handler);
 *  - the Linux fault path: do_page_fault() fills the PTE, created young
 *    (_PAGE_ACCESSED set) or old, and update_mmu_cache() preloads the HPTE
 *    only for young PTEs, so an old PTE costs a second hash fault on first
 *    access -- the mkold thread, the study's reading 2.
 *
 * The "hardware" side is hashmmu_touch(): look the address up in the HPT
 * (primary then secondary group, AVPN compare), check PP against the access,
 * set R/C, or raise a data-storage exception through the entry code
 * (lace_exception_entry(0x300, ...), hashmmu/entry.h), which dispatches to
 * hash_page_mm().
 *
 * Concurrency: several threads may touch and fault on one mm at once; PTEs
 * are updated with cmpxchg, HPTEs with the HPTE_V_LOCK bit, as the kernel. */
#ifndef LACE_HASHMMU_H
#define LACE_HASHMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- constants (kernel names) ---------------------------------------- */
#define HPTES_PER_GROUP 8
#define HPTE_SIZE 16
#define SID_SHIFT 28            /* 256 MB segments */
#define VPN_SHIFT 12
#define LACE_VA_BITS 68
#define CONTEXT_BITS 19
#define ESID_BITS (LACE_VA_BITS - (SID_SHIFT + CONTEXT_BITS))  /* 21 */
#define ESID_BITS_MASK ((1UL << ESID_BITS) - 1)
#define VSID_MULTIPLIER_256M 12538073UL                       /* 24-bit prime */
#define VSID_BITS_256M (LACE_VA_BITS - SID_SHIFT)             /* 40 */
#define MMU_SEGSIZE_256M 0

#define HPTE_V_SSIZE_SHIFT 62
#define HPTE_V_AVPN_SHIFT 7
#define HPTE_V_AVPN 0x3fffffffffffff80UL
#define HPTE_V_BOLTED 0x10UL
#define HPTE_V_LOCK 0x08UL
#define HPTE_V_LARGE 0x04UL
#define HPTE_V_SECONDARY 0x02UL
#define HPTE_V_VALID 0x01UL
#define HPTE_V_COMPARE(x, y) (!(((x) ^ (y)) & 0xffffffffffffff80UL))

#define HPTE_R_PP0 0x8000000000000000UL
#define HPTE_R_RPN_SHIFT 12
#define HPTE_R_RPN 0x0ffffffffffff000UL
#define HPTE_R_PP 0x3UL
#define HPTE_R_PPP (HPTE_R_PP0 | HPTE_R_PP)
#define HPTE_R_N 0x4UL
#define HPTE_R_G 0x8UL
#define HPTE_R_M 0x10UL
#define HPTE_R_I 0x20UL
#define HPTE_R_W 0x40UL
#define HPTE_R_C 0x80UL
#define HPTE_R_R 0x100UL
#define LP_SHIFT 12

#define _PTEIDX_SECONDARY 0x8
#define _PTEIDX_GROUP_IX 0x7

/* Linux PTE bits, book3s/64/pgtable.h and hash-64k.h */
#define _PAGE_EXEC 0x00001UL
#define _PAGE_WRITE 0x00002UL
#define _PAGE_READ 0x00004UL
#define _PAGE_RW (_PAGE_READ | _PAGE_WRITE)
#define _PAGE_RWX (_PAGE_READ | _PAGE_WRITE | _PAGE_EXEC)
#define _PAGE_PRIVILEGED 0x00008UL
#define _PAGE_DIRTY 0x00080UL
#define _PAGE_ACCESSED 0x00100UL
#define _RPAGE_RPN0 0x01000UL
#define _RPAGE_RPN1 0x02000UL
#define _RPAGE_RPN43 0x0080000000000000UL
#define _RPAGE_RPN44 0x0100000000000000UL
#define _PAGE_PTE 0x4000000000000000UL
#define _PAGE_PRESENT 0x8000000000000000UL
#define H_PAGE_COMBO _RPAGE_RPN0
#define H_PAGE_4K_PFN _RPAGE_RPN1
#define H_PAGE_BUSY _RPAGE_RPN44
#define H_PAGE_HASHPTE _RPAGE_RPN43
#define _PAGE_HPTEFLAGS (H_PAGE_BUSY | H_PAGE_HASHPTE | H_PAGE_COMBO)
#define _PAGE_PA_MAX 53
#define LINUX_PAGE_SHIFT 16      /* CONFIG_PPC_64K_PAGES */
#define LINUX_PAGE_SIZE (1UL << LINUX_PAGE_SHIFT)
#define PTE_RPN_MASK (((1UL << _PAGE_PA_MAX) - 1) & ~(LINUX_PAGE_SIZE - 1))

/* Traps (the exception vector), as passed to hash_page_mm(). */
#define TRAP_DSI 0x300     /* data storage interrupt */
#define TRAP_ISI 0x400     /* instruction storage interrupt */

/* MMU page sizes (mmu_psize_defs indexes). */
enum hash_psize {
	MMU_PAGE_4K = 0,
	MMU_PAGE_64K = 1,
};

struct hash_pte {
	uint64_t v;
	uint64_t r;
};

/* ---- the kernel's formulas, exposed for tests ------------------------ */
uint64_t vsid_scramble(uint64_t protovsid, uint64_t multiplier, int vsid_bits);
/* get_vsid(context, ea, MMU_SEGSIZE_256M); 0 for an address outside the
 * page-table range. */
uint64_t hash_get_vsid(uint64_t context, uint64_t ea);
uint64_t hpt_vpn(uint64_t ea, uint64_t vsid);
uint64_t hpt_hash(uint64_t vpn, unsigned shift);
uint64_t hpte_encode_avpn(uint64_t vpn, enum hash_psize psize);
uint64_t hpte_encode_v(uint64_t vpn, enum hash_psize base, enum hash_psize actual);
uint64_t hpte_encode_r(uint64_t pa, enum hash_psize base, enum hash_psize actual);
/* htab_convert_pte_flags(): PP, N, R, C, M bits for a Linux PTE. */
uint64_t htab_convert_pte_flags(uint64_t pteflags);
unsigned hash_psize_shift(enum hash_psize psize);

/* ---- the model ------------------------------------------------------- */
struct hashmmu_mm;

struct hashmmu_config {
	size_t htab_bytes;        /* HPT size: power of two >= 256 KiB (2^18) */
	enum hash_psize psize;    /* hash 64K Linux pages as 4K or 64K HPTEs */
	bool young;               /* PTEs created young (accessed) or old */
	uint64_t context;         /* MMU context id (0 = 9, the first user one) */
	uint64_t seed;            /* model timebase seed (eviction choices) */
};

struct hashmmu_stats {
	unsigned long faults;          /* hash_page_mm() calls */
	unsigned long linux_faults;    /* do_page_fault() calls (rc 1) */
	unsigned long inserts;         /* successful hpte_insert() */
	unsigned long evictions;       /* hpte_remove() that freed a slot */
	unsigned long secondary;       /* inserts that landed in the secondary group */
	unsigned long busy_retries;    /* faults that found H_PAGE_BUSY (retry) */
	unsigned long cmpxchg_retries; /* pte_xchg() lost a race, looped */
	unsigned long accessed_faults; /* hash faults on an old PTE (set _PAGE_ACCESSED) */
	unsigned long dirty_faults;    /* faults that set _PAGE_DIRTY (C bit) */
	unsigned long updatepp;        /* HPTE found and updated in place */
	unsigned long preloads;        /* HPTEs preloaded by update_mmu_cache */
	unsigned long touches;         /* hashmmu_touch() calls */
	unsigned long hpte_hits;       /* touches satisfied by a valid HPTE */
};

/* Create an address space with its HPT (NULL + lace_error_msg() on a bad
 * config).  cfg NULL: 1 MiB HPT, 64K pages, young PTEs. */
struct hashmmu_mm *hashmmu_create(const struct hashmmu_config *cfg);
void hashmmu_destroy(struct hashmmu_mm *mm);
/* Install the data/instruction storage handlers (0x300, 0x400) in the
 * entry code's trap table; hashmmu_create() does it, idempotent. */
void hashmmu_register_traps(void);

/* Map [ea, ea+len) (64 KiB aligned) with Linux permissions prot
 * (_PAGE_READ|_PAGE_WRITE|_PAGE_EXEC).  PTEs are filled on demand by the
 * Linux fault path.  Returns 0 or -EINVAL/-EEXIST. */
int hashmmu_map(struct hashmmu_mm *mm, uint64_t ea, size_t len, uint64_t prot);

/* Access ea as the hardware would: HPT lookup, else data-storage exception
 * through the entry code, then retry.  access is _PAGE_READ or
 * _PAGE_READ|_PAGE_WRITE (or _PAGE_EXEC: instruction fetch, trap 0x400).
 * Returns 0, or -EFAULT for an unmapped address / permission failure
 * (SIGSEGV in the real thing). */
int hashmmu_touch(struct hashmmu_mm *mm, uint64_t ea, uint64_t access);

/* The fault entry, as the kernel's:
 *   0  handled, or the PTE was busy: retry the access
 *   1  go to the Linux page fault handler
 *  -1  hypervisor failure (not modelled; never returned) */
int hash_page_mm(struct hashmmu_mm *mm, uint64_t ea, uint64_t access,
		 uint64_t trap, unsigned long flags);
/* The Linux side: fill the PTE (young or old per config) and preload the
 * HPTE when young.  0, or -EFAULT outside any mapping / no permission. */
int hashmmu_do_page_fault(struct hashmmu_mm *mm, uint64_t ea, uint64_t access,
			  uint64_t trap);

/* Insert a bolted HPTE for ea (kernel linear map style: never evicted).
 * Returns the slot (group index | secondary<<3) or -ENOSPC. */
long hashmmu_bolt(struct hashmmu_mm *mm, uint64_t ea, uint64_t pa);

/* Clear _PAGE_ACCESSED on every PTE in [ea, ea+len) and flush their HPTEs
 * (ptep_test_and_clear_young on hash: the next access faults again). */
void hashmmu_mkold(struct hashmmu_mm *mm, uint64_t ea, size_t len);

void hashmmu_get_stats(const struct hashmmu_mm *mm, struct hashmmu_stats *st);
void hashmmu_reset_stats(struct hashmmu_mm *mm);

/* ---- inspection, for tests and the workloads' checks ------------------ */
size_t hashmmu_htab_groups(const struct hashmmu_mm *mm);   /* pteg count */
uint64_t hashmmu_hash_mask(const struct hashmmu_mm *mm);
const struct hash_pte *hashmmu_htab(const struct hashmmu_mm *mm);
uint64_t hashmmu_vsid(const struct hashmmu_mm *mm, uint64_t ea);
/* The Linux PTE for ea and its hidx word (NULL when unmapped). */
uint64_t *hashmmu_ptep(struct hashmmu_mm *mm, uint64_t ea);
uint64_t hashmmu_pte_hidx(struct hashmmu_mm *mm, uint64_t ea);
/* The HPTE currently translating ea (NULL if none): what the hardware
 * search would find. */
const struct hash_pte *hashmmu_find_hpte(struct hashmmu_mm *mm, uint64_t ea);
/* Number of valid HPTEs in the table. */
size_t hashmmu_count_valid(const struct hashmmu_mm *mm);

/* Low level, as mmu_hash_ops: exposed so tests can fill groups. */
long hpte_insert(struct hashmmu_mm *mm, uint64_t hpte_group, uint64_t vpn,
		 uint64_t pa, uint64_t rflags, uint64_t vflags,
		 enum hash_psize psize, enum hash_psize apsize);
long hpte_remove(struct hashmmu_mm *mm, uint64_t hpte_group);

/* Test hook: called in the PTE cmpxchg loop between reading the PTE and
 * the exchange, with the PTE pointer; lets a test force a lost race
 * deterministically.  NULL to clear. */
typedef void (*hashmmu_race_hook)(struct hashmmu_mm *mm, uint64_t *ptep, void *arg);
void hashmmu_set_race_hook(struct hashmmu_mm *mm, hashmmu_race_hook fn, void *arg);
/* Test hook: called while the PTE is held H_PAGE_BUSY (before the HPTE
 * insert), so a test can make a second thread meet a busy PTE. */
void hashmmu_set_busy_hook(struct hashmmu_mm *mm, hashmmu_race_hook fn, void *arg);

#endif
