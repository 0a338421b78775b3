/* Hashing a 64 KiB Linux page, after arch/powerpc/mm/book3s64/hash_64k.c:
 * __hash_page_4K() (the page is hashed as sixteen 4K HPTEs, H_PAGE_COMBO,
 * one 4-bit slot index per sub-page) and __hash_page_64K() (one 64K HPTE).
 *
 * Both lock the Linux PTE with the pte_xchg() cmpxchg loop: a PTE already
 * H_PAGE_BUSY makes the fault return 0 so the access is retried; a lost
 * exchange loops.  The model counts both. */
#include "hashmmu/hashmmu_priv.h"

#define HIDX_UNSHIFT_BY_ONE(x) (((x) + 0xfUL) & 0xfUL)
#define HIDX_SHIFT_BY_ONE(x) (((x) + 0x1UL) & 0xfUL)
#define HIDX_BITS(x, index) ((x) << ((index) << 2))
#define BITS_TO_HIDX(x, index) (((x) >> ((index) << 2)) & 0xfUL)
#define INVALID_RPTE_HIDX 0x0UL

static int hpte_soft_invalid(uint64_t hidx)
{
	return (hidx & 0xfUL) == 0xfUL;
}

static uint64_t __rpte_to_hidx(struct real_pte rpte, unsigned index)
{
	return HIDX_UNSHIFT_BY_ONE(BITS_TO_HIDX(rpte.hidx, index));
}

static int __rpte_sub_valid(struct real_pte rpte, unsigned index)
{
	return !hpte_soft_invalid(__rpte_to_hidx(rpte, index));
}

/* Commit the slot of sub-page subpg_index; the hidx word is written
 * before the PTE (the kernel's smp_wmb()), readers load PTE then hidx. */
static uint64_t pte_set_hidx(uint64_t *hidxp, struct real_pte rpte, unsigned subpg_index,
			     uint64_t hidx)
{
	rpte.hidx &= ~HIDX_BITS(0xfUL, subpg_index);
	__atomic_store_n(hidxp, rpte.hidx | HIDX_BITS(HIDX_SHIFT_BY_ONE(hidx), subpg_index),
			 __ATOMIC_RELEASE);
	return 0;
}

static struct real_pte __real_pte(uint64_t pte, const uint64_t *hidxp)
{
	struct real_pte r = { .pte = pte };

	r.hidx = __atomic_load_n(hidxp, __ATOMIC_ACQUIRE);
	return r;
}

uint64_t pte_get_hash_gslot(struct hashmmu_mm *mm, uint64_t vpn, unsigned shift,
			    struct real_pte rpte, unsigned subpg_index)
{
	uint64_t hash = hpt_hash(vpn, shift), hidx = __rpte_to_hidx(rpte, subpg_index);

	if (hidx & _PTEIDX_SECONDARY)
		hash = ~hash;
	return (hash & mm->htab_hash_mask) * HPTES_PER_GROUP + (hidx & _PTEIDX_GROUP_IX);
}

void flush_hash_page(struct hashmmu_mm *mm, uint64_t vpn, struct real_pte rpte,
		     enum hash_psize psize)
{
	unsigned shift = hash_psize_shift(psize);

	if (psize == MMU_PAGE_64K) {
		hpte_invalidate(mm, pte_get_hash_gslot(mm, vpn, shift, rpte, 0), vpn,
				MMU_PAGE_64K, MMU_PAGE_64K);
		return;
	}
	/* pte_iterate_hashed_subpages(): every valid 4K sub-page */
	for (unsigned index = 0; index < LINUX_PAGE_SIZE >> shift; index++) {
		uint64_t svpn = vpn + ((uint64_t)index << (shift - VPN_SHIFT));

		if (__rpte_sub_valid(rpte, index))
			hpte_invalidate(mm, pte_get_hash_gslot(mm, svpn, shift, rpte, index),
					svpn, MMU_PAGE_4K, MMU_PAGE_4K);
	}
}

int check_pte_access(uint64_t access, uint64_t ptev)
{
	/* _PAGE_RWX and _PAGE_PRESENT */
	if (access & ~ptev)
		return 0;
	if ((access & _PAGE_PRIVILEGED) != (ptev & _PAGE_PRIVILEGED))
		return 0;
	return 1;
}

