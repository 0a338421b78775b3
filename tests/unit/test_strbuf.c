/* strbuf: growth, formatting, CSV quoting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static void test_addf_grows(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	assert_string_equal(sb.buf + sb.len - 4, "999,");
	strbuf_release(&sb);
}

static void test_csv_quoting(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_csv(&sb, "plain", ',');
	strbuf_addch(&sb, ',');
	strbuf_add_csv(&sb, "a,b", ',');
	strbuf_addch(&sb, ',');
	strbuf_add_csv(&sb, "say \"hi\"", ',');
	assert_string_equal(sb.buf, "plain,\"a,b\",\"say \"\"hi\"\"\"");
	strbuf_reset(&sb);
	/* perf stat -x takes a string: quoted only where it occurs whole */
	strbuf_add_csv_sep(&sb, "a;b", ";;");
	strbuf_add_csv_sep(&sb, "a;;b", ";;");
	strbuf_add_csv_sep(&sb, "a,b", "");
	assert_string_equal(sb.buf, "a;b\"a;;b\"a,b");
	strbuf_release(&sb);
}

static void test_detach_and_rtrim(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;

	strbuf_addstr(&sb, "text \n\t");
	strbuf_rtrim(&sb);
	char *s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "text");
	assert_int_equal(len, 4);
	assert_int_equal(sb.len, 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addf_grows),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_detach_and_rtrim),
	};
	return cmocka_run_group_tests_name("strbuf", tests, NULL, NULL);
}
