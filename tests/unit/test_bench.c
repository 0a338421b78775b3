/* Unit tests of the workloads' building blocks (bench/): the random
 * streams, the Zipf sampler, the shared counts and option parsing. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/counts.h"
#include "bench/opts.h"
#include "bench/rng.h"
#include "bench/zipf.h"
#include "util/array.h"

static void test_rng_streams(void **state)
{
	struct rng a, b, c;
	int differ = 0;

	(void)state;
	rng_init(&a, 42, 7);
	rng_init(&b, 42, 7);
	rng_init(&c, 42, 8);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rng_next(&a);

		assert_int_equal(x, rng_next(&b));
		differ += x != rng_next(&c);
	}
	assert_true(differ > 990);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = rng_below(&a, 13);
		double u = rng_unit(&a);

		assert_true(v < 13);
		assert_true(u >= 0 && u < 1);
	}
}

static void test_zipf_probabilities(void **state)
{
	struct zipf z = { 0 };
	double sum = 0;
	char *seen;

	(void)state;
	assert_int_equal(zipf_init(&z, 100, 1.0, 3), 0);
	for (unsigned r = 0; r < 100; r++) {
		sum += zipf_prob(&z, r);
		if (r)
			assert_true(zipf_prob(&z, r) <= zipf_prob(&z, r - 1));
	}
	assert_true(fabs(sum - 1) < 1e-12);
	/* Zipf(1): P(rank 1) / P(rank 2) = 2 */
	assert_true(fabs(zipf_prob(&z, 0) / zipf_prob(&z, 1) - 2) < 1e-9);
	/* item[] is a permutation */
	seen = calloc(100, 1);
	for (unsigned r = 0; r < 100; r++) {
		assert_true(z.item[r] < 100);
		assert_false(seen[z.item[r]]);
		seen[z.item[r]] = 1;
	}
	free(seen);
	assert_int_equal(zipf_ranks_for_mass(&z, 1.0), 100);
	assert_true(zipf_ranks_for_mass(&z, 0.5) < 20);
	zipf_free(&z);

	assert_int_equal(zipf_init(&z, 0, 1.0, 1), -EINVAL);
	assert_int_equal(zipf_init(&z, 10, -1, 1), -EINVAL);
	assert_int_equal(zipf_init(&z, 10, NAN, 1), -EINVAL);
}

/* The alias sampler draws each item with its Zipf probability: counts of
 * 2,000,000 draws within 5 standard deviations for every item. */
static void test_zipf_sampling(void **state)
{
	const unsigned n = 64, draws = 2000000;
	double skews[] = { 0.0, 0.8, 1.0, 1.5 };

	(void)state;
	for (unsigned k = 0; k < ARRAY_SIZE(skews); k++) {
		struct zipf z = { 0 };
		unsigned *hits = calloc(n, sizeof(*hits)), *rank_of = calloc(n, sizeof(*rank_of));
		struct rng r;

		assert_int_equal(zipf_init(&z, n, skews[k], 11), 0);
		for (unsigned i = 0; i < n; i++)
			rank_of[z.item[i]] = i;
		rng_init(&r, 5, 0);
		for (unsigned d = 0; d < draws; d++)
			hits[zipf_next(&z, &r)]++;
		for (unsigned item = 0; item < n; item++) {
			double p = zipf_prob(&z, rank_of[item]);
			double mean = p * draws, sd = sqrt(draws * p * (1 - p));

			if (fabs(hits[item] - mean) > 5 * sd + 1)
				fail_msg("skew %g item %u: %u draws, expected %.0f +- %.0f",
					 skews[k], item, hits[item], mean, sd);
		}
		free(hits);
		free(rank_of);
		zipf_free(&z);
	}
}

static void test_zipf_deterministic(void **state)
{
	struct zipf a = { 0 }, b = { 0 };
	struct rng ra, rb;

	(void)state;
	assert_int_equal(zipf_init(&a, 500, 1.0, 9), 0);
	assert_int_equal(zipf_init(&b, 500, 1.0, 9), 0);
	rng_init(&ra, 1, 2);
	rng_init(&rb, 1, 2);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(zipf_next(&a, &ra), zipf_next(&b, &rb));
	zipf_free(&a);
	zipf_free(&b);
}

/* Children add to the shared block; the parent sees the sum. */
static void test_counts_across_fork(void **state)
{
	static const char *const names[] = { "alpha", "beta", NULL };
	struct counts c;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(counts_init(&c, names), 0);
	assert_int_equal(counts_index(&c, "beta"), 1);
	assert_int_equal(counts_index(&c, "gamma"), -1);
	for (int i = 0; i < 4; i++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			counts_add(&c, 0, 10);
			counts_add(&c, 1, 1);
			_exit(0);
		}
	}
	for (int i = 0; i < 4; i++) {
		int status;

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	counts_add(&c, 1, 100);
	assert_int_equal(counts_get(&c, 0), 40);
	assert_int_equal(counts_get(&c, 1), 104);
	counts_format(&c, "demo", "seed=3", &sb);
	assert_non_null(strstr(sb.buf, "\nlace-counts: workload=demo seed=3 alpha=40 beta=104\n"));
	assert_non_null(strstr(sb.buf, "  alpha 40\n"));
	strbuf_release(&sb);
	counts_free(&c);
}

static void test_opts_numbers(void **state)
{
	uint64_t v;
	double d;

	(void)state;
	assert_int_equal(opts_uint("12", 1, 100, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(opts_uint("0x10", 1, 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(opts_uint("0", 1, 100, &v), -1);
	assert_int_equal(opts_uint("101", 1, 100, &v), -1);
	assert_int_equal(opts_uint("-1", 0, 100, &v), -1);
	assert_int_equal(opts_uint("7x", 0, 100, &v), -1);
	assert_int_equal(opts_uint("", 0, 100, &v), -1);
	assert_int_equal(opts_uint("99999999999999999999999", 0, UINT64_MAX, &v), -1);
	assert_int_equal(opts_double("0.8", 0, 10, &d), 0);
	assert_true(d == 0.8);
	assert_int_equal(opts_double("nan", 0, 10, &d), -1);
	assert_int_equal(opts_double("inf", 0, 10, &d), -1);
	assert_int_equal(opts_double("11", 0, 10, &d), -1);
	assert_int_equal(opts_double("1e", 0, 10, &d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_streams),
		cmocka_unit_test(test_zipf_probabilities),
		cmocka_unit_test(test_zipf_sampling),
		cmocka_unit_test(test_zipf_deterministic),
		cmocka_unit_test(test_counts_across_fork),
		cmocka_unit_test(test_opts_numbers),
	};

	return cmocka_run_group_tests_name("bench", tests, NULL, NULL);
}
