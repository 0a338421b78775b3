/* util/strvec: pushes copy and keep the array NULL-terminated, splitting at
 * blanks, formatted pushes longer than any fixed buffer, clear and reuse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"

static void test_empty(void **state)
{
	struct strvec sv = STRVEC_INIT;

	assert_int_equal(sv.nr, 0);
	assert_null(sv.v[0]);
	assert_int_equal(strvec_find(&sv, "x"), -1);
	strvec_clear(&sv);
	assert_null(sv.v[0]);
}

static void test_push_copies(void **state)
{
	struct strvec sv = STRVEC_INIT;
	char word[] = "gcc";

	strvec_push(&sv, word);
	word[0] = 'x';
	strvec_pushf(&sv, "-I%s", "/src");
	assert_int_equal(sv.nr, 2);
	assert_string_equal(sv.v[0], "gcc");
	assert_string_equal(sv.v[1], "-I/src");
	assert_null(sv.v[2]);
	assert_int_equal(strvec_find(&sv, "-I/src"), 1);
	strvec_clear(&sv);
	assert_int_equal(sv.nr, 0);
	strvec_push(&sv, "again");
	assert_string_equal(sv.v[0], "again");
	strvec_clear(&sv);
}

static void test_split(void **state)
{
	struct strvec sv = STRVEC_INIT;

	strvec_split(&sv, NULL);
	strvec_split(&sv, "");
	strvec_split(&sv, "  \t ");
	assert_int_equal(sv.nr, 0);
	strvec_split(&sv, " -O2\t-g  -DX=1 ");
	strvec_split(&sv, "-lm");
	assert_int_equal(sv.nr, 4);
	assert_string_equal(sv.v[0], "-O2");
	assert_string_equal(sv.v[1], "-g");
	assert_string_equal(sv.v[2], "-DX=1");
	assert_string_equal(sv.v[3], "-lm");
	assert_null(sv.v[4]);
	strvec_clear(&sv);
}

/* no fixed buffers: a 100 KB argument arrives whole */
static void test_long_and_many(void **state)
{
	struct strvec sv = STRVEC_INIT, copy = STRVEC_INIT;
	size_t n = 100000;
	char *big = malloc(n + 1);

	assert_non_null(big);
	memset(big, 'p', n);
	big[n] = 0;
	strvec_pushf(&sv, "-ffile-prefix-map=%s=.", big);
	assert_int_equal(strlen(sv.v[0]), n + strlen("-ffile-prefix-map==."));
	for (int i = 0; i < 1000; i++)
		strvec_pushf(&sv, "%d", i);
	assert_int_equal(sv.nr, 1001);
	assert_string_equal(sv.v[1000], "999");
	strvec_pushv(&copy, sv.v);
	assert_int_equal(copy.nr, 1001);
	assert_string_equal(copy.v[0], sv.v[0]);
	assert_ptr_not_equal(copy.v[0], sv.v[0]);
	free(big);
	strvec_clear(&sv);
	strvec_clear(&copy);
}

/* options go before "--"; without one they are appended; many at once;
 * the array stays NULL-terminated */
static void test_insert_before(void **state)
{
	(void)state;
	struct strvec v = STRVEC_INIT;

	strvec_pushv(&v, (const char *[]){ "stat", "-e", "x", "--", "prog", "--", "arg", NULL });
	strvec_insert_before(&v, "--", (const char *const[]){ "--record", "f", NULL });
	assert_int_equal(v.nr, 9);
	const char *want[] = { "stat", "-e", "x", "--record", "f", "--", "prog", "--", "arg" };
	for (size_t i = 0; i < v.nr; i++)
		assert_string_equal(v.v[i], want[i]);
	assert_null(v.v[v.nr]);
	strvec_clear(&v);

	strvec_pushv(&v, (const char *[]){ "a", NULL });
	strvec_insert_before(&v, "--", (const char *const[]){ "b", "c", NULL });
	assert_int_equal(v.nr, 3);
	assert_string_equal(v.v[1], "b");
	assert_string_equal(v.v[2], "c");
	assert_null(v.v[3]);
	strvec_insert_before(&v, "a", (const char *const[]){ "0", NULL });
	assert_string_equal(v.v[0], "0");
	assert_string_equal(v.v[1], "a");
	strvec_insert_before(&v, "a", (const char *const[]){ NULL });
	assert_int_equal(v.nr, 4);
	strvec_clear(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_push_copies),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_long_and_many),
		cmocka_unit_test(test_insert_before),
	};
	return cmocka_run_group_tests_name("strvec", tests, NULL, NULL);
}
