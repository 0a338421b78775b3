/* faultbench: touch one byte per page through the hash MMU model.
 *
 * The microbenchmark of the hash-fault tracepoint review ("touch one byte
 * per page", sys time 11.24 s -> 11.33 s): a region of `pages` pages, one
 * byte of each touched in order, `passes` times.  Every touch goes through
 * hashmmu_touch(): an HPT miss raises a data-storage exception through the
 * entry code (lace_exception_entry) into hash_page_mm(), and on a missing
 * Linux PTE into the Linux fault path.  So on a fresh region, one pass:
 *
 *   young PTEs (default): one hash fault per page (the Linux fault fills the
 *     PTE and preloads the HPTE of the faulting page);
 *   old PTEs (--old): plus one per Linux page (64 KiB): the first access
 *     of a 64 KiB page faults again to set the accessed bit
 *     (accessed_faults), the mkold thread: the study's reading 2.
 *
 * With --page-size 4k, pages are 4 KiB sub-pages of 64 KiB Linux pages
 * (H_PAGE_COMBO): N pages -> N hash faults young, N + N/16 old.  With
 * --page-size 64k: N -> N young, 2N old.  Later passes fault again only on
 * pages whose HPTE was evicted (region larger than the HPT covers).
 *
 * --real leaves the model out and touches real memory the same way: an
 * anonymous mapping of N pages of the system's page size, so the kernel
 * running the program takes the faults (inside a ppc64le guest on a hash
 * MMU: one hash fault per page, what the kernel study measures). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/counts.h"
#include "bench/mmuctx.h"
#include "bench/opts.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "measure/lace_window.h"

static const char usage[] =
	"usage: faultbench [options]\n"
	"Touch one byte per page of a region through the hash MMU model, `passes`\n"
	"times, and report hash faults per second and the model's counts; with\n"
	"--real, touch a real anonymous mapping instead (the kernel takes the faults).\n"
	"  -n, --pages=N          pages in the region (default 4096)\n"
	"  -p, --passes=P         passes over the region (default 1)\n"
	"  -r, --read             touch with a load (default: a store, as the\n"
	"                         original microbenchmark's `p[i] = 1`)\n"
	"      --seed=N           model seed: the HPT eviction choices (default 1)\n"
	"      --real             no model: mmap N pages of the system page size\n"
	"                         (sysconf(_SC_PAGESIZE); --page-size when given),\n"
	"                         touch them, munmap; reports pages, passes and\n"
	"                         touches/s, no model counts.  --old and --htab-kib\n"
	"                         are model options: an error with --real\n"
	"      --file=PATH        with --real: the region is the file PATH, written\n"
	"                         with N pages first (outside the window), mapped\n"
	"                         shared and read (--read is implied): file-backed\n"
	"                         faults, where faultaround maps the neighbours\n"
	MMUCTX_USAGE
	"  -h, --help             this text\n"
	"output: readable counts, `faults/s: N` (--real: `touches/s: N`), then one\n"
	"line `lace-counts: workload=faultbench key=value ...` (deterministic values).\n"
	"Exit status: 0 ok, 1 model (or --real: mmap) failure, 2 invalid arguments.\n";

enum { OPT_SEED = 256, OPT_HTAB, OPT_PSIZE, OPT_OLD, OPT_YOUNG, OPT_REAL, OPT_FILE };

/* Model address of the region: 256 GiB, segment aligned. */
#define FAULTBENCH_BASE 0x4000000000ULL

enum { C_PAGES, C_PASSES, C_MODEL_ERRORS, C_MODEL };

static volatile unsigned char real_sink;  /* where --read's loads go */

/* --real --file: PATH filled with `len` bytes (in the page cache, not
 * mapped by anyone), then mapped shared for reading; MAP_FAILED (errno
 * set) on failure */
static void *map_file(const char *path, size_t len)
{
	static char chunk[65536];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p = MAP_FAILED;

	if (fd < 0)
		return MAP_FAILED;
	memset(chunk, 1, sizeof(chunk));
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
		ssize_t w = write(fd, chunk, n);
		if (w <= 0)
			goto out;
		done += (size_t)w;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
out:
	close(fd);
	return p;
}

/* --real: one byte of each of `pages` pages of `page_bytes` (a fresh
 * anonymous mapping, or with file the file PATH), `passes` times.
 * Transparent huge pages are turned off for the mapping so that each page
 * is one fault, as in the model. */
