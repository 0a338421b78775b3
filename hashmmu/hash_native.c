/* The hashed page table operations (mmu_hash_ops), after
 * arch/powerpc/mm/book3s64/hash_native.c: native_hpte_insert/remove/
 * updatepp/invalidate, each HPTE locked with the HPTE_V_LOCK software bit.
 * The kernel stores HPTEs big-endian; the model keeps host order. */
#include <sched.h>

#include "hashmmu/hashmmu_priv.h"

static void native_lock_hpte(struct hash_pte *hptep)
{
	for (;;) {
		uint64_t v = __atomic_fetch_or(&hptep->v, HPTE_V_LOCK, __ATOMIC_ACQUIRE);

		if (!(v & HPTE_V_LOCK))
			return;
		while (__atomic_load_n(&hptep->v, __ATOMIC_RELAXED) & HPTE_V_LOCK)
			sched_yield();
	}
}

static void native_unlock_hpte(struct hash_pte *hptep)
{
	__atomic_fetch_and(&hptep->v, ~HPTE_V_LOCK, __ATOMIC_RELEASE);
}

static uint64_t hpte_v_load(const struct hash_pte *hptep)
{
	return __atomic_load_n(&hptep->v, __ATOMIC_ACQUIRE);
}

/* Returns the slot within the group, | 8 for the secondary group, or -1
 * when all eight are valid. */
long hpte_insert(struct hashmmu_mm *mm, uint64_t hpte_group, uint64_t vpn,
		 uint64_t pa, uint64_t rflags, uint64_t vflags,
		 enum hash_psize psize, enum hash_psize apsize)
{
	struct hash_pte *hptep = mm->htab + hpte_group;
	uint64_t hpte_v, hpte_r;
	int i;

	for (i = 0; i < HPTES_PER_GROUP; i++) {
		if (!(hpte_v_load(hptep) & HPTE_V_VALID)) {
			/* retry with lock held */
			native_lock_hpte(hptep);
			if (!(hpte_v_load(hptep) & HPTE_V_VALID))
				break;
			native_unlock_hpte(hptep);
		}
		hptep++;
	}
	if (i == HPTES_PER_GROUP)
		return -1;

	hpte_v = hpte_encode_v(vpn, psize, apsize) | vflags | HPTE_V_VALID;
	hpte_r = hpte_encode_r(pa, psize, apsize) | rflags;
	__atomic_store_n(&hptep->r, hpte_r, __ATOMIC_RELAXED);
	/* the valid word goes last, and also drops the lock */
	__atomic_store_n(&hptep->v, hpte_v & ~HPTE_V_LOCK, __ATOMIC_RELEASE);
	STAT_INC(mm, inserts);
	if (vflags & HPTE_V_SECONDARY)
		STAT_INC(mm, secondary);
	return i | (!!(vflags & HPTE_V_SECONDARY) << 3);
}

/* Evict one non-bolted entry, starting at a "random" slot (mftb() & 7). */
long hpte_remove(struct hashmmu_mm *mm, uint64_t hpte_group)
{
	struct hash_pte *hptep;
	int i, slot_offset = (int)(hashmmu_mftb(mm) & 0x7);
	uint64_t hpte_v;

	for (i = 0; i < HPTES_PER_GROUP; i++) {
		hptep = mm->htab + hpte_group + slot_offset;
		hpte_v = hpte_v_load(hptep);
		if ((hpte_v & HPTE_V_VALID) && !(hpte_v & HPTE_V_BOLTED)) {
			/* retry with lock held */
			native_lock_hpte(hptep);
			hpte_v = hpte_v_load(hptep);
			if ((hpte_v & HPTE_V_VALID) && !(hpte_v & HPTE_V_BOLTED))
				break;
			native_unlock_hpte(hptep);
		}
		slot_offset++;
		slot_offset &= 0x7;
	}
	if (i == HPTES_PER_GROUP)
		return -1;
	/* Invalidate the hpte; this also unlocks it. */
	__atomic_store_n(&hptep->v, 0, __ATOMIC_RELEASE);
	STAT_INC(mm, evictions);
	return i;
}

