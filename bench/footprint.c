#include <errno.h>

#include "bench/footprint.h"
#include "bench/zipf.h"

static struct zipf fp_zipf;
static unsigned fp_depth;

int footprint_init(unsigned depth, double skew, uint64_t seed)
{
	int err;

	zipf_free(&fp_zipf);
	fp_depth = depth;
	if (!lace_gen_handler_count)
		return -EINVAL;
	err = zipf_init(&fp_zipf, lace_gen_handler_count, skew, seed);
	if (err)
		fp_depth = 0;
	return err;
}

void footprint_free(void)
{
	zipf_free(&fp_zipf);
	fp_depth = 0;
}

void footprint_worker_init(struct footprint_worker *w, uint64_t seed, uint64_t stream)
{
	rng_init(&w->rng, seed, stream);
	for (unsigned i = 0; i < 4; i++)
		w->st.r[i] = rng_next(&w->rng);
	w->calls = 0;
	w->sum = 0;
}

void footprint_run(struct footprint_worker *w, uint64_t arg)
{
	for (unsigned i = 0; i < fp_depth; i++) {
		unsigned h = zipf_next(&fp_zipf, &w->rng);
		/* The argument picks which conditional blocks run: random per
		 * call, from the worker's stream, so deterministic. */
		w->sum += lace_gen_handlers[h](&w->st, rng_next(&w->rng) ^ arg);
		w->calls++;
	}
}

void footprint_print_hot(FILE *f, double mass)
{
	unsigned n = zipf_ranks_for_mass(&fp_zipf, mass);

	for (unsigned r = 0; r < n; r++)
		fprintf(f, "%s %.6f\n", lace_gen_handler_names[fp_zipf.item[r]],
			zipf_prob(&fp_zipf, r));
}

const char *footprint_config(void)
{
	return lace_gen_config;
}

unsigned footprint_depth(void)
{
	return fp_depth;
}
