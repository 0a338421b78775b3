/* The hash MMU model against values worked out by hand (python) from the
 * kernel's formulas in mmu-hash.h / hash_utils.c / hash_64k.c, and its
 * behaviour: primary then secondary insert, eviction sparing bolted
 * entries, 64K sub-page slots, R/C bits, old vs young PTEs, and the PTE
 * cmpxchg loop under two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <cmocka.h>

#include "hashmmu/entry.h"
#include "hashmmu/hashmmu.h"
#include "probes/tracepoint.h"

#define CTX 9
#define EA 0x22345000UL  /* segment 2, 64K page 0x2234, 4K sub-page 5 */

static struct hashmmu_mm *mm_new(size_t bytes, enum hash_psize psize, bool young, uint64_t seed)
{
	struct hashmmu_config cfg = { .htab_bytes = bytes, .psize = psize, .young = young,
				      .context = CTX, .seed = seed };
	struct hashmmu_mm *mm = hashmmu_create(&cfg);

	assert_non_null(mm);
	return mm;
}

static void test_vsid_scramble(void **state)
{
	(void)state;
	/* (protovsid * 12538073) mod (2^40 - 1), computed with big ints */
	assert_int_equal(vsid_scramble(1, VSID_MULTIPLIER_256M, 40), 0xbf50d9);
	assert_int_equal(vsid_scramble(18874369, VSID_MULTIPLIER_256M, 40), 0x3af4df51b0);
	assert_int_equal(vsid_scramble(87693, VSID_MULTIPLIER_256M, 40), 0xffff616d85);
	assert_int_equal(vsid_scramble((1UL << 40) - 2, VSID_MULTIPLIER_256M, 40), 0xffff40af26);
	assert_int_equal(vsid_scramble(2097151, VSID_MULTIPLIER_256M, 40), 0xea1a60af3e);
	/* get_vsid(): protovsid = context << 21 | esid */
	assert_int_equal(hash_get_vsid(CTX, 0x10000000), 0x3af4df51b0);
	assert_int_equal(hash_get_vsid(CTX, 0x7fff12345000), 0x356fb24426);
	assert_int_equal(hash_get_vsid(CTX, 0x3fffffff0000), 0x3836c4b001);
	assert_int_equal(hash_get_vsid(CTX, EA), 0x3af59ea289);
	/* outside the 4 PB page-table range: no VSID */
	assert_int_equal(hash_get_vsid(CTX, 1UL << 52), 0);
}

static void test_hash_and_secondary(void **state)
{
	uint64_t vsid = hash_get_vsid(CTX, EA), vpn = hpt_vpn(EA, vsid);
	struct hashmmu_mm *mm = mm_new(1 << 20, MMU_PAGE_4K, true, 1);

	(void)state;
	assert_int_equal(vpn, 0x3af59ea2892345);
	assert_int_equal(hpt_hash(vpn, 12), 0x3af59e81cc);
	assert_int_equal(hpt_hash(vpn, 16), 0x3af59ea0bd);
	/* 1 MiB table: 8192 groups of 128 bytes */
	assert_int_equal(hashmmu_htab_groups(mm), 8192);
	assert_int_equal(hashmmu_hash_mask(mm), 0x1fff);
	assert_int_equal(hpt_hash(vpn, 12) & 0x1fff, 0x1cc);
	assert_int_equal(~hpt_hash(vpn, 12) & 0x1fff, 0x1e33);
	hashmmu_destroy(mm);
}

