/* Hot files and line/page counting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "layout/hotset.h"
#include "util/error.h"

static void test_parse(void **state)
{
	struct lace_hotset hs;

	assert_int_equal(hotset_parse("# hot functions\nfoo 2.5\n\n  bar\t# inline comment\nbaz 0\n", &hs), 0);
	assert_int_equal(hs.n, 3);
	assert_true(hs.weights[hotset_find(&hs, "foo", NULL)] == 2.5);
	assert_true(hs.weights[hotset_find(&hs, "bar", NULL)] == 1);
	assert_true(hotset_find(&hs, "baz", NULL) >= 0);
	/* by base name: foo covers foo.isra.0 */
	assert_int_equal(hotset_find(&hs, "foo.isra.0", "foo"), hotset_find(&hs, "foo", NULL));
	assert_int_equal(hotset_find(&hs, "qux", "qux"), -1);
	hotset_free(&hs);
}

static void test_parse_errors(void **state)
{
	struct lace_hotset hs;

	assert_true(hotset_parse("foo\nbar -1\n", &hs) < 0);
	assert_non_null(strstr(lace_error_msg(), "line 2"));
	assert_true(hotset_parse("foo 1 2\n", &hs) < 0);
	assert_true(hotset_parse("foo nan\n", &hs) < 0);
	assert_true(hotset_load("/nonexistent/hot", &hs) < 0);
}

/* perf 6.1's texts, trimmed from real runs (faultbench under
 * perf record -e cpu-clock [-g]) */
static const char report_self[] =
	"# Samples: 24  of event 'cpu-clock'\n"
	"#\n"
	"# Overhead  Command     Shared Object         Symbol\n"
	"# ........  ..........  ....................  ......\n"
	"#\n"
	"    25.00%  faultbench  [kernel.kallsyms]     [k] pvm_irq_enable\n"
	"    20.83%  faultbench  faultbench            [.] hpte_find\n"
	"     4.17%  faultbench  libc.so.6             [.] memcpy@@GLIBC_2.14\n"
	"     4.17%  kworker/0:1 [kernel.kallsyms]     [k] hpte_find\n"
	"     2.00%  faultbench  faultbench            [.] 0x0000000000001234\n";

static const char report_children[] =
	"# Children      Self  Command     Shared Object         Symbol\n"
	"# ........  ........  ..........  ....................  ......\n"
	"#\n"
	"    38.46%    19.23%  faultbench  faultbench            [.] hpte_find\n"
	"            |\n"
	"            ---hpte_find\n"
	"               |\n"
	"                --19.23%--asm_exc_page_fault\n"
	"    30.00%     0.00%  faultbench  [kernel.kallsyms]     [k] asm_exc_page_fault\n"
	"    15.38%    15.38%  faultbench  [kernel.kallsyms]     [k] pvm_irq_enable\n";

static const char script_flat[] =
	"      faultbench 25265 60085.914442:     500000 cpu-clock:  ffffffff8177819a elf_load+0x28a ([kernel.kallsyms])\n"
	"      faultbench 25265 60085.915394:     500000 cpu-clock:      7fdb2693a575 hpte_find+0x5 (/tmp/faultbench)\n"
	"      faultbench 25265 60085.916395:     250000 cpu-clock:      7fdb266f7e70 memcpy@@GLIBC_2.14+0x0 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"     kworker/0:1    12 [001] 60085.917000:          1 sched:sched_switch:  ffffffff81000000 hpte_find+0x9 ([kernel.kallsyms])\n"
	"      faultbench 25265 60085.918000:     500000 cpu-clock:      7fdb266f7e70 [unknown] (/tmp/x)\n";

static const char script_graph[] =
	"faultbench 25306 60087.051179:     500000 cpu-clock: \n"
	"\t           1979e _dl_sysdep_parse_arguments+0x2e (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
	"\t           1ab78 _dl_start_user+0x0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
	"\n"
	"faultbench 25306 60087.052199:     500000 cpu-clock: \n"
	"\tffffffff8225f759 pvm_irq_enable+0x19 ([kernel.kallsyms])\n"
	"\tffffffff81000000 asm_exc_page_fault+0x1 ([kernel.kallsyms])\n"
	"\n"
	"faultbench 25306 60087.053000:     500000 cpu-clock: \n"
	"\t           4242 pvm_irq_enable+0x2 ([kernel.kallsyms])\n";

static double weight_of(const struct lace_hotset *hs, const char *name)
{
	long i = hotset_find(hs, name, NULL);
	return i < 0 ? -1 : hs->weights[i];
}

