/* randaccess: random page accesses under hash-table pressure.
 *
 * The shape of random_access_bench (from the hash-fault tracepoint review,
 * 1435.98 -> 1435.29 MB/s): accesses to uniformly random pages of a region
 * larger than the hashed page table covers, with a fixed seed, optionally
 * loads only.  Each access translates through the hash MMU model
 * (hashmmu_touch: HPT hit, or hash fault through the entry code with an
 * eviction from a full group) and then loads, or loads and stores, one
 * 8-byte word of a real 64-byte line standing for the page, so the data
 * side costs something too without needing gigabytes of memory.
 *
 * MB/s counts one 64-byte line per access: accesses x 64 / seconds / 1e6. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/counts.h"
#include "bench/mmuctx.h"
#include "bench/opts.h"
#include "bench/rng.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "measure/lace_window.h"

static const char usage[] =
	"usage: randaccess [options]\n"
	"Random page accesses over a region larger than the hashed page table\n"
	"covers, through the hash MMU model; reports MB/s and the model's counts.\n"
	"  -n, --pages=N          pages in the region (default: twice the HPTEs the\n"
	"                         table holds, so it cannot cover the region)\n"
	"  -a, --accesses=N       random accesses (default 1000000)\n"
	"  -L, --load-only        loads only (default: load, then store)\n"
	"      --seed=N           seed of the access sequence and of the model's\n"
	"                         eviction choices (default 1)\n"
	MMUCTX_USAGE
	"  -h, --help             this text\n"
	"output: readable counts, `MB/s: N` (64-byte line per access), then one\n"
	"line `lace-counts: workload=randaccess key=value ...` (deterministic).\n"
	"Exit status: 0 ok, 1 model failure, 2 invalid arguments.\n";

enum { OPT_SEED = 256, OPT_HTAB, OPT_PSIZE, OPT_OLD, OPT_YOUNG };

/* Model address of the region: 512 GiB, segment aligned. */
#define RANDACCESS_BASE 0x8000000000ULL
#define LINE_WORDS 8