static void test_hpte_encode(void **state)
{
	uint64_t vpn = 0x3af59ea2892345, v;

	(void)state;
	assert_int_equal(hpte_encode_avpn(vpn, MMU_PAGE_4K), 0x3af59ea289200);
	v = hpte_encode_v(vpn, MMU_PAGE_4K, MMU_PAGE_4K);
	assert_int_equal(v, 0x3af59ea289200);
	assert_int_equal((v & HPTE_V_AVPN) >> HPTE_V_AVPN_SHIFT, vpn >> 11); /* decode */
	v = hpte_encode_v(vpn, MMU_PAGE_64K, MMU_PAGE_64K);
	assert_int_equal(v, 0x3af59ea289200 | HPTE_V_LARGE);
	assert_int_equal(hpte_encode_r(0x12345000, MMU_PAGE_4K, MMU_PAGE_4K), 0x12345000);
	/* 64K: RPN aligned to 64K, LP (penc 1) at bit 12 */
	assert_int_equal(hpte_encode_r(0x12345000, MMU_PAGE_64K, MMU_PAGE_64K), 0x12341000);
	/* htab_convert_pte_flags(): clean writable user page is PP 0b011,
	 * dirty is 0b010 with C; R always; N without exec; M */
	assert_int_equal(htab_convert_pte_flags(_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED),
			 HPTE_R_N | 0x3 | HPTE_R_R | HPTE_R_M);
	assert_int_equal(htab_convert_pte_flags(_PAGE_PRESENT | _PAGE_RW | _PAGE_DIRTY | _PAGE_EXEC),
			 0x2 | HPTE_R_R | HPTE_R_C | HPTE_R_M);
}

static uint64_t group_of(struct hashmmu_mm *mm, uint64_t ea, unsigned shift, int secondary)
{
	uint64_t h = hpt_hash(hpt_vpn(ea, hashmmu_vsid(mm, ea)), shift);

	return ((secondary ? ~h : h) & hashmmu_hash_mask(mm)) * HPTES_PER_GROUP;
}

static void test_insert_primary_then_secondary(void **state)
{
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_4K, true, 1);
	struct hashmmu_stats st;
	uint64_t prim = group_of(mm, EA, 12, 0), sec = group_of(mm, EA, 12, 1);
	const struct hash_pte *h;

	(void)state;
	assert_int_equal(hashmmu_map(mm, EA & ~0xffffUL, 0x10000, _PAGE_RW), 0);
	/* fill the primary group with unrelated translations */
	for (int i = 0; i < 8; i++)
		assert_int_equal(hpte_insert(mm, prim, 0x1000 + i, 0, HPTE_R_R, 0, MMU_PAGE_4K,
					     MMU_PAGE_4K), i);
	assert_int_equal(hashmmu_touch(mm, EA, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &st);
	assert_int_equal(st.inserts, 9);
	assert_int_equal(st.secondary, 1);
	assert_int_equal(st.evictions, 0);
	h = hashmmu_find_hpte(mm, EA);
	assert_non_null(h);
	assert_ptr_equal(h, hashmmu_htab(mm) + sec); /* first slot of the secondary group */
	assert_true(h->v & HPTE_V_SECONDARY);
	/* sub-page 5's hidx nibble: slot 0 | secondary 8, stored +1 */
	assert_int_equal(hashmmu_pte_hidx(mm, EA), 0x9UL << (5 * 4));
	hashmmu_destroy(mm);
}

static void test_eviction_spares_bolted(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 16; seed++) {
		struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_4K, true, seed);
		uint64_t prim = group_of(mm, EA, 12, 0), sec = group_of(mm, EA, 12, 1);
		const struct hash_pte *t = hashmmu_htab(mm);
		struct hashmmu_stats st;

		assert_int_equal(hashmmu_map(mm, EA & ~0xffffUL, 0x10000, _PAGE_RW), 0);
		/* primary: 7 bolted + one ordinary at slot 3; secondary: 8 bolted */
		for (int i = 0; i < 8; i++) {
			hpte_insert(mm, prim, 0x2000 + i, 0, HPTE_R_R, i == 3 ? 0 : HPTE_V_BOLTED,
				    MMU_PAGE_4K, MMU_PAGE_4K);
			hpte_insert(mm, sec, 0x3000 + i, 0, HPTE_R_R, HPTE_V_BOLTED | HPTE_V_SECONDARY,
				    MMU_PAGE_4K, MMU_PAGE_4K);
		}
		assert_int_equal(hpte_remove(mm, sec), -1); /* all bolted: nothing to evict */
		assert_int_equal(hashmmu_touch(mm, EA, _PAGE_READ), 0);
		hashmmu_get_stats(mm, &st);
		assert_int_equal(st.evictions, 1);
		/* the only ordinary entry made room; every bolted one survived */
		assert_ptr_equal(hashmmu_find_hpte(mm, EA), t + prim + 3);
		for (int i = 0; i < 8; i++) {
			assert_true(t[sec + i].v & HPTE_V_VALID);
			assert_true(t[sec + i].v & HPTE_V_BOLTED);
			if (i != 3)
				assert_true((t[prim + i].v & (HPTE_V_VALID | HPTE_V_BOLTED)) ==
					    (HPTE_V_VALID | HPTE_V_BOLTED));
		}
		hashmmu_destroy(mm);
	}
}

