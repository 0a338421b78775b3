/* measure/perf_import.c and kernel_id.c: perf stat -x and -j output (per
 * run or -r N summaries) read into per-event values; the build-id from an
 * ELF note stream; and stats_ratio_unpaired on known means. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "measure/kernel_id.h"
#include "measure/perf_import.h"
#include "measure/stats/stats.h"
#include "util/array.h"
#include "util/elf_note.h"

static int parse(struct lace_import *im, const char *text, size_t runs)
{
	return import_parse(im, "t", text, strlen(text), NULL, runs);
}

static void test_csv_runs(void **state)
{
	struct lace_import im;
	const char *text = "# started on Thu Dec  3 10:25:14 2026\n\n"
			   "1.73,msec,task-clock,1726055,100.00,0.557,CPUs utilized\n"
			   "48,,page-faults,1726055,100.00,27.809,K/sec\n"
			   "<not supported>,,cycles,0,100.00,,\n"
			   "# started on Thu Dec  3 10:25:15 2026\n\n"
			   "1.93,msec,task-clock,1926055,100.00,0.557,CPUs utilized\n"
			   "50,,page-faults,1926055,100.00,27.809,K/sec\n"
			   "<not supported>,,cycles,0,100.00,,\n";

	(void)state;
	assert_int_equal(parse(&im, text, 0), 0);
	assert_string_equal(im.format, "perf stat -x");
	assert_int_equal(im.nevents, 3);
	const struct lace_import_event *tc = import_find(&im, "task-clock");
	assert_non_null(tc);
	assert_string_equal(tc->unit, "msec");
	assert_false(tc->summary);
	assert_int_equal(tc->n, 2);
	assert_true(fabs(tc->values[1] - 1.93) < 1e-12);
	assert_int_equal(import_find(&im, "page-faults")->n, 2);
	assert_int_equal(import_find(&im, "cycles")->n, 0);
	assert_int_equal(import_find(&im, "cycles")->not_supported, 2);
	import_release(&im);
}

static void test_csv_summary(void **state)
{
	struct lace_import im;
	const char *text = "3.34,msec,task-clock,3.86%,3336793,100.00,0.354,CPUs utilized\n"
			   "48,,page-faults,1.20%,3336793,100.00,14.848,K/sec\n";

	(void)state;
	assert_int_equal(parse(&im, text, 10), 0);
	const struct lace_import_event *tc = import_find(&im, "task-clock");
	assert_true(tc->summary);
	assert_true(fabs(tc->mean - 3.34) < 1e-12);
	assert_true(fabs(tc->rel_sem - 0.0386) < 1e-12);
	import_release(&im);
	/* N unknown: refused, not guessed */
	assert_int_not_equal(parse(&im, text, 0), 0);
	import_release(&im);
}

static void test_json(void **state)
{
	struct lace_import im;
	const char *text =
		"{\"counter-value\" : \"2.916702\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
		"\"variance\" : 8.95, \"event-runtime\" : 2916702, \"pcnt-running\" : 100.00, "
		"\"metric-value\" : 0.168064, \"metric-unit\" : \"CPUs utilized\"}\n"
		"{\"counter-value\" : \"<not counted>\", \"unit\" : \"\", \"event\" : \"cycles\", "
		"\"event-runtime\" : 0, \"pcnt-running\" : 0.00, \"metric-value\" : 0, \"metric-unit\" : \"\"}\n";

	(void)state;
	assert_int_equal(parse(&im, text, 5), 0);
	assert_string_equal(im.format, "perf stat -j");
	const struct lace_import_event *tc = import_find(&im, "task-clock");
	assert_true(tc->summary);
	assert_true(fabs(tc->rel_sem - 0.0895) < 1e-12);
	assert_int_equal(import_find(&im, "cycles")->not_supported, 1);
	import_release(&im);
}

static void test_bad(void **state)
{
	struct lace_import im;
	const char *bad[] = { "", "# only a comment\n", "hello\n", "{\"counter-value\" : \n",
			      "abc,,page-faults,1,100.00,,\n",
			      /* a summary and then a run of the same event */
			      "1,,page-faults,1.00%,1,100.00,,\n1,,page-faults,1,100.00,,\n",
			      "1,,page-faults,1,100.00,,\n{\"event\" : \"x\", \"counter-value\" : \"1\"}\n" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_not_equal(parse(&im, bad[i], 10), 0);
		import_release(&im);
	}
}

static void test_build_id(void **state)
{
	/* a note this one's type, then the build-id note */
	unsigned char n[] = { 4, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 'X', 'e', 'n', 0, 1, 2, 3, 4,
			      4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xa3, 0xe4, 0xcd, 0x60 };
	char hex[81];

	(void)state;
	assert_true(elf_note_build_id(n, sizeof(n), hex, sizeof(hex)));
	assert_string_equal(hex, "a3e4cd60");
	assert_false(elf_note_build_id(n, 20, hex, sizeof(hex)));
	assert_false(elf_note_build_id(n, sizeof(n) - 2, hex, sizeof(hex)));
}

static void test_ratio_unpaired(void **state)
{
	struct lace_side_mean a = { 10, 100, 1, 9 }, b = { 10, 120, 1.2, 9 };
	struct lace_ratio r;

	(void)state;
	assert_int_equal(stats_ratio_unpaired(&a, &b, 0.95, 0.01, &r), 0);
	assert_true(fabs(r.ratio - 1.2) < 1e-12);
	assert_true(r.ci_low > 1.01 && r.ci_high > r.ratio);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_SLOWER);
	b.mean = 100.2;
	assert_int_equal(stats_ratio_unpaired(&a, &b, 0.95, 0.01, &r), 0);
	assert_int_not_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_SLOWER);
	/* no spread: exact, equal counts equivalent */
	a.sem = b.sem = 0;
	b.mean = 100;
	assert_int_equal(stats_ratio_unpaired(&a, &b, 0.95, 0.01, &r), 0);
	assert_int_equal(stats_verdict(&r, r.p, 0.95, 0.01), LACE_VERDICT_EQUIVALENT);
	b.mean = 0;
	assert_int_not_equal(stats_ratio_unpaired(&a, &b, 0.95, 0.01, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_runs),       cmocka_unit_test(test_csv_summary),
		cmocka_unit_test(test_json),           cmocka_unit_test(test_bad),
		cmocka_unit_test(test_build_id),       cmocka_unit_test(test_ratio_unpaired),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
