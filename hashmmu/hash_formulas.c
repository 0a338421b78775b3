/* The kernel's hash MMU formulas (arch/powerpc/include/asm/book3s/64/
 * mmu-hash.h and hash_utils.c), for 256 MB segments and a 68-bit VA. */
#include "hashmmu/hashmmu.h"

/* mmu_psize_defs[] as POWER7+ firmware describes them in
 * ibm,segment-page-sizes: 64K pages use LP encoding 0001 (penc 1);
 * avpnm is (1 << (shift - 23)) - 1 for shift > 23 and 0 otherwise
 * (htab_dt_scan_page_sizes()), so 0 for both sizes modelled here. */
static const struct {
	unsigned shift;
	uint64_t avpnm;
	int penc[2];
} mmu_psize_defs[2] = {
	[MMU_PAGE_4K] = { .shift = 12, .avpnm = 0, .penc = { 0, -1 } },
	[MMU_PAGE_64K] = { .shift = 16, .avpnm = 0, .penc = { -1, 1 } },
};

unsigned hash_psize_shift(enum hash_psize psize)
{
	return mmu_psize_defs[psize].shift;
}

/* vsid_scramble(): multiply by a 24-bit prime modulo 2^vsid_bits - 1,
 * computed without division as the kernel does: fold the high bits onto
 * the low ones, then correct the one case where the sum reaches the
 * modulus. */
uint64_t vsid_scramble(uint64_t protovsid, uint64_t multiplier, int vsid_bits)
{
	uint64_t modulus = (1UL << vsid_bits) - 1;
	uint64_t vsid = protovsid * multiplier;

	vsid = (vsid >> vsid_bits) + (vsid & modulus);
	return (vsid + ((vsid + 1) >> vsid_bits)) & modulus;
}

#define EA_MASK (~0xc000000000000000UL)
#define H_PGTABLE_EADDR_SIZE 52  /* 8 + 10 + 10 + 8 index bits + 16 (64K) */
#define H_PGTABLE_RANGE (1UL << H_PGTABLE_EADDR_SIZE)

uint64_t hash_get_vsid(uint64_t context, uint64_t ea)
{
	uint64_t protovsid;

	if ((ea & EA_MASK) >= H_PGTABLE_RANGE)
		return 0;
	protovsid = (context << ESID_BITS) | ((ea >> SID_SHIFT) & ESID_BITS_MASK);
	return vsid_scramble(protovsid, VSID_MULTIPLIER_256M, VSID_BITS_256M);
}

uint64_t hpt_vpn(uint64_t ea, uint64_t vsid)
{
	uint64_t mask = (1UL << (SID_SHIFT - VPN_SHIFT)) - 1;

	return (vsid << (SID_SHIFT - VPN_SHIFT)) | ((ea >> VPN_SHIFT) & mask);
}

/* hpt_hash(), 256M segments: VSID xor page index within the segment. */
uint64_t hpt_hash(uint64_t vpn, unsigned shift)
{
	uint64_t mask = (1UL << (SID_SHIFT - VPN_SHIFT)) - 1;
	uint64_t hash = (vpn >> (SID_SHIFT - VPN_SHIFT)) ^ ((vpn & mask) >> (shift - VPN_SHIFT));

	return hash & 0x7fffffffffUL;
}

uint64_t hpte_encode_avpn(uint64_t vpn, enum hash_psize psize)
{
	uint64_t v = (vpn >> (23 - VPN_SHIFT)) & ~mmu_psize_defs[psize].avpnm;

	v <<= HPTE_V_AVPN_SHIFT;
	v |= (uint64_t)MMU_SEGSIZE_256M << HPTE_V_SSIZE_SHIFT;
	return v;
}

uint64_t hpte_encode_v(uint64_t vpn, enum hash_psize base, enum hash_psize actual)
{
	uint64_t v = hpte_encode_avpn(vpn, base);

	if (actual != MMU_PAGE_4K)
		v |= HPTE_V_LARGE;
	return v;
}

uint64_t hpte_encode_r(uint64_t pa, enum hash_psize base, enum hash_psize actual)
{
	if (actual == MMU_PAGE_4K)
		return pa & HPTE_R_RPN;
	return (pa & ~((1UL << mmu_psize_defs[actual].shift) - 1)) |
	       ((uint64_t)mmu_psize_defs[base].penc[actual] << LP_SHIFT);
}

/* htab_convert_pte_flags() for user pages: PP 0b010 read/write, 0b011
 * read-only (also for writable but clean pages, so the first store faults
 * and sets _PAGE_DIRTY); N without _PAGE_EXEC; R always (Linux does not
 * let the hardware update R/C), C when dirty; M (coherent). */
uint64_t htab_convert_pte_flags(uint64_t pteflags)
{
	uint64_t rflags = 0;

	if (!(pteflags & _PAGE_EXEC))
		rflags |= HPTE_R_N;
	if (pteflags & _PAGE_PRIVILEGED) {
		if (!(pteflags & _PAGE_WRITE))
			rflags |= 0x3;
	} else {
		if (pteflags & _PAGE_RWX)
			rflags |= 0x2;
		if (!((pteflags & _PAGE_WRITE) && (pteflags & _PAGE_DIRTY)))
			rflags |= 0x1;
	}
	rflags |= HPTE_R_R;
	if (pteflags & _PAGE_DIRTY)
		rflags |= HPTE_R_C;
	rflags |= HPTE_R_M;
	return rflags;
}