/* Secondary slot 7 is slot index 15, which hidx cannot record (stored +1
 * it would read as 0 = invalid): the kernel gives it back and evicts from
 * the primary group instead (hash_64k.c, soft_invalid). */
static void test_soft_invalid_slot(void **state)
{
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_4K, true, 5);
	uint64_t prim = group_of(mm, EA, 12, 0), sec = group_of(mm, EA, 12, 1);
	const struct hash_pte *t = hashmmu_htab(mm), *h;
	struct hashmmu_stats st;

	(void)state;
	assert_int_equal(hashmmu_map(mm, EA & ~0xffffUL, 0x10000, _PAGE_RW), 0);
	for (int i = 0; i < 8; i++)
		hpte_insert(mm, prim, 0x5000 + i, 0, HPTE_R_R, 0, MMU_PAGE_4K, MMU_PAGE_4K);
	for (int i = 0; i < 7; i++)
		hpte_insert(mm, sec, 0x6000 + i, 0, HPTE_R_R, HPTE_V_SECONDARY, MMU_PAGE_4K,
			    MMU_PAGE_4K);
	assert_int_equal(hashmmu_touch(mm, EA, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &st);
	assert_int_equal(st.evictions, 1);
	h = hashmmu_find_hpte(mm, EA);
	assert_non_null(h);
	/* it ended in the primary group, secondary slot 7 was given back */
	assert_true(h >= t + prim && h < t + prim + 8);
	assert_false(t[sec + 7].v & HPTE_V_VALID);
	assert_int_equal(hashmmu_pte_hidx(mm, EA), ((uint64_t)(h - (t + prim)) + 1) << (5 * 4));
	hashmmu_destroy(mm);
}

static void test_64k_subpage_slots(void **state)
{
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_4K, true, 1);
	uint64_t base = EA & ~0xffffUL, pte, *ptep;
	uint64_t g1 = group_of(mm, base + 0x1000, 12, 0);

	(void)state;
	assert_int_equal(hashmmu_map(mm, base, 0x10000, _PAGE_RW), 0);
	/* occupy 3 slots of sub-page 1's primary group */
	for (int i = 0; i < 3; i++)
		hpte_insert(mm, g1, 0x4000 + i, 0, HPTE_R_R, 0, MMU_PAGE_4K, MMU_PAGE_4K);
	assert_int_equal(hashmmu_touch(mm, base + 0x0000, _PAGE_READ), 0);
	assert_int_equal(hashmmu_touch(mm, base + 0x1000, _PAGE_READ), 0);
	assert_int_equal(hashmmu_touch(mm, base + 0xf000, _PAGE_READ), 0);
	/* nibble i = slot + 1: sub-pages 0 and 15 at slot 0, sub-page 1 at 3 */
	assert_int_equal(hashmmu_pte_hidx(mm, base), 0x1UL | 0x4UL << 4 | 0x1UL << 60);
	ptep = hashmmu_ptep(mm, base);
	pte = *ptep;
	assert_true(pte & H_PAGE_COMBO);
	assert_true(pte & H_PAGE_HASHPTE);
	assert_false(pte & H_PAGE_BUSY);
	assert_int_equal(hashmmu_count_valid(mm), 3 + 3);
	/* an untouched sub-page has no HPTE; touching it adds one */
	assert_null(hashmmu_find_hpte(mm, base + 0x2000));
	assert_int_equal(hashmmu_touch(mm, base + 0x2000, _PAGE_READ), 0);
	assert_non_null(hashmmu_find_hpte(mm, base + 0x2000));
	hashmmu_destroy(mm);

	/* hashed as 64K: one large HPTE serves the whole page */
	mm = mm_new(1 << 18, MMU_PAGE_64K, true, 1);
	assert_int_equal(hashmmu_map(mm, base, 0x10000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_touch(mm, base, _PAGE_READ), 0);
	assert_int_equal(hashmmu_touch(mm, base + 0xf000, _PAGE_READ), 0);
	assert_int_equal(hashmmu_count_valid(mm), 1);
	assert_true(hashmmu_find_hpte(mm, base)->v & HPTE_V_LARGE);
	assert_false(*hashmmu_ptep(mm, base) & H_PAGE_COMBO);
	hashmmu_destroy(mm);
}

