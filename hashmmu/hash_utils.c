/* The fault path, after arch/powerpc/mm/book3s64/hash_utils.c:
 * hash_page_mm() (with the hash_fault tracepoint), the data/instruction
 * storage exception handlers, the Linux page fault that fills PTEs,
 * update_mmu_cache()/hash_preload(), and the "hardware" access that finds
 * an HPTE or raises the exception through the entry code. */
#include <errno.h>

#define LACE_CREATE_TRACE_POINTS
#include "hashmmu/trace_hash.h"

#include "hashmmu/entry.h"
#include "hashmmu/hashmmu_priv.h"
#include "util/error.h"

int hash_page_mm(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t trap,
		 unsigned long flags)
{
	uint64_t vsid, *ptep, *hidxp;
	int rc;

	trace_hash_fault(ea, access, trap);
	STAT_INC(mm, faults);

	/* Get region & vsid: only the user region is modelled */
	vsid = hash_get_vsid(mm->context, ea);
	/* Bad address. */
	if (!vsid)
		return 1;
	ptep = find_linux_pte(mm, ea, &hidxp);
	if (!ptep || !(__atomic_load_n(ptep, __ATOMIC_ACQUIRE) & _PAGE_PRESENT))
		return 1;
	if (mm->psize == MMU_PAGE_64K)
		rc = __hash_page_64K(mm, ea, access, vsid, ptep, hidxp, trap, flags);
	else
		rc = __hash_page_4K(mm, ea, access, vsid, ptep, hidxp, trap, flags);
	return rc;
}

/* hash_preload(): insert the HPTE right after a Linux fault, so the retried
 * access does not fault again. */
static void hash_preload(struct hashmmu_mm *mm, uint64_t ea, int is_exec, uint64_t trap)
{
	uint64_t access = _PAGE_PRESENT | _PAGE_READ | (is_exec ? _PAGE_EXEC : 0);
	uint64_t vsid = hash_get_vsid(mm->context, ea), *hidxp, *ptep;

	ptep = find_linux_pte(mm, ea, &hidxp);
	if (!vsid || !ptep)
		return;
	STAT_INC(mm, preloads);
	if (mm->psize == MMU_PAGE_64K)
		__hash_page_64K(mm, ea, access, vsid, ptep, hidxp, trap, 0);
	else
		__hash_page_4K(mm, ea, access, vsid, ptep, hidxp, trap, 0);
}

/* update_mmu_cache(): "We only want HPTEs for linux PTEs that have
 * _PAGE_ACCESSED set" -- an old PTE is not preloaded, so the retried
 * access takes a second hash fault that sets the accessed bit. */
static void update_mmu_cache(struct hashmmu_mm *mm, uint64_t ea, uint64_t *ptep, uint64_t trap)
{
	if (!(__atomic_load_n(ptep, __ATOMIC_ACQUIRE) & _PAGE_ACCESSED))
		return;
	if (trap != TRAP_DSI && trap != TRAP_ISI)
		return;
	hash_preload(mm, ea, trap == TRAP_ISI, trap);
}

