/* pipeline/placement.c's cells: a replay's rows read by name (lace ab
 * --same-execution, the kernel study) and counts given as they are (the
 * model study's reading 4) make the same cells d = ln(B/A), with the same
 * rule for a count of 0 on one side; a draw without its pair is refused. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/placement.h"
#include "util/error.h"

static json_t *row(const char *name, double l1, double tlb)
{
	return json_pack("{s:s,s:{s:f,s:f}}", "layout", name, "counts", "L1-icache-load-misses", l1,
			 "iTLB-load-misses", tlb);
}

static void spec_init(struct placement_spec *s)
{
	placement_spec_init(s);
	strvec_push(&s->events, "L1-icache-load-misses");
	strvec_push(&s->events, "iTLB-load-misses");
}

static void test_rows_and_counts_agree(void **state)
{
	struct placement_spec s;
	struct placement_cells byname, bycount;
	json_t *rep = json_pack("{s:[o,o,o,o,o,o]}", "layouts", row("recorded", 100, 10), row("b", 101, 10),
				row("virtual-1", 200, 0), row("b@virtual-1", 220, 3),
				row("virtual-2", 300, 7), row("b@virtual-2", 270, 7));
	const double a[2][2] = { { 200, 0 }, { 300, 7 } }, b[2][2] = { { 220, 3 }, { 270, 7 } };

	(void)state;
	spec_init(&s);
	placement_cells_init(&byname, 2);
	placement_cells_init(&bycount, 2);
	assert_int_equal(placement_cells_add(&byname, &s, 3, false, rep), 0);
	for (int k = 0; k < 2; k++)
		placement_cells_add_counts(&bycount, 3, a[k], b[k]);
	assert_int_equal(byname.n, 2);
	assert_int_equal(bycount.n, 2);
	for (size_t v = 0; v < 2; v++) {
		for (size_t i = 0; i < 2; i++)
			assert_true(byname.d[v][i] == bycount.d[v][i]);
		assert_int_equal(byname.equal[v], bycount.equal[v]);
		assert_true(byname.a_sum[v] == bycount.a_sum[v] && byname.b_sum[v] == bycount.b_sum[v]);
	}
	assert_int_equal(byname.exec[1], 3);
	assert_true(fabs(bycount.d[0][0] - log(1.1)) < 1e-15);
	/* 0 against 3: ln(4/1); 7 against 7: equal, 0 */
	assert_true(fabs(bycount.d[1][0] - log(4.0)) < 1e-15);
	assert_true(bycount.d[1][1] == 0);
	assert_int_equal(bycount.equal[1], 1);
	placement_cells_release(&byname);
	placement_cells_release(&bycount);

	/* a draw of the recorded build without the other build's: refused */
	json_array_remove(json_object_get(rep, "layouts"), 5);
	placement_cells_init(&byname, 2);
	assert_int_equal(placement_cells_add(&byname, &s, 0, false, rep), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "without its pair"));
	placement_cells_release(&byname);
	placement_spec_release(&s);
	json_decref(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_counts_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