static void test_rc_bits(void **state)
{
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_64K, true, 1);
	const struct hash_pte *h;
	struct hashmmu_stats st;

	(void)state;
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x40000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0);
	h = hashmmu_find_hpte(mm, 0x10000000);
	assert_non_null(h);
	assert_true(h->r & HPTE_R_R);
	assert_false(h->r & HPTE_R_C);
	assert_int_equal(h->r & HPTE_R_PP, 0x3);  /* clean: read-only to the MMU */
	assert_false(*hashmmu_ptep(mm, 0x10000000) & _PAGE_DIRTY);
	/* the first store takes a protection fault that sets C and dirty */
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_RW), 0);
	hashmmu_get_stats(mm, &st);
	assert_int_equal(st.faults, 2);
	assert_int_equal(st.dirty_faults, 1);
	assert_int_equal(st.updatepp, 1);
	assert_ptr_equal(hashmmu_find_hpte(mm, 0x10000000), h); /* updated in place */
	assert_true(h->r & HPTE_R_C);
	assert_int_equal(h->r & HPTE_R_PP, 0x2);
	assert_true(*hashmmu_ptep(mm, 0x10000000) & _PAGE_DIRTY);
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_RW), 0);
	hashmmu_get_stats(mm, &st);
	assert_int_equal(st.faults, 2);
	/* a store to a fresh page: dirty from the Linux fault, C preset */
	assert_int_equal(hashmmu_touch(mm, 0x10010000, _PAGE_RW), 0);
	assert_true(hashmmu_find_hpte(mm, 0x10010000)->r & HPTE_R_C);
	/* unmapped and read-only violations fail like SIGSEGV */
	assert_int_equal(hashmmu_touch(mm, 0x20000000, _PAGE_READ), -14);
	assert_int_equal(hashmmu_map(mm, 0x30000000, 0x10000, _PAGE_READ), 0);
	assert_int_equal(hashmmu_touch(mm, 0x30000000, _PAGE_RW), -14);
	hashmmu_destroy(mm);
}

static void test_old_vs_young(void **state)
{
	struct hashmmu_stats y, o;
	struct hashmmu_mm *mm;

	(void)state;
	mm = mm_new(1 << 18, MMU_PAGE_64K, true, 1);
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x10000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &y);
	/* young: one hash fault (no PTE), the Linux fault fills the PTE and
	 * update_mmu_cache() preloads the HPTE */
	assert_int_equal(y.faults, 1);
	assert_int_equal(y.linux_faults, 1);
	assert_int_equal(y.preloads, 1);
	assert_int_equal(y.accessed_faults, 0);
	hashmmu_destroy(mm);

	mm = mm_new(1 << 18, MMU_PAGE_64K, false, 1);
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x10000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &o);
	/* old: no preload, so a second hash fault sets _PAGE_ACCESSED */
	assert_int_equal(o.faults, 2);
	assert_int_equal(o.linux_faults, 1);
	assert_int_equal(o.preloads, 0);
	assert_int_equal(o.accessed_faults, 1);
	assert_true(*hashmmu_ptep(mm, 0x10000000) & _PAGE_ACCESSED);
	/* later accesses cost nothing either way */
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &o);
	assert_int_equal(o.faults, 2);
	/* aging the page makes the next access fault again */
	hashmmu_mkold(mm, 0x10000000, 0x10000);
	assert_null(hashmmu_find_hpte(mm, 0x10000000));
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0);
	hashmmu_get_stats(mm, &o);
	assert_int_equal(o.faults, 3);
	assert_int_equal(o.accessed_faults, 2);
	hashmmu_destroy(mm);
}