long hpte_updatepp(struct hashmmu_mm *mm, uint64_t slot, uint64_t newpp, uint64_t vpn,
		   enum hash_psize bpsize, enum hash_psize apsize)
{
	struct hash_pte *hptep = mm->htab + slot;
	uint64_t want_v = hpte_encode_avpn(vpn, bpsize), hpte_v;
	long ret = 0;

	/* The AVPN omits the VPN bits the group index encodes, so a stale slot
	 * record can name another page's entry with the same AVPN that sits
	 * here as its *secondary* (or primary) choice.  The MMU's search
	 * compares the H bit with the group it searches; so must we, or the
	 * update "succeeds" on the wrong entry and the page faults forever. */
	uint64_t hash = hpt_hash(vpn, hash_psize_shift(bpsize));
	bool want_secondary = (slot / HPTES_PER_GROUP) != (hash & mm->htab_hash_mask);

	(void)apsize;
	hpte_v = hpte_v_load(hptep);
	if (!HPTE_V_COMPARE(hpte_v, want_v) || !(hpte_v & HPTE_V_VALID) ||
	    !!(hpte_v & HPTE_V_SECONDARY) != want_secondary)
		return -1;
	native_lock_hpte(hptep);
	hpte_v = hpte_v_load(hptep);
	if (!HPTE_V_COMPARE(hpte_v, want_v) || !(hpte_v & HPTE_V_VALID) ||
	    !!(hpte_v & HPTE_V_SECONDARY) != want_secondary) {
		ret = -1;
	} else {
		uint64_t r = __atomic_load_n(&hptep->r, __ATOMIC_RELAXED);

		r = (r & ~(HPTE_R_PPP | HPTE_R_N)) | (newpp & (HPTE_R_PPP | HPTE_R_N | HPTE_R_C));
		__atomic_store_n(&hptep->r, r, __ATOMIC_RELAXED);
		STAT_INC(mm, updatepp);
	}
	native_unlock_hpte(hptep);
	return ret;
}

void hpte_invalidate(struct hashmmu_mm *mm, uint64_t slot, uint64_t vpn,
		     enum hash_psize bpsize, enum hash_psize apsize)
{
	struct hash_pte *hptep = mm->htab + slot;
	uint64_t want_v = hpte_encode_avpn(vpn, bpsize), hpte_v;

	(void)apsize;
	native_lock_hpte(hptep);
	hpte_v = hpte_v_load(hptep);
	if (!HPTE_V_COMPARE(hpte_v, want_v) || !(hpte_v & HPTE_V_VALID))
		native_unlock_hpte(hptep);
	else
		__atomic_store_n(&hptep->v, 0, __ATOMIC_RELEASE);
}

/* What the MMU does on a TLB miss: search the primary group, then the
 * secondary one (H bit set), for a valid entry with the right AVPN. */
long hpte_find(struct hashmmu_mm *mm, uint64_t vpn, enum hash_psize psize)
{
	uint64_t hash = hpt_hash(vpn, hash_psize_shift(psize));
	uint64_t want_v = hpte_encode_v(vpn, psize, psize);

	for (int secondary = 0; secondary < 2; secondary++) {
		uint64_t group = ((secondary ? ~hash : hash) & mm->htab_hash_mask) * HPTES_PER_GROUP;

		for (int i = 0; i < HPTES_PER_GROUP; i++) {
			uint64_t v = hpte_v_load(&mm->htab[group + i]);

			if ((v & HPTE_V_VALID) && HPTE_V_COMPARE(v, want_v) &&
			    !!(v & HPTE_V_SECONDARY) == secondary &&
			    !!(v & HPTE_V_LARGE) == (psize != MMU_PAGE_4K))
				return (long)(group + i);
		}
	}
	return -1;
}
