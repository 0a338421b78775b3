/* Tracepoints: disabled sites are a nop and count nothing; enabling by API,
 * by list and by LACE_TRACE; hit counters; the ring buffer keeps the last
 * records in order and prints them with the event's format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define LACE_CREATE_TRACE_POINTS
#include "tests/unit/test_tracepoint_events.h"
#include "util/error.h"

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

__attribute__((noinline)) static void fire_one(int a, unsigned long b)
{
	trace_test_one(a, b);
}

__attribute__((noinline)) static void fire_two(int x)
{
	trace_test_two(x);
}

static const uint8_t *site_of(struct lace_tracepoint *tp)
{
	for (const struct lace_jump_entry *e = jump_table_start(); e < jump_table_stop(); e++)
		if (jump_entry_key(e) == &tp->key.key)
			return (const uint8_t *)jump_entry_code(e);
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	for (struct lace_tracepoint *const *p = lace_trace_begin(); p < lace_trace_end(); p++) {
		lace_trace_disable((*p)->name);
		lace_trace_ring_alloc(*p, 0);
		lace_trace_reset(*p);
	}
	return 0;
}

static void test_registry(void **state)
{
	(void)state;
	assert_int_equal(lace_trace_end() - lace_trace_begin(), 2);
	assert_non_null(lace_trace_find("test_one"));
	assert_non_null(lace_trace_find("test_two"));
	assert_null(lace_trace_find("test_three"));
	assert_int_equal(lace_trace_enable("test_three"), -2);
	assert_int_equal(lace_trace_hits("test_three"), -1UL);
}

static void test_disabled_is_nop(void **state)
{
	struct lace_tracepoint *tp = lace_trace_find("test_one");
	const uint8_t *site = site_of(tp);

	(void)state;
	assert_non_null(site);
	assert_memory_equal(site, nop5, 5);
	fire_one(1, 2);
	assert_int_equal(lace_trace_hits("test_one"), 0);
	assert_int_equal(lace_trace_enable("test_one"), 0);
	assert_int_equal(site[0], 0xe9);
	fire_one(1, 2);
	fire_one(3, 4);
	fire_two(5); /* still disabled */
	assert_int_equal(lace_trace_hits("test_one"), 2);
	assert_int_equal(lace_trace_hits("test_two"), 0);
	assert_int_equal(lace_trace_disable("test_one"), 0);
	assert_memory_equal(site, nop5, 5);
	fire_one(1, 2);
	assert_int_equal(lace_trace_hits("test_one"), 2);
}

static void test_enable_list_and_env(void **state)
{
	(void)state;
	assert_int_equal(lace_trace_enable_list("test_two, test_one"), 2);
	fire_one(0, 0);
	fire_two(0);
	assert_int_equal(lace_trace_hits("test_one"), 1);
	assert_int_equal(lace_trace_hits("test_two"), 1);
	setup(NULL);
	/* an unknown name stops the list and is named */
	assert_int_equal(lace_trace_enable_list("test_one,nosuch"), -2);
	assert_non_null(strstr(lace_error_msg(), "nosuch"));
	setup(NULL);
	setenv("LACE_TRACE", "all", 1);
	assert_int_equal(lace_trace_init_env(), 2);
	fire_two(7);
	assert_int_equal(lace_trace_hits("test_two"), 1);
	setup(NULL);
	setenv("LACE_TRACE", "test_two", 1);
	assert_int_equal(lace_trace_init_env(), 1);
	fire_one(1, 1);
	fire_two(1);
	assert_int_equal(lace_trace_hits("test_one"), 0);
	assert_int_equal(lace_trace_hits("test_two"), 1);
	unsetenv("LACE_TRACE");
	assert_int_equal(lace_trace_init_env(), 0);
}

static void test_ring(void **state)
{
	struct lace_tracepoint *tp = lace_trace_find("test_one");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(lace_trace_ring_alloc(tp, 3), 0); /* rounded up to 4 */
	assert_int_equal(lace_trace_enable("test_one"), 0);
	for (int i = 0; i < 6; i++)
		fire_one(i, (unsigned long)i * 10);
	f = open_memstream(&buf, &len);
	assert_int_equal(lace_trace_ring_dump(tp, f), 4);
	fclose(f);
	/* the last four, oldest first, in TP_printk's format */
	assert_string_equal(buf, "test_one: a=2 b=20\ntest_one: a=3 b=30\n"
				 "test_one: a=4 b=40\ntest_one: a=5 b=50\n");
	free(buf);
	assert_int_equal(lace_trace_hits("test_one"), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_registry, setup),
		cmocka_unit_test_setup(test_disabled_is_nop, setup),
		cmocka_unit_test_setup(test_enable_list_and_env, setup),
		cmocka_unit_test_setup(test_ring, setup),
	};
	return cmocka_run_group_tests_name("tracepoint", tests, NULL, NULL);
}