/* ---- two threads on one PTE ------------------------------------------ */
struct race {
	struct hashmmu_mm *mm;
	sem_t go_b, b_done;
	pthread_t a;
	int fired;
	int b_rc;
};

/* In thread A's cmpxchg loop, once: let B fault the same PTE to the end. */
static void race_hook(struct hashmmu_mm *mm, uint64_t *ptep, void *arg)
{
	struct race *r = arg;

	(void)mm;
	(void)ptep;
	if (!pthread_equal(pthread_self(), r->a) || r->fired)
		return;
	r->fired = 1;
	sem_post(&r->go_b);
	sem_wait(&r->b_done);
}

static void *thread_b_touch(void *arg)
{
	struct race *r = arg;

	sem_wait(&r->go_b);
	r->b_rc = hashmmu_touch(r->mm, 0x10000000, _PAGE_READ);
	sem_post(&r->b_done);
	return NULL;
}

static void *thread_b_fault(void *arg)
{
	struct race *r = arg;

	sem_wait(&r->go_b);
	/* A holds the PTE busy: the fault must say "retry" */
	r->b_rc = hash_page_mm(r->mm, 0x10000000, _PAGE_PRESENT | _PAGE_READ, TRAP_DSI, 0);
	sem_post(&r->b_done);
	return NULL;
}

static void run_race(struct race *r, void *(*b)(void *))
{
	pthread_t tb;

	r->a = pthread_self();
	sem_init(&r->go_b, 0, 0);
	sem_init(&r->b_done, 0, 0);
	assert_int_equal(pthread_create(&tb, NULL, b, r), 0);
	assert_int_equal(hashmmu_touch(r->mm, 0x10000000, _PAGE_READ), 0);
	pthread_join(tb, NULL);
	sem_destroy(&r->go_b);
	sem_destroy(&r->b_done);
}

static void test_cmpxchg_retry_two_threads(void **state)
{
	struct race r = { 0 };
	struct hashmmu_stats st;

	(void)state;
	/* old PTEs: after the Linux fault A's second hash fault runs the
	 * cmpxchg loop; B completes a whole fault on the same PTE inside
	 * A's window, so A's exchange fails and loops */
	r.mm = mm_new(1 << 18, MMU_PAGE_64K, false, 1);
	assert_int_equal(hashmmu_map(r.mm, 0x10000000, 0x10000, _PAGE_RW), 0);
	hashmmu_set_race_hook(r.mm, race_hook, &r);
	run_race(&r, thread_b_touch);
	hashmmu_get_stats(r.mm, &st);
	assert_int_equal(r.b_rc, 0);
	assert_int_equal(st.cmpxchg_retries, 1);
	assert_int_equal(st.inserts, 1);       /* A found B's HPTE: no duplicate */
	assert_int_equal(hashmmu_count_valid(r.mm), 1);
	assert_false(*hashmmu_ptep(r.mm, 0x10000000) & H_PAGE_BUSY);
	hashmmu_destroy(r.mm);

	/* B meets the PTE while A holds it H_PAGE_BUSY */
	memset(&r, 0, sizeof(r));
	r.mm = mm_new(1 << 18, MMU_PAGE_64K, false, 1);
	assert_int_equal(hashmmu_map(r.mm, 0x10000000, 0x10000, _PAGE_RW), 0);
	hashmmu_set_busy_hook(r.mm, race_hook, &r);
	run_race(&r, thread_b_fault);
	hashmmu_get_stats(r.mm, &st);
	assert_int_equal(r.b_rc, 0);
	assert_int_equal(st.busy_retries, 1);
	assert_int_equal(hashmmu_count_valid(r.mm), 1);
	hashmmu_destroy(r.mm);
}

/* Free-running contention: invariants only (no counts that depend on
 * timing): every page ends with exactly one HPTE and no PTE stays busy. */
struct contend {
	struct hashmmu_mm *mm;
	int rc;
};

static void *contend_thread(void *arg)
{
	struct contend *c = arg;

	for (int round = 0; round < 200; round++) {
		for (uint64_t p = 0; p < 16; p++)
			c->rc |= hashmmu_touch(c->mm, 0x10000000 + (p << 16), _PAGE_RW);
		if (round % 10 == 0)
			hashmmu_mkold(c->mm, 0x10000000, 16 << 16);
	}
	return NULL;
}

