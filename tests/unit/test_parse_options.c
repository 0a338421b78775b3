/* util/parse_num and util/parse_options: the one set of edge-case rules for
 * numbers (empty, blanks, '+', trailing junk, overflow, negative), option
 * parsing through a table (values, .seen, callbacks, includes, the first
 * non-option, unknown and missing-value errors), and the usage lines and
 * completion list generated from the same table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/parse_options.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static void test_long(void **state)
{
	long v = 7;

	assert_int_equal(parse_long("12", 0, 100, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(parse_long("-3", -5, 5, &v), 0);
	assert_int_equal(v, -3);
	const char *bad[] = { "", " 1", "+1", "1x", "1 ", "0x10", "1.5", "x" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 7;
		assert_int_equal(parse_long(bad[i], 0, 100, &v), -EINVAL);
		assert_int_equal(v, 7); /* untouched on error */
		assert_null(strchr(lace_error_msg(), '\n'));
	}
	assert_int_equal(parse_long("-1", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_long("101", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_long("99999999999999999999", 0, LONG_MAX, &v), -ERANGE);
	assert_int_equal(parse_long(NULL, 0, 1, &v), -EINVAL);
}

static void test_ulong(void **state)
{
	unsigned long v = 0;

	assert_int_equal(parse_ulong("0x10", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(parse_ulong("42", &v), 0);
	assert_int_equal(v, 42);
	/* strtoul would take "-1" as ULONG_MAX */
	assert_int_equal(parse_ulong("-1", &v), -ERANGE);
	assert_int_equal(parse_ulong("", &v), -EINVAL);
	assert_int_equal(parse_ulong("99999999999999999999999", &v), -ERANGE);
}

static void test_u64_and_double(void **state)
{
	uint64_t u;
	double d;

	assert_int_equal(parse_u64("18446744073709551615", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(parse_u64("010", &u), 0);
	assert_int_equal(u, 10); /* decimal, never octal */
	assert_int_equal(parse_u64("0x10", &u), -EINVAL);
	assert_int_equal(parse_u64("18446744073709551616", &u), -ERANGE);
	assert_int_equal(parse_u64("-1", &u), -ERANGE);
	assert_int_equal(parse_u64("", &u), -EINVAL);
	assert_int_equal(parse_u64("1 ", &u), -EINVAL);
	assert_int_equal(parse_double("-0.5", &d), 0);
	assert_true(d == -0.5);
	assert_int_equal(parse_double("1e3", &d), 0);
	assert_true(d == 1000);
	assert_int_equal(parse_double("inf", &d), -EINVAL);
	assert_int_equal(parse_double("-inf", &d), -ERANGE);
	assert_int_equal(parse_double("1e999", &d), -ERANGE);
	assert_int_equal(parse_double("1.5x", &d), -EINVAL);
	assert_int_equal(parse_double(" 1", &d), -EINVAL);
	assert_int_equal(parse_double("+1", &d), -EINVAL);
}

static void test_size(void **state)
{
	uint64_t v = 0;

	assert_int_equal(parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("64M", &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(parse_size("2kB", &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(parse_size("1G", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(parse_size("", &v), -EINVAL);
	assert_int_equal(parse_size("1T", &v), -EINVAL);
	assert_int_equal(parse_size("-1", &v), -ERANGE);
	assert_int_equal(parse_size("99999999999999G", &v), -ERANGE); /* shift overflow */
}

static void test_seconds(void **state)
{
	double v = 0;

	assert_int_equal(parse_seconds("10", &v), 0);
	assert_true(v == 10);
	assert_int_equal(parse_seconds("500ms", &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(parse_seconds("2m", &v), 0);
	assert_true(v == 120);
	assert_int_equal(parse_seconds("1h", &v), 0);
	assert_true(v == 3600);
	const char *bad[] = { "", "-1", "inf", "nan", "1e999", "5x", " 5", "ms" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_true(parse_seconds(bad[i], &v) < 0);
}

static void test_percent(void **state)
{
	double v = 0;

	assert_int_equal(parse_percent("1", 0, 100, &v), 0);
	assert_true(v == 0.01);
	assert_int_equal(parse_percent("95%", 50, 100, &v), 0);
	assert_true(v == 0.95);
	assert_int_equal(parse_percent("0", 0, 100, &v), -ERANGE); /* bounds exclusive */
	assert_int_equal(parse_percent("100", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_percent("1%%", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_percent("", 0, 100, &v), -EINVAL);
}

/* the table under test */
static long repeat = 1;
static bool json, repeat_seen;
static const char *out;
static double timeout;
static int ncb;
static const char *cb_arg;

static int count_cb(const struct lace_option *opt, const char *arg)
{
	if (arg && !strcmp(arg, "bad"))
		return lace_error_set(EINVAL, "--event: 'bad' is no event");
	cb_arg = arg;
	(*(int *)opt->value)++;
	return 0;
}

static const struct lace_option extra[] = {
	OPT_SECONDS(0, "timeout", &timeout, "S", "kill a run after S seconds"),
	OPT_END(),
};

static const struct lace_option *extra_fn(void)
{
	return extra;
}

static const struct lace_option opts[] = {
	OPT_INTEGER('r', "repeat", &repeat, 1, 1000000, "N", "run N times (default 1)",
		    .seen = &repeat_seen),
	OPT_BOOLEAN(0, "json", &json, "one JSON object on stdout"),
	OPT_STRING('o', "output-file", &out, "FILE", "write the report to FILE"),
	OPT_CALLBACK('e', "event", &ncb, "LIST", "events, repeatable\n(default: a few)", count_cb),
	OPT_INCLUDE(extra_fn),
	OPT_STRING(0, "old", &out, "FILE", "old spelling", .flags = LACE_OPTION_HIDDEN),
	OPT_END(),
};

static int parse(unsigned flags, ...)
{
	static char *argv[16];
	va_list ap;
	int argc = 0;

	argv[argc++] = "cmd";
	va_start(ap, flags);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	repeat = 1, json = repeat_seen = false, out = NULL, timeout = 0, ncb = 0;
	return parse_options(argc, argv, opts, flags);
}

static void test_parse(void **state)
{
	assert_int_equal(parse(0, "-r", "5", "--json", "-e", "a", "--event=b", "--timeout", "2m",
			       "--output-file", "f", NULL), 11);
	assert_int_equal(repeat, 5);
	assert_true(repeat_seen && json);
	assert_string_equal(out, "f");
	assert_int_equal(ncb, 2);
	assert_string_equal(cb_arg, "b");
	assert_true(timeout == 120);

	/* stop at the command: its own options stay its own */
	assert_int_equal(parse(PARSE_OPTIONS_STOP_AT_NON_OPTION, "-r3", "prog", "-r", "x", NULL), 2);
	assert_int_equal(repeat, 3);
	/* hidden options are parsed */
	assert_int_equal(parse(0, "--old", "g", NULL), 3);
	assert_string_equal(out, "g");
	/* abbreviations, as getopt_long */
	assert_int_equal(parse(0, "--rep", "4", NULL), 3);
	assert_int_equal(repeat, 4);
}

static void test_parse_errors(void **state)
{
	assert_int_equal(parse(0, "-r", "", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "--repeat needs a whole number >= 1, not ''");
	assert_false(repeat_seen);
	assert_int_equal(parse(0, "-r", "0", NULL), -EINVAL);
	assert_int_equal(parse(0, "-r", "3x", NULL), -EINVAL);
	assert_int_equal(parse(0, "-r", "-2", NULL), -EINVAL);
	assert_int_equal(parse(0, "--timeout", "-1", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "--timeout needs seconds (10, 1.5, 500ms, 2m), not '-1'");
	assert_int_equal(parse(0, "--bogus", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "unknown option '--bogus'");
	assert_int_equal(parse(0, "-q", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "unknown option '-q'");
	assert_int_equal(parse(0, "-r", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "option '-r' needs a value");
	assert_int_equal(parse(0, "-e", "bad", NULL), -EINVAL);
	assert_string_equal(lace_error_msg(), "--event: 'bad' is no event");
}

static void test_string_list(void **state)
{
	struct strvec sv = STRVEC_INIT;
	const struct lace_option o[] = {
		OPT_STRING_LIST('w', "workload", &sv, "CMD", "repeatable"),
		OPT_END(),
	};
	char *argv[] = { "cmd", "-w", "a", "--workload=b c", "--workload", "", NULL };

	assert_int_equal(parse_options(6, argv, o, 0), 6);
	assert_int_equal(sv.nr, 3);
	assert_string_equal(sv.v[0], "a");
	assert_string_equal(sv.v[1], "b c");
	assert_string_equal(sv.v[2], "");
	strvec_clear(&sv);
}

static void test_usage_and_list(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	parse_options_usage(&sb, opts);
	assert_string_equal(sb.buf,
		"  -r, --repeat N          run N times (default 1)\n"
		"      --json              one JSON object on stdout\n"
		"  -o, --output-file FILE  write the report to FILE\n"
		"  -e, --event LIST        events, repeatable\n"
		"                          (default: a few)\n"
		"      --timeout S         kill a run after S seconds\n");
	strbuf_reset(&sb);
	parse_options_list(&sb, opts);
	assert_non_null(strstr(sb.buf, "-r\tN\t\n--repeat\tN\t\n--json\t\t\n"));
	assert_non_null(strstr(sb.buf, "--timeout\tS\t\n"));
	assert_null(strstr(sb.buf, "--old"));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_ulong),
		cmocka_unit_test(test_u64_and_double),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_string_list),
		cmocka_unit_test(test_usage_and_list),
	};
	return cmocka_run_group_tests_name("parse_options", tests, NULL, NULL);
}