/* The pte_xchg() loop shared by both page sizes: returns 0 with the PTE
 * locked (old/new filled in), or the fault's return value (0 busy, 1 no
 * access). */
static int pte_lock(struct hashmmu_mm *mm, uint64_t *ptep, uint64_t access, uint64_t combo,
		    uint64_t *oldp, uint64_t *newp, int *ret)
{
	for (;;) {
		uint64_t old_pte = __atomic_load_n(ptep, __ATOMIC_ACQUIRE), new_pte;

		/* If PTE busy, retry the access */
		if (old_pte & H_PAGE_BUSY) {
			STAT_INC(mm, busy_retries);
			*ret = 0;
			return -1;
		}
		/* If PTE permissions don't match, take page fault */
		if (!check_pte_access(access, old_pte)) {
			*ret = 1;
			return -1;
		}
		new_pte = old_pte | H_PAGE_BUSY | _PAGE_ACCESSED | combo;
		if (access & _PAGE_WRITE)
			new_pte |= _PAGE_DIRTY;
		if (mm->race_hook)
			mm->race_hook(mm, ptep, mm->race_arg);
		if (__atomic_compare_exchange_n(ptep, &old_pte, new_pte, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			if (!(old_pte & _PAGE_ACCESSED))
				STAT_INC(mm, accessed_faults);
			if ((access & _PAGE_WRITE) && !(old_pte & _PAGE_DIRTY))
				STAT_INC(mm, dirty_faults);
			*oldp = old_pte;
			*newp = new_pte;
			if (mm->busy_hook)
				mm->busy_hook(mm, ptep, mm->busy_arg);
			return 0;
		}
		STAT_INC(mm, cmpxchg_retries);
	}
}

static void pte_unlock(uint64_t *ptep, uint64_t new_pte)
{
	__atomic_store_n(ptep, new_pte & ~H_PAGE_BUSY, __ATOMIC_RELEASE);
}

/* hpte_remove() from the group chosen by the caller; the kernel would spin
 * forever if that group held only bolted entries, the model tries the
 * other group and then gives up (the caller returns -1, like a hypervisor
 * insert failure). */
static int evict_one(struct hashmmu_mm *mm, uint64_t hash, uint64_t hpte_group)
{
	uint64_t primary = (hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
	uint64_t secondary = (~hash & mm->htab_hash_mask) * HPTES_PER_GROUP;

	if (hpte_remove(mm, hpte_group) >= 0)
		return 0;
	return hpte_remove(mm, hpte_group == primary ? secondary : primary) >= 0 ? 0 : -1;
}

int __hash_page_4K(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t vsid,
		   uint64_t *ptep, uint64_t *hidxp, uint64_t trap, unsigned long flags)
{
	struct real_pte rpte;
	uint64_t hpte_group, rflags, pa, old_pte, new_pte, vpn, hash, gslot;
	unsigned shift = hash_psize_shift(MMU_PAGE_4K), subpg_index;
	long slot;
	int ret;

	(void)trap;
	(void)flags;
	if (pte_lock(mm, ptep, access, H_PAGE_COMBO, &old_pte, &new_pte, &ret))
		return ret;

	rflags = htab_convert_pte_flags(new_pte);
	subpg_index = (unsigned)((ea & (LINUX_PAGE_SIZE - 1)) >> shift);
	vpn = hpt_vpn(ea, vsid);
	rpte = __real_pte(old_pte, hidxp);

	/* None of the sub 4k pages is hashed */
	if (!(old_pte & H_PAGE_HASHPTE))
		goto htab_insert_hpte;
	/* Hashed before as one 64K HPTE: invalidate it */
	if (!(old_pte & H_PAGE_COMBO)) {
		flush_hash_page(mm, vpn, rpte, MMU_PAGE_64K);
		old_pte &= ~H_PAGE_HASHPTE;
		new_pte &= ~H_PAGE_HASHPTE;
		goto htab_insert_hpte;
	}
	/* Check for sub page valid and update */
	if (__rpte_sub_valid(rpte, subpg_index)) {
		gslot = pte_get_hash_gslot(mm, vpn, shift, rpte, subpg_index);
		/* failure: the HPTE was evicted meanwhile, insert again */
		if (hpte_updatepp(mm, gslot, rflags, vpn, MMU_PAGE_4K, MMU_PAGE_4K) == -1)
			goto htab_insert_hpte;
		pte_unlock(ptep, new_pte);
		return 0;
	}

htab_insert_hpte:
	/* first 4K HPTE of this PTE: all slots start invalid */
	if (!(old_pte & H_PAGE_COMBO))
		rpte.hidx = INVALID_RPTE_HIDX;
	pa = (old_pte & PTE_RPN_MASK) + ((uint64_t)subpg_index << shift);
	hash = hpt_hash(vpn, shift);
repeat:
	hpte_group = (hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
	/* Insert into the hash table, primary slot */
	slot = hpte_insert(mm, hpte_group, vpn, pa, rflags, 0, MMU_PAGE_4K, MMU_PAGE_4K);
	/* Primary is full, try the secondary */
	if (slot == -1) {
		int soft_invalid;

		hpte_group = (~hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
		slot = hpte_insert(mm, hpte_group, vpn, pa, rflags, HPTE_V_SECONDARY,
				   MMU_PAGE_4K, MMU_PAGE_4K);
		soft_invalid = slot != -1 && hpte_soft_invalid((uint64_t)slot);
		if (soft_invalid) {
			/* 0xf marks "no slot" in hidx: this one cannot be
			 * recorded, give it back */
			gslot = (uint64_t)slot & _PTEIDX_GROUP_IX;
			hpte_invalidate(mm, hpte_group + gslot, vpn, MMU_PAGE_4K, MMU_PAGE_4K);
		}
		if (slot == -1 || soft_invalid) {
			if (soft_invalid || (hashmmu_mftb(mm) & 0x1))
				hpte_group = (hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
			if (evict_one(mm, hash, hpte_group)) {
				pte_unlock(ptep, old_pte);
				return -1;
			}
			goto repeat;
		}
	}
	new_pte |= pte_set_hidx(hidxp, rpte, subpg_index, (uint64_t)slot);
	new_pte |= H_PAGE_HASHPTE;
	pte_unlock(ptep, new_pte);
	return 0;
}

int __hash_page_64K(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t vsid,
		    uint64_t *ptep, uint64_t *hidxp, uint64_t trap, unsigned long flags)
{
	struct real_pte rpte;
	uint64_t hpte_group, rflags, pa, old_pte, new_pte, vpn, hash;
	unsigned shift = hash_psize_shift(MMU_PAGE_64K);
	long slot;
	int ret;

	(void)trap;
	(void)flags;
	if (pte_lock(mm, ptep, access, 0, &old_pte, &new_pte, &ret))
		return ret;

	rflags = htab_convert_pte_flags(new_pte);
	rpte = __real_pte(old_pte, hidxp);
	vpn = hpt_vpn(ea, vsid);
	if (old_pte & H_PAGE_HASHPTE) {
		/* There MIGHT be an HPTE for this pte */
		uint64_t gslot = pte_get_hash_gslot(mm, vpn, shift, rpte, 0);

		if (hpte_updatepp(mm, gslot, rflags, vpn, MMU_PAGE_64K, MMU_PAGE_64K) == -1)
			old_pte &= ~_PAGE_HPTEFLAGS;
	}
	if (!(old_pte & H_PAGE_HASHPTE)) {
		pa = old_pte & PTE_RPN_MASK;
		hash = hpt_hash(vpn, shift);
repeat:
		hpte_group = (hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
		slot = hpte_insert(mm, hpte_group, vpn, pa, rflags, 0, MMU_PAGE_64K, MMU_PAGE_64K);
		if (slot == -1) {
			hpte_group = (~hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
			slot = hpte_insert(mm, hpte_group, vpn, pa, rflags, HPTE_V_SECONDARY,
					   MMU_PAGE_64K, MMU_PAGE_64K);
			if (slot == -1) {
				if (hashmmu_mftb(mm) & 0x1)
					hpte_group = (hash & mm->htab_hash_mask) * HPTES_PER_GROUP;
				if (evict_one(mm, hash, hpte_group)) {
					pte_unlock(ptep, old_pte);
					return -1;
				}
				goto repeat;
			}
		}
		new_pte = (new_pte & ~_PAGE_HPTEFLAGS) | H_PAGE_HASHPTE;
		new_pte |= pte_set_hidx(hidxp, rpte, 0, (uint64_t)slot);
	}
	pte_unlock(ptep, new_pte);
	return 0;
}
