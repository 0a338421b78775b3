/* measure/layout_noise: --layout-noise PCT and EVENT=PCT (split at the
 * last '=', since perf's own event syntax has '=' in it), the last value
 * given wins, bad values are refused with a message, the spread of an
 * event falls back to the one for every event, and the header round
 * trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "measure/layout_noise.h"
#include "util/array.h"
#include "util/error.h"

#define CLOSE(a, b) assert_true(fabs((a) - (b)) < 1e-12)

static void test_parse(void **state)
{
	struct layout_noise ln = { 0 };
	struct strbuf sb = STRBUF_INIT;

	assert_false(layout_noise_any(&ln));
	CLOSE(layout_noise_of(&ln, "cycles"), 0);
	assert_int_equal(layout_noise_parse(&ln, "L1-icache-load-misses=2.5"), 0);
	assert_int_equal(layout_noise_parse(&ln, "cpu/event=0x80,umask=0x2/=4%"), 0);
	assert_true(layout_noise_any(&ln));
	CLOSE(layout_noise_of(&ln, "L1-icache-load-misses"), 0.025);
	CLOSE(layout_noise_of(&ln, "cpu/event=0x80,umask=0x2/"), 0.04);
	CLOSE(layout_noise_of(&ln, "instructions"), 0); /* not named: none known */
	assert_int_equal(layout_noise_parse(&ln, "1"), 0);
	CLOSE(layout_noise_of(&ln, "instructions"), 0.01);
	assert_int_equal(layout_noise_parse(&ln, "L1-icache-load-misses=2.8"), 0);
	CLOSE(layout_noise_of(&ln, "L1-icache-load-misses"), 0.028);
	assert_int_equal(ln.n, 2);
	layout_noise_describe(&ln, &sb);
	assert_string_equal(sb.buf, "L1-icache-load-misses 2.8%, cpu/event=0x80,umask=0x2/ 4%, others 1%");
	strbuf_release(&sb);
	layout_noise_release(&ln);

	static const char *const bad[] = { "0", "-1", "100", "abc", "", "=2", "cycles=", "cycles=x" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_not_equal(layout_noise_parse(&ln, bad[i]), 0);
		assert_non_null(strstr(lace_error_msg(), "--layout-noise"));
	}
	assert_false(layout_noise_any(&ln));
}

static void test_json(void **state)
{
	struct layout_noise ln = { 0 }, back;
	json_t *j = layout_noise_json(&ln);

	assert_true(json_is_null(j));
	json_decref(j);
	layout_noise_parse(&ln, "2.5");
	layout_noise_parse(&ln, "iTLB-load-misses=4.5");
	j = layout_noise_json(&ln);
	layout_noise_from_json(&back, j);
	CLOSE(back.all, 0.025);
	CLOSE(layout_noise_of(&back, "iTLB-load-misses"), 0.045);
	json_decref(j);
	layout_noise_release(&back);
	layout_noise_release(&ln);
	/* a bare number is the spread of every event */
	j = json_real(0.03);
	layout_noise_from_json(&back, j);
	CLOSE(layout_noise_of(&back, "cycles"), 0.03);
	json_decref(j);
	layout_noise_release(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