static void test_contention_invariants(void **state)
{
	struct contend c[2];
	pthread_t th[2];
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_4K, false, 3);

	(void)state;
	assert_int_equal(hashmmu_map(mm, 0x10000000, 16 << 16, _PAGE_RW), 0);
	for (int i = 0; i < 2; i++) {
		c[i].mm = mm;
		c[i].rc = 0;
		assert_int_equal(pthread_create(&th[i], NULL, contend_thread, &c[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(c[i].rc, 0);
	}
	for (uint64_t p = 0; p < 16; p++) {
		assert_false(*hashmmu_ptep(mm, 0x10000000 + (p << 16)) & H_PAGE_BUSY);
		assert_non_null(hashmmu_find_hpte(mm, 0x10000000 + (p << 16)));
	}
	/* one HPTE per touched 4K sub-page (sub-page 0 of each page) */
	assert_int_equal(hashmmu_count_valid(mm), 16);
	hashmmu_destroy(mm);
}

static void test_tracepoint_counts_faults(void **state)
{
	struct hashmmu_mm *mm = mm_new(1 << 18, MMU_PAGE_64K, false, 1);
	struct hashmmu_stats st;
	struct lace_tracepoint *tp = lace_trace_find("hash_fault");

	(void)state;
	assert_non_null(tp);
	lace_trace_reset(tp);
	assert_int_equal(lace_trace_ring_alloc(tp, 8), 0);
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x40000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_touch(mm, 0x10000000, _PAGE_READ), 0); /* disabled */
	assert_int_equal(lace_trace_hits("hash_fault"), 0);
	assert_int_equal(lace_trace_enable("hash_fault"), 0);
	hashmmu_reset_stats(mm);
	for (uint64_t p = 1; p < 4; p++)
		assert_int_equal(hashmmu_touch(mm, 0x10000000 + (p << 16), _PAGE_RW), 0);
	hashmmu_get_stats(mm, &st);
	assert_int_equal(lace_trace_hits("hash_fault"), st.faults);
	FILE *devnull = fopen("/dev/null", "w");
	assert_non_null(devnull);
	assert_int_equal(lace_trace_ring_dump(tp, devnull), st.faults);
	fclose(devnull);
	assert_int_equal(lace_trace_disable("hash_fault"), 0);
	assert_int_equal(lace_trace_ring_alloc(tp, 0), 0);
	assert_true(entry_exception_count() >= st.faults);
	hashmmu_destroy(mm);
}

static void test_bad_config(void **state)
{
	struct hashmmu_config cfg = { .htab_bytes = 1000, .psize = MMU_PAGE_4K };
	struct hashmmu_mm *mm;

	(void)state;
	assert_null(hashmmu_create(&cfg));
	cfg.htab_bytes = 1 << 18;
	mm = hashmmu_create(&cfg);
	assert_non_null(mm);
	assert_int_equal(hashmmu_map(mm, 0x1234, 0x10000, _PAGE_RW), -22);
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x10000, _PAGE_RW), 0);
	assert_int_equal(hashmmu_map(mm, 0x10000000, 0x20000, _PAGE_RW), -17);
	hashmmu_destroy(mm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vsid_scramble),
		cmocka_unit_test(test_hash_and_secondary),
		cmocka_unit_test(test_hpte_encode),
		cmocka_unit_test(test_insert_primary_then_secondary),
		cmocka_unit_test(test_eviction_spares_bolted),
		cmocka_unit_test(test_soft_invalid_slot),
		cmocka_unit_test(test_64k_subpage_slots),
		cmocka_unit_test(test_rc_bits),
		cmocka_unit_test(test_old_vs_young),
		cmocka_unit_test(test_cmpxchg_retry_two_threads),
		cmocka_unit_test(test_contention_invariants),
		cmocka_unit_test(test_tracepoint_counts_faults),
		cmocka_unit_test(test_bad_config),
	};
	return cmocka_run_group_tests_name("hashmmu", tests, NULL, NULL);
}
