/* The replay engine (measure/replay/replay.h) on hand-made streams: replaying
 * through the recorded layout gives what the per-instruction reference
 * model gives for the same instructions; through another layout every
 * address of a function in both builds moves with its function (exact),
 * a function of another size or missing from the layout is carried by
 * offset (approximate, named), other code keeps its address (outside);
 * the plugin's rules (physical lines, counts by side) hold.  Forks and
 * windows of real runs: t_sim_record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "measure/model/record.h"
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"
#include "util/array.h"

static const struct sim_config cfg = { .l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
	.itlb_entries = 64, .itlb_ways = 8, .stlb_entries = 1536, .stlb_ways = 12, .page = 4096,
	.fetch_block = 16 };
static uint8_t buf[1u << 16];

/* three blocks: in A (0x1000), in B (0x2000), outside (0x9000); each 6
 * instructions of 5 bytes */
static const uint64_t starts[3] = { 0x1000, 0x2010, 0x9000 };
static const int order[] = { 0, 1, 0, 2, 1, 1, 0, 2, 0, 1 };

static void block_insns(int b, uint64_t shift, uint64_t *a, uint32_t *l)
{
	for (int i = 0; i < 6; i++) {
		a[i] = starts[b] + shift + 5u * (unsigned)i;
		l[i] = 5;
	}
}

/* take: instructions of a user block taken back inside the window (phys
 * only), also once outside it, where it must change nothing */
static uint32_t stream_make(int phys, uint64_t take)
{
	struct rec_packer p;
	uint64_t a[6], ph[6];
	uint32_t l[6];

	rec_packer_init(&p, buf, sizeof(buf));
	rec_put_image(&p, 7, "prog");
	if (phys)
		rec_put_mark(&p, REC_WIN_OPEN);
	for (int b = 0; b < 3; b++) {
		block_insns(b, 0, a, l);
		for (int i = 0; i < 6; i++)
			ph[i] = a[i] + 0x100000 + (b == 2 ? 0x30 : 0);
		rec_put_def(&p, b == 0 ? REC_DEF_KERNEL : 0, a, l, phys ? ph : NULL, 6);
	}
	for (size_t k = 0; k < ARRAY_SIZE(order); k++)
		rec_put_exec(&p, (uint64_t)order[k]);
	if (phys && take)
		rec_put_take_back(&p, REC_SIDE_USER, take);
	if (phys)
		rec_put_mark(&p, REC_WIN_CLOSE);
	if (take)
		rec_put_take_back(&p, REC_SIDE_USER, take);
	rec_put_end(&p, REC_END_EXIT);
	return p.len;
}

static void record_of(struct lace_record *r, struct lace_record_stream *s, uint32_t n,
		      const char *host)
{
	record_init(r);
	snprintf(r->host, sizeof(r->host), "%s", host);
	r->cfg = cfg;
	s->pid = 7;
	s->image = 0;
	s->data = buf;
	s->len = n;
	r->streams = s;
	r->nstreams = 1;
}

/* the reference model over the blocks in order, block b moved by shift[b] */
static struct sim_totals reference(const uint64_t *shift)
{
	static uint64_t tags[1 << 16];
	struct sim_model m;
	uint64_t nl, ni, ns, a[6];
	uint32_t l[6];

	memset(tags, 0, sizeof(tags));
	sim_model_ntags(&cfg, &nl, &ni, &ns, NULL);
	sim_model_init(&m, &cfg, tags, tags + nl, tags + nl + ni, NULL);
	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		block_insns(order[k], shift[order[k]], a, l);
		for (int i = 0; i < 6; i++)
			sim_model_insn(&m, a[i], l[i], NULL, 0);
	}
	return m.t;
}

static void test_own_layout(void **state)
{
	struct lace_record r;
	struct lace_record_stream s;
	struct replay_result res;
	uint64_t zero[3] = { 0, 0, 0 };
	struct sim_totals want = reference(zero);

	record_of(&r, &s, stream_make(0, 0), "sim");
	assert_int_equal(replay_run(&r, NULL, &res), 0);
	assert_int_equal(res.nprocs, 1);
	assert_int_equal(res.procs[0].pid, 7);
	assert_memory_equal(&res.total, &want, sizeof(want));
	assert_int_equal(res.total.instructions, 60);
	replay_result_free(&res);
}

static void test_other_layout(void **state)
{
	static const struct replay_sym old[] = {
		{ "A", "A", 0x1000, 0x100, 0 }, { "B", "B", 0x2000, 0x40, 0 }, { "C", "C", 0x3000, 0x10, 0 },
	};
	static const struct replay_sym moved[] = {
		{ "A", "A", 0x5000, 0x100, 0 }, { "B", "B", 0x7000, 0x48, 0 },
	};
	struct replay_layout lay = { old, 3, moved, 2, NULL, false, false, 0, 0 };
	struct lace_record r;
	struct lace_record_stream s;
	struct replay_result res;
	uint64_t shift[3] = { 0x4000, 0x5000, 0 };
	struct sim_totals want = reference(shift);

	record_of(&r, &s, stream_make(0, 0), "sim");
	assert_int_equal(replay_run(&r, &lay, &res), 0);
	assert_memory_equal(&res.total, &want, sizeof(want));
	/* A ran 4 times, B 4 times, the outside block twice */
	assert_int_equal(res.exact, 24);
	assert_int_equal(res.approx, 24);
	assert_int_equal(res.outside, 12);
	assert_int_equal(res.napprox_fns, 1);
	assert_string_equal(res.approx_fns[0].name, "B");
	assert_int_equal(res.approx_fns[0].instructions, 24);
	replay_result_free(&res);
}

static void test_plugin_rules(void **state)
{
	struct lace_record r;
	struct lace_record_stream s;
	struct replay_result res;

	record_of(&r, &s, stream_make(1, 0), "qemu");
	assert_int_equal(replay_run(&r, NULL, &res), 0);
	/* block 0 is the kernel's: 4 runs */
	assert_int_equal(res.kernel.instructions, 24);
	assert_int_equal(res.user.instructions, 36);
	assert_int_equal(res.window.instructions, 60);
	/* lines from the physical addresses: block 2's sit 0x30 further,
	 * where its 4th instruction straddles a line (7 line loads a run,
	 * 6 at its virtual addresses) */
	assert_int_equal(res.total.l1i_loads, 60 + 2);
	replay_result_free(&res);
}

/* REC_TAKE_BACK: off the window's user instructions (and its totals), as
 * the plugin takes a block's rest back; the lookups stay; outside a
 * window nothing */
static void test_plugin_take_back(void **state)
{
	struct lace_record r;
	struct lace_record_stream s;
	struct replay_result res;

	record_of(&r, &s, stream_make(1, 4), "qemu");
	assert_int_equal(replay_run(&r, NULL, &res), 0);
	assert_int_equal(res.kernel.instructions, 24);
	assert_int_equal(res.user.instructions, 32);
	assert_int_equal(res.window.instructions, 56);
	assert_int_equal(res.total.instructions, 56);
	assert_int_equal(res.total.l1i_loads, 60 + 2);
	assert_int_equal(res.user.l1i_loads + res.kernel.l1i_loads, 60 + 2);
	replay_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_layout),
		cmocka_unit_test(test_other_layout),
		cmocka_unit_test(test_plugin_rules),
		cmocka_unit_test(test_plugin_take_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