static void test_perf_report(void **state)
{
	struct lace_hotset hs;

	assert_int_equal(hotset_detect(report_self), HOT_PERF_REPORT);
	assert_int_equal(hotset_parse_perf_report(report_self, &hs), 0);
	/* same symbol in two rows (two comms) adds up; @VERSION and raw
	 * addresses dropped */
	assert_int_equal(hs.n, 3);
	assert_true(weight_of(&hs, "hpte_find") > 25.0 - 1e-9 && weight_of(&hs, "hpte_find") < 25.0 + 1e-9);
	assert_true(weight_of(&hs, "pvm_irq_enable") == 25.0);
	assert_true(weight_of(&hs, "memcpy") == 4.17);
	hotset_free(&hs);

	/* --children: the Self column; callers with no samples of their own
	 * and callgraph lines are left out */
	assert_int_equal(hotset_detect(report_children), HOT_PERF_REPORT);
	assert_int_equal(hotset_parse_perf_report(report_children, &hs), 0);
	assert_int_equal(hs.n, 2);
	assert_true(weight_of(&hs, "hpte_find") == 19.23);
	assert_int_equal(hotset_find(&hs, "asm_exc_page_fault", NULL), -1);
	hotset_free(&hs);

	assert_true(hotset_parse_perf_report("# Overhead  Command  Symbol\n#\n", &hs) < 0);
	assert_non_null(strstr(lace_error_msg(), "no sample"));
}

static void test_perf_script(void **state)
{
	struct lace_hotset hs;

	assert_int_equal(hotset_detect(script_flat), HOT_PERF_SCRIPT);
	assert_int_equal(hotset_parse_perf_script(script_flat, &hs), 0);
	/* by period; a comm with a colon and a tracepoint event name with
	 * colons still parse; [unknown] skipped */
	assert_int_equal(hs.n, 3);
	assert_true(weight_of(&hs, "elf_load") == 500000);
	assert_true(weight_of(&hs, "hpte_find") == 500001);
	assert_true(weight_of(&hs, "memcpy") == 250000);
	hotset_free(&hs);

	/* callchains: the leaf frame of each sample only */
	assert_int_equal(hotset_detect(script_graph), HOT_PERF_SCRIPT);
	assert_int_equal(hotset_parse_perf_script(script_graph, &hs), 0);
	assert_int_equal(hs.n, 2);
	assert_true(weight_of(&hs, "pvm_irq_enable") == 1000000);
	assert_true(weight_of(&hs, "_dl_sysdep_parse_arguments") == 500000);
	assert_int_equal(hotset_find(&hs, "asm_exc_page_fault", NULL), -1);
	assert_int_equal(hotset_find(&hs, "_dl_start_user", NULL), -1);
	hotset_free(&hs);

	/* a plain hot file stays one */
	assert_int_equal(hotset_detect("# hot\nfoo 2\nbar\n"), HOT_LIST);
	assert_int_equal(hotset_detect("foo.isra.0 1.5\n"), HOT_LIST);
}

static void test_ranges(void **state)
{
	/* [0x1000,+0x80) 2 lines; [0x1040,+0x40) overlaps; [0x1ff0,+0x20) crosses a page */
	uint64_t start[] = { 0x1000, 0x1040, 0x1ff0, 0x5000 }, size[] = { 0x80, 0x40, 0x20, 0 };
	struct lace_span_count c;
	size_t np;

	ranges_count(start, size, 4, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.lines, 2 + 2);
	assert_int_equal(c.pages, 2);
	assert_int_equal(c.hugepages, 1);
	uint64_t *p = ranges_units(start, size, 4, 4096, &np);
	assert_int_equal(np, 1); /* pages 1 and 2, one interval */
	assert_int_equal(p[0], 1);
	assert_int_equal(p[1], 2);
	assert_true(units_contain(p, np, 2));
	assert_false(units_contain(p, np, 3));
	assert_false(units_contain(p, np, 0));
	free(p);
	/* an absurd size costs nothing and clamps instead of wrapping */
	uint64_t hs[] = { 0x1000, 0x10000000 }, hz[] = { 1ull << 55, UINT64_MAX };
	ranges_count(hs, hz, 2, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.pages, (size_t)(UINT64_MAX / 4096) - 1 + 1);
	ranges_count(start, size, 0, 64, 4096, 2u << 20, &c);
	assert_int_equal(c.lines + c.pages + c.hugepages, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_perf_report),
		cmocka_unit_test(test_perf_script),
		cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests_name("hotset", tests, NULL, NULL);
}
