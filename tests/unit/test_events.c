/* measure/events.c: perf's event spellings map to the perf_event_attr
 * encodings of include/uapi/linux/perf_event.h (the cache grid is
 * id | op << 8 | result << 16, as perf's parse-events.c builds it). */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "measure/events.h"
#include "util/array.h"

static void parse_ok(const char *name, uint32_t type, uint64_t config)
{
	struct lace_event_spec ev;

	assert_int_equal(event_parse_one(&ev, name), 0);
	assert_int_equal(ev.type, type);
	assert_true(ev.config == config);
	event_spec_release(&ev);
}

#define CACHE(id, op, res) ((id) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static void test_generic(void **state)
{
	parse_ok("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	parse_ok("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	parse_ok("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	parse_ok("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES);
	parse_ok("stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	parse_ok("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
}

static void test_software(void **state)
{
	struct lace_event_spec ev;

	parse_ok("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	parse_ok("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	parse_ok("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	parse_ok("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	parse_ok("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	assert_int_equal(event_parse_one(&ev, "task-clock"), 0);
	assert_string_equal(ev.unit, "msec");
	assert_false(ev.hardware);
	event_spec_release(&ev);
}

static void test_cache_grid(void **state)
{
	parse_ok("L1-icache-loads", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1I, READ, ACCESS));
	parse_ok("L1-icache-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1I, READ, MISS));
	parse_ok("iTLB-loads", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_ITLB, READ, ACCESS));
	parse_ok("iTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_ITLB, READ, MISS));
	parse_ok("dTLB-store-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_DTLB, WRITE, MISS));
	parse_ok("LLC-prefetches", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_LL, PREFETCH, ACCESS));
	parse_ok("L1-dcache-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1D, READ, MISS));
	parse_ok("branch-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_BPU, READ, MISS));
	parse_ok("node-stores", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_NODE, WRITE, ACCESS));
	parse_ok("l1i-load-misses", PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1I, READ, MISS));
}

static void test_raw_and_modifiers(void **state)
{
	struct lace_event_spec ev;

	parse_ok("r003c", PERF_TYPE_RAW, 0x3c);
	parse_ok("r1a2B", PERF_TYPE_RAW, 0x1a2b);
	assert_int_equal(event_parse_one(&ev, "cycles:u"), 0);
	assert_false(ev.exclude_user);
	assert_true(ev.exclude_kernel);
	assert_string_equal(ev.base, "cycles");
	assert_string_equal(ev.name, "cycles:u");
	event_spec_release(&ev);
	assert_int_equal(event_parse_one(&ev, "iTLB-load-misses:k"), 0);
	assert_true(ev.exclude_user);
	assert_false(ev.exclude_kernel);
	event_spec_release(&ev);
	assert_int_equal(event_parse_one(&ev, "instructions:uk"), 0);
	assert_false(ev.exclude_user || ev.exclude_kernel);
	assert_true(ev.exclude_hv);
	event_spec_release(&ev);
	assert_int_not_equal(event_parse_one(&ev, "cycles:q"), 0);
	event_spec_release(&ev);
	/* NAME@PROFILE: the count of one CPU profile's model */
	assert_int_equal(event_parse_one(&ev, "L1-icache-load-misses:k@nehalem"), 0);
	assert_string_equal(ev.name, "L1-icache-load-misses:k@nehalem");
	assert_string_equal(ev.base, "L1-icache-load-misses");
	assert_string_equal(ev.profile_name, "nehalem");
	assert_true(ev.exclude_user);
	assert_int_equal(ev.type, PERF_TYPE_HW_CACHE);
	event_spec_release(&ev);
	assert_null(ev.profile_name);
	assert_int_equal(event_parse_one(&ev, "fetch-blocks@skylake-client"), 0);
	assert_string_equal(ev.profile_name, "skylake-client");
	assert_int_equal(ev.kind, LACE_EV_SIM_ONLY);
	event_spec_release(&ev);
	assert_int_equal(event_parse_one(&ev, "instructions"), 0);
	assert_null(ev.profile_name);
	event_spec_release(&ev);
	assert_int_not_equal(event_parse_one(&ev, "cycles@"), 0);
	event_spec_release(&ev);
}

static void test_lists_and_groups(void **state)
{
	struct lace_event_list l = { 0 };

	assert_int_equal(events_parse(&l, "cycles,{L1-icache-loads,L1-icache-load-misses}:u,page-faults"), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.ev[0].group, -1);
	assert_int_equal(l.ev[1].group, 0);
	assert_int_equal(l.ev[2].group, 0);
	assert_true(l.ev[2].exclude_kernel);
	assert_int_equal(l.ev[3].group, -1);
	/* the loose hardware events become one group (cycles only: 1 member, no group) */
	events_group_hardware(&l);
	assert_int_equal(l.ev[0].group, -1);
	events_release(&l);

	assert_int_equal(events_parse(&l, "cycles,instructions,page-faults"), 0);
	events_group_hardware(&l);
	assert_true(l.ev[0].group >= 0);
	assert_int_equal(l.ev[0].group, l.ev[1].group);
	assert_int_equal(l.ev[2].group, -1);
	events_release(&l);

	const char *bad[] = { "", "cycles,", "{cycles", "cycles}", "{a,{b}}", "cycles,,instructions" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_not_equal(events_parse(&l, bad[i]), 0);
		events_release(&l);
	}
}

static void test_unknown_names(void **state)
{
	struct lace_event_spec ev;

	/* a plain identifier nobody knows stays for the simulator to claim */
	assert_int_equal(event_parse_one(&ev, "fetch-blocks"), 0);
	assert_int_equal(ev.kind, LACE_EV_SIM_ONLY);
	event_spec_release(&ev);
	/* pmu syntax with a PMU that does not exist */
	assert_int_not_equal(event_parse_one(&ev, "nosuchpmu/config=1/"), 0);
	event_spec_release(&ev);
	/* path tricks in tracepoint names are refused */
	assert_int_not_equal(event_parse_one(&ev, "..:.."), 0);
	event_spec_release(&ev);
}

static void test_software_pmu(void **state)
{
	struct lace_event_spec ev;

	/* the software PMU exists on every kernel with perf events */
	if (event_parse_one(&ev, "software/config=2/")) {
		event_spec_release(&ev);
		/* the running kernel's, not lace's: an external prerequisite */
		print_message("skipped: the kernel has no software PMU in "
			      "/sys/bus/event_source/devices\n");
		skip();
	}
	assert_int_equal(ev.type, PERF_TYPE_SOFTWARE);
	assert_true(ev.config == PERF_COUNT_SW_PAGE_FAULTS);
	assert_false(ev.hardware);
	event_spec_release(&ev);
}

static void test_native(void **state)
{
	struct lace_event_spec ev;

	/* libpfm4's perf:: table is there whatever the CPU */
	assert_int_equal(event_parse_one(&ev, "perf::PERF_COUNT_SW_PAGE_FAULTS"), 0);
	assert_int_equal(ev.kind, LACE_EV_NATIVE);
	assert_int_equal(ev.type, PERF_TYPE_SOFTWARE);
	assert_true(ev.config == PERF_COUNT_SW_PAGE_FAULTS);
	assert_false(ev.hardware);
	event_spec_release(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_software),
		cmocka_unit_test(test_cache_grid),
		cmocka_unit_test(test_raw_and_modifiers),
		cmocka_unit_test(test_lists_and_groups),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_software_pmu),
		cmocka_unit_test(test_native),
	};
	return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}