enum { C_PAGES, C_ACCESSES, C_CHECKSUM, C_MODEL_ERRORS, C_MODEL };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pages", required_argument, NULL, 'n' },
		{ "accesses", required_argument, NULL, 'a' },
		{ "load-only", no_argument, NULL, 'L' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "htab-kib", required_argument, NULL, OPT_HTAB },
		{ "page-size", required_argument, NULL, OPT_PSIZE },
		{ "old", no_argument, NULL, OPT_OLD },
		{ "young", no_argument, NULL, OPT_YOUNG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "randaccess";
	const char *names[C_MODEL + MMUCTX_NCOUNTS + 1] = {
		"pages", "accesses", "checksum", "model_errors",
	};
	struct mmuctx_opts mo = MMUCTX_OPTS_DEFAULT;
	uint64_t pages = 0, accesses = 1000000, seed = 1, errors = 0, sum = 0;
	uint64_t page_bytes, len, *lines;
	bool load_only = false;
	struct hashmmu_mm *mm;
	struct counts counts;
	struct strbuf out = STRBUF_INIT, extra = STRBUF_INIT;
	struct timespec t0, t1;
	struct rng r;
	double secs;
	int c;

	while ((c = getopt_long(argc, argv, ":n:a:Lh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (opts_uint(optarg, 1, 1ULL << 24, &pages))
				opts_die(prog, usage, "--pages needs an integer in 1..16777216, not '%s'", optarg);
			break;
		case 'a':
			if (opts_uint(optarg, 1, 1ULL << 40, &accesses))
				opts_die(prog, usage, "--accesses needs an integer in 1..2^40, not '%s'", optarg);
			break;
		case 'L': load_only = true; break;
		case OPT_SEED:
			if (opts_uint(optarg, 0, UINT64_MAX, &seed))
				opts_die(prog, usage, "--seed needs an unsigned integer, not '%s'", optarg);
			break;
		case OPT_HTAB:
			if (mmuctx_parse_htab(optarg, &mo.htab_kib))
				opts_die(prog, usage, "--htab-kib needs a power of two >= 256, not '%s'", optarg);
			break;
		case OPT_PSIZE:
			if (mmuctx_parse_psize(optarg, &mo.psize))
				opts_die(prog, usage, "--page-size needs 4k or 64k, not '%s'", optarg);
			break;
		case OPT_OLD: mo.young = false; break;
		case OPT_YOUNG: mo.young = true; break;
		case 'h': opts_help(usage);
		default: opts_bad_option(prog, usage, c, argv);
		}
	}
	if (optind < argc)
		opts_die(prog, usage, "unexpected argument '%s'", argv[optind]);
	if (!pages)
		pages = 2 * mmuctx_htab_entries(&mo);
	if (pages > (1ULL << 24))
		opts_die(prog, usage, "the default region (%llu pages) is too large; give --pages",
			 (unsigned long long)pages);

	for (unsigned i = 0; mmuctx_count_names[i]; i++)
		names[C_MODEL + i] = mmuctx_count_names[i];
	if (counts_init(&counts, names)) {
		perror("randaccess: mmap");
		return 1;
	}
	page_bytes = mmuctx_page_bytes(mo.psize);
	len = (pages * page_bytes + LINUX_PAGE_SIZE - 1) & ~(uint64_t)(LINUX_PAGE_SIZE - 1);
	mm = mmuctx_create(&mo, seed);
	if (!mm || hashmmu_map(mm, RANDACCESS_BASE, len, _PAGE_READ | _PAGE_WRITE)) {
		fprintf(stderr, "randaccess: model: %s\n", lace_error_msg());
		return 1;
	}
	/* One 64-byte line of real memory per page, filled with its index. */
	lines = xmalloc(pages * LINE_WORDS * sizeof(*lines));
	for (uint64_t i = 0; i < pages * LINE_WORDS; i++)
		lines[i] = i;
	rng_init(&r, seed, 0);
	mmuctx_count_begin(mm);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	lace_window_begin();   /* lace stat --window counts from here */
	for (uint64_t a = 0; a < accesses; a++) {
		uint64_t p = rng_below(&r, pages), w = rng_below(&r, LINE_WORDS);
		uint64_t ea = RANDACCESS_BASE + p * page_bytes + w * sizeof(uint64_t);
		uint64_t *word = &lines[p * LINE_WORDS + w];

		if (hashmmu_touch(mm, ea, load_only ? _PAGE_READ : _PAGE_READ | _PAGE_WRITE))
			errors++;
		sum += *word;
		if (!load_only)
			*word += a;
	}
	lace_window_end();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	counts_add(&counts, C_PAGES, pages);
	counts_add(&counts, C_ACCESSES, accesses);
	counts_add(&counts, C_CHECKSUM, sum);
	counts_add(&counts, C_MODEL_ERRORS, errors);
	mmuctx_count_end(mm, &counts, C_MODEL);

	strbuf_addf(&out, "%s\n", mmuctx_describe(&mo));
	strbuf_addf(&out, "%llu random %s over %llu pages (%.1fx the HPT's %llu entries): %.3f s\n",
		    (unsigned long long)accesses, load_only ? "loads" : "loads+stores",
		    (unsigned long long)pages, (double)pages / (double)mmuctx_htab_entries(&mo),
		    (unsigned long long)mmuctx_htab_entries(&mo), secs);
	strbuf_addf(&out, "MB/s: %.2f\n", secs > 0 ? (double)accesses * 64 / secs / 1e6 : 0.0);
	strbuf_addf(&extra, "seed=%llu page_size=%s ptes=%s access=%s htab_kib=%llu",
		    (unsigned long long)seed, mo.psize == MMU_PAGE_4K ? "4k" : "64k",
		    mo.young ? "young" : "old", load_only ? "load" : "store",
		    (unsigned long long)mo.htab_kib);
	counts_format(&counts, "randaccess", extra.buf, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&extra);
	free(lines);
	hashmmu_destroy(mm);
	counts_free(&counts);
	return errors ? 1 : 0;
}