static int run_real(uint64_t pages, uint64_t passes, uint64_t page_bytes, bool store,
		    bool psize_given, const char *file)
{
	static const char *const names[] = { "pages", "passes", NULL };
	size_t len = pages * page_bytes;
	volatile unsigned char *p;
	unsigned char sum = 0;
	struct counts counts;
	struct strbuf out = STRBUF_INIT, extra = STRBUF_INIT;
	struct rusage r0, r1;
	struct timespec t0, t1;
	double secs;

	if (counts_init(&counts, names)) {
		perror("faultbench: mmap");
		return 1;
	}
	p = file ? map_file(file, len)
		 : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "faultbench: --real: mmap of %llu pages of %llu bytes%s%s: %s\n",
			(unsigned long long)pages, (unsigned long long)page_bytes, file ? " of " : "",
			file ? file : "", strerror(errno));
		counts_free(&counts);
		return 1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise((void *)p, len, MADV_NOHUGEPAGE);  /* EINVAL without THP: fine */
#endif
	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lace_window_begin();
	for (uint64_t n = 0; n < passes; n++)
		for (uint64_t i = 0; i < pages; i++) {
			if (store)
				p[i * page_bytes] = 1;
			else
				sum += p[i * page_bytes];
		}
	lace_window_end();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &r1);
	munmap((void *)p, len);
	if (file)
		unlink(file);
	real_sink = sum;
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	counts_add(&counts, 0, pages);
	counts_add(&counts, 1, passes);
	strbuf_addf(&out, "real memory: %s, %llu-byte pages (%s)\n",
		    file ? "a shared file mapping" : "anonymous mapping", (unsigned long long)page_bytes,
		    psize_given ? "--page-size" : "system page size");
	strbuf_addf(&out, "%llu pages x %llu passes, one %s per page: %.3f s\n",
		    (unsigned long long)pages, (unsigned long long)passes,
		    store ? "store" : "load", secs);
	strbuf_addf(&out, "minor page faults: %ld\n", r1.ru_minflt - r0.ru_minflt);
	strbuf_addf(&out, "touches/s: %.0f\n",
		    secs > 0 ? (double)pages * (double)passes / secs : 0.0);
	strbuf_addf(&extra, "mode=real page_size=%lluk access=%s%s",
		    (unsigned long long)page_bytes / 1024, store ? "store" : "load", file ? " mapping=file" : "");
	counts_format(&counts, "faultbench", extra.buf, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&extra);
	counts_free(&counts);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pages", required_argument, NULL, 'n' },
		{ "passes", required_argument, NULL, 'p' },
		{ "read", no_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "htab-kib", required_argument, NULL, OPT_HTAB },
		{ "page-size", required_argument, NULL, OPT_PSIZE },
		{ "old", no_argument, NULL, OPT_OLD },
		{ "young", no_argument, NULL, OPT_YOUNG },
		{ "real", no_argument, NULL, OPT_REAL },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "faultbench";
	const char *names[C_MODEL + MMUCTX_NCOUNTS + 1] = { "pages", "passes", "model_errors" };
	struct mmuctx_opts mo = MMUCTX_OPTS_DEFAULT;
	uint64_t pages = 4096, passes = 1, seed = 1, access = _PAGE_READ | _PAGE_WRITE;
	uint64_t page_bytes, errors = 0, len;
	struct hashmmu_mm *mm;
	struct hashmmu_stats st;
	struct counts counts;
	struct strbuf out = STRBUF_INIT, extra = STRBUF_INIT;
	struct timespec t0, t1;
	double secs;
	bool real = false, psize_given = false;
	const char *model_only = NULL;   /* a model option given: not with --real */
	const char *file = NULL;
	int c;

	while ((c = getopt_long(argc, argv, ":n:p:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (opts_uint(optarg, 1, 1ULL << 24, &pages))
				opts_die(prog, usage, "--pages needs an integer in 1..16777216, not '%s'", optarg);
			break;
		case 'p':
			if (opts_uint(optarg, 1, 1000000, &passes))
				opts_die(prog, usage, "--passes needs an integer in 1..1000000, not '%s'", optarg);
			break;
		case 'r': access = _PAGE_READ; break;
		case OPT_SEED:
			if (opts_uint(optarg, 0, UINT64_MAX, &seed))
				opts_die(prog, usage, "--seed needs an unsigned integer, not '%s'", optarg);
			break;
		case OPT_HTAB:
			if (mmuctx_parse_htab(optarg, &mo.htab_kib))
				opts_die(prog, usage, "--htab-kib needs a power of two >= 256, not '%s'", optarg);
			model_only = "--htab-kib";
			break;
		case OPT_PSIZE:
			if (mmuctx_parse_psize(optarg, &mo.psize))
				opts_die(prog, usage, "--page-size needs 4k or 64k, not '%s'", optarg);
			psize_given = true;
			break;
		case OPT_OLD: mo.young = false; model_only = "--old"; break;
		case OPT_YOUNG: mo.young = true; break;
		case OPT_REAL: real = true; break;
		case OPT_FILE:
			if (!*optarg)
				opts_die(prog, usage, "--file needs a path");
			file = optarg;
			break;
		case 'h': opts_help(usage);
		default: opts_bad_option(prog, usage, c, argv);
		}
	}
	if (optind < argc)
		opts_die(prog, usage, "unexpected argument '%s'", argv[optind]);
	if (real && model_only) {
		fprintf(stderr, "faultbench: %s is an option of the hash MMU model; "
			"--real touches real pages (drop one of the two)\n", model_only);
		return 2;
	}
	if (file && !real)
		opts_die(prog, usage, "--file maps a real file: it needs --real");
	if (real) {
		long sys = sysconf(_SC_PAGESIZE);

		if (!psize_given && sys <= 0) {
			fprintf(stderr, "faultbench: --real: no system page size; give --page-size\n");
			return 2;
		}
		return run_real(pages, passes, psize_given ? mmuctx_page_bytes(mo.psize) : (uint64_t)sys,
				file ? false : (access & _PAGE_WRITE) != 0, psize_given, file);
	}

	for (unsigned i = 0; mmuctx_count_names[i]; i++)
		names[C_MODEL + i] = mmuctx_count_names[i];
	if (counts_init(&counts, names)) {
		perror("faultbench: mmap");
		return 1;
	}
	page_bytes = mmuctx_page_bytes(mo.psize);
	len = (pages * page_bytes + LINUX_PAGE_SIZE - 1) & ~(uint64_t)(LINUX_PAGE_SIZE - 1);
	mm = mmuctx_create(&mo, seed);
	if (!mm || hashmmu_map(mm, FAULTBENCH_BASE, len, _PAGE_READ | _PAGE_WRITE)) {
		fprintf(stderr, "faultbench: model: %s\n", lace_error_msg());
		return 1;
	}
	mmuctx_count_begin(mm);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	lace_window_begin();   /* lace stat --window counts from here */
	for (uint64_t p = 0; p < passes; p++)
		for (uint64_t i = 0; i < pages; i++)
			if (hashmmu_touch(mm, FAULTBENCH_BASE + i * page_bytes, access))
				errors++;
	lace_window_end();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	counts_add(&counts, C_PAGES, pages);
	counts_add(&counts, C_PASSES, passes);
	counts_add(&counts, C_MODEL_ERRORS, errors);
	mmuctx_count_end(mm, &counts, C_MODEL);
	hashmmu_get_stats(mm, &st);

	strbuf_addf(&out, "%s\n", mmuctx_describe(&mo));
	strbuf_addf(&out, "%llu pages x %llu passes, one %s per page: %.3f s\n",
		    (unsigned long long)pages, (unsigned long long)passes,
		    access & _PAGE_WRITE ? "store" : "load", secs);
	strbuf_addf(&out, "faults/s: %.0f\n", secs > 0 ? (double)st.faults / secs : 0.0);
	strbuf_addf(&extra, "seed=%llu page_size=%s ptes=%s access=%s htab_kib=%llu",
		    (unsigned long long)seed, mo.psize == MMU_PAGE_4K ? "4k" : "64k",
		    mo.young ? "young" : "old", access & _PAGE_WRITE ? "store" : "load",
		    (unsigned long long)mo.htab_kib);
	counts_format(&counts, "faultbench", extra.buf, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&extra);
	hashmmu_destroy(mm);
	counts_free(&counts);
	return errors ? 1 : 0;
}