int hashmmu_do_page_fault(struct hashmmu_mm *mm, uint64_t ea, uint64_t access, uint64_t trap)
{
	struct hashmmu_vma *v = hashmmu_find_vma(mm, ea);
	uint64_t *ptep, old, new;
	size_t idx;

	STAT_INC(mm, linux_faults);
	if (!v || (access & _PAGE_RWX & ~v->prot))
		return -EFAULT;
	idx = (ea - v->start) >> LINUX_PAGE_SHIFT;
	ptep = &v->ptes[idx];
	old = __atomic_load_n(ptep, __ATOMIC_ACQUIRE);
	if (!(old & _PAGE_PRESENT)) {
		/* do_anonymous_page(): a new PTE, young or old by config,
		 * dirty when the fault was a store */
		new = _PAGE_PRESENT | _PAGE_PTE | v->prot |
		      ((v->pfn_base + idx) << LINUX_PAGE_SHIFT);
		if (mm->young)
			new |= _PAGE_ACCESSED;
		if (access & _PAGE_WRITE)
			new |= _PAGE_DIRTY;
		/* another thread may have filled it meanwhile: fine */
		__atomic_compare_exchange_n(ptep, &old, new, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
	} else if (!check_pte_access(access | _PAGE_PRESENT, old)) {
		return -EFAULT;
	}
	update_mmu_cache(mm, ea, ptep, trap);
	return 0;
}

/* The data/instruction storage handler the entry code dispatches to:
 * DSISR and the vector say what the access was; hash_page_mm() returning 1
 * means "not a hash problem", go to the Linux fault handler. */
static long do_hash_fault(struct lace_pt_regs *regs)
{
	struct hashmmu_mm *mm = regs->ctx;
	uint64_t access = _PAGE_PRESENT | _PAGE_READ;
	int rc;

	if (regs->dsisr & DSISR_ISSTORE)
		access |= _PAGE_WRITE;
	if (regs->trap == TRAP_ISI)
		access |= _PAGE_EXEC;
	rc = hash_page_mm(mm, regs->dar, access, regs->trap, 0);
	if (rc == 1)
		return hashmmu_do_page_fault(mm, regs->dar, access, regs->trap);
	return rc < 0 ? -EFAULT : 0;
}

void hashmmu_register_traps(void)
{
	entry_register_trap(TRAP_DSI, do_hash_fault);
	entry_register_trap(TRAP_ISI, do_hash_fault);
}

/* An HPTE permits the access when PP allows it for a user (key 1):
 * 0b010 read/write, 0b011 read-only; N forbids instruction fetch. */
static int hpte_permits(uint64_t r, uint64_t access)
{
	if ((access & _PAGE_WRITE) && (r & HPTE_R_PP) != 0x2)
		return 0;
	if ((access & _PAGE_EXEC) && (r & HPTE_R_N))
		return 0;
	return 1;
}

#define TOUCH_MAX_TRIES 10000

int hashmmu_touch(struct hashmmu_mm *mm, uint64_t ea, uint64_t access)
{
	uint64_t vsid = hash_get_vsid(mm->context, ea);
	uint64_t vpn = hpt_vpn(ea, vsid);
	int exec = !!(access & _PAGE_EXEC);

	STAT_INC(mm, touches);
	for (int tries = 0; tries < TOUCH_MAX_TRIES; tries++) {
		long idx = vsid ? hpte_find(mm, vpn, mm->psize) : -1;
		uint64_t dsisr;
		long rc;

		if (idx >= 0) {
			struct hash_pte *h = &mm->htab[idx];
			uint64_t r = __atomic_load_n(&h->r, __ATOMIC_ACQUIRE);

			if (hpte_permits(r, access)) {
				/* the hardware's R/C update */
				uint64_t set = HPTE_R_R | ((access & _PAGE_WRITE) ? HPTE_R_C : 0);

				if ((r & set) != set)
					__atomic_fetch_or(&h->r, set, __ATOMIC_RELAXED);
				if (tries == 0)
					STAT_INC(mm, hpte_hits);
				return 0;
			}
			dsisr = DSISR_PROTFAULT;
		} else {
			dsisr = DSISR_NOHPTE;
		}
		if (access & _PAGE_WRITE)
			dsisr |= DSISR_ISSTORE;
		rc = lace_exception_entry(exec ? TRAP_ISI : TRAP_DSI, ea, dsisr, mm);
		if (rc < 0)
			return -EFAULT;
	}
	return lace_error_set(EAGAIN, "access to %#lx never completed", (unsigned long)ea);
}

long hashmmu_bolt(struct hashmmu_mm *mm, uint64_t ea, uint64_t pa)
{
	unsigned shift = hash_psize_shift(mm->psize);
	uint64_t vpn = hpt_vpn(ea, hash_get_vsid(mm->context, ea));
	uint64_t hash = hpt_hash(vpn, shift);
	uint64_t rflags = HPTE_R_R | HPTE_R_C | HPTE_R_M | 0x2;
	long slot;

	/* htab_bolt_mapping(): primary group, then secondary */
	slot = hpte_insert(mm, (hash & mm->htab_hash_mask) * HPTES_PER_GROUP, vpn, pa, rflags,
			   HPTE_V_BOLTED, mm->psize, mm->psize);
	if (slot == -1)
		slot = hpte_insert(mm, (~hash & mm->htab_hash_mask) * HPTES_PER_GROUP, vpn, pa,
				   rflags, HPTE_V_BOLTED | HPTE_V_SECONDARY, mm->psize, mm->psize);
	return slot == -1 ? lace_error_set(ENOSPC, "no free slot to bolt %#lx", (unsigned long)ea)
			  : slot;
}

void hashmmu_mkold(struct hashmmu_mm *mm, uint64_t ea, size_t len)
{
	for (uint64_t a = ea & ~(LINUX_PAGE_SIZE - 1); a < ea + len; a += LINUX_PAGE_SIZE) {
		uint64_t *hidxp, *ptep = find_linux_pte(mm, a, &hidxp), old;
		struct real_pte rpte;

		if (!ptep)
			continue;
		/* hash__pte_update(clr = _PAGE_ACCESSED), then flush the
		 * HPTEs the PTE recorded */
		old = __atomic_fetch_and(ptep, ~_PAGE_ACCESSED, __ATOMIC_ACQ_REL);
		if (old & H_PAGE_HASHPTE) {
			rpte.pte = old;
			rpte.hidx = __atomic_load_n(hidxp, __ATOMIC_ACQUIRE);
			flush_hash_page(mm, hpt_vpn(a, hash_get_vsid(mm->context, a)), rpte,
					(old & H_PAGE_COMBO) ? MMU_PAGE_4K : MMU_PAGE_64K);
		}
	}
}
