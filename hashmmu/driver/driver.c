/* hashmmu-driver: a small program that runs the study code end to end:
 * syscalls through the entry stub (lace_syscall), whose handler touches
 * pages of a model address space, so misses take the data-storage
 * exception through lace_exception_entry into hash_page_mm() (and its
 * hash_fault tracepoint).  `lace build` builds it into every variant; the
 * tests use it to check layout (objdump) and that perf's SDT count equals
 * the tracepoint's own counter.
 *
 *   hashmmu-driver [--pages N] [--rounds R] [--psize 4k|64k] [--old]
 *                  [--htab-kib K] [--seed S] [--trace]
 *
 * Every round touches each page once (stores on odd rounds) and ages half
 * of the pages, so later rounds fault again.  Prints one JSON object with
 * the model's statistics and the tracepoint's hit count (-1 when the
 * binary was built without tracepoints). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmmu/entry.h"
#include "hashmmu/hashmmu.h"
#include "probes/tracepoint.h"
#include "util/parse_num.h"

#define SYS_TOUCH 1
#define SYS_MKOLD 2
#define BASE 0x10000000UL

static long sys_touch(struct lace_pt_regs *regs)
{
	return hashmmu_touch(regs->ctx, regs->gpr[3], regs->gpr[4]);
}

static long sys_mkold(struct lace_pt_regs *regs)
{
	hashmmu_mkold(regs->ctx, regs->gpr[3], regs->gpr[4]);
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: hashmmu-driver [--pages N] [--rounds R] [--psize 4k|64k] [--old]\n"
	      "                      [--htab-kib K] [--seed S] [--trace]\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "psize", required_argument, NULL, 'z' },
		{ "old", no_argument, NULL, 'o' },
		{ "htab-kib", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "trace", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hashmmu_config cfg = { .htab_bytes = 256 << 10, .psize = MMU_PAGE_64K, .young = true };
	unsigned long pages = 256, rounds = 4;
	struct hashmmu_stats st;
	struct hashmmu_mm *mm;
	int c, trace = 0;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'r':
		case 'k':
		case 's': {
			unsigned long v;

			if (parse_ulong(optarg, &v) || (c != 's' && !v)) {
				fprintf(stderr, "hashmmu-driver: bad value '%s' for --%s\n", optarg,
					c == 'p' ? "pages" : c == 'r' ? "rounds" : c == 'k' ? "htab-kib" : "seed");
				return 2;
			}
			if (c == 'p')
				pages = v;
			else if (c == 'r')
				rounds = v;
			else if (c == 'k')
				cfg.htab_bytes = v << 10;
			else
				cfg.seed = v;
			break;
		}
		case 'z':
			if (!strcmp(optarg, "4k"))
				cfg.psize = MMU_PAGE_4K;
			else if (!strcmp(optarg, "64k"))
				cfg.psize = MMU_PAGE_64K;
			else {
				fprintf(stderr, "hashmmu-driver: --psize takes 4k or 64k\n");
				return 2;
			}
			break;
		case 'o':
			cfg.young = false;
			break;
		case 't':
			trace = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || pages > (1UL << 20)) {
		usage(stderr);
		return 2;
	}
	mm = hashmmu_create(&cfg);
	if (!mm || hashmmu_map(mm, BASE, pages << LINUX_PAGE_SHIFT, _PAGE_RW)) {
		fprintf(stderr, "hashmmu-driver: cannot set up the model (bad --htab-kib?)\n");
		return 2;
	}
	entry_register_syscall(SYS_TOUCH, sys_touch);
	entry_register_syscall(SYS_MKOLD, sys_mkold);
#ifndef LACE_NO_TRACEPOINTS
	if (trace && lace_trace_enable("hash_fault")) {
		fprintf(stderr, "hashmmu-driver: cannot enable hash_fault\n");
		return 1;
	}
#else
	(void)trace;
#endif
	for (unsigned long r = 0; r < rounds; r++) {
		uint64_t access = (r & 1) ? _PAGE_RW : _PAGE_READ;

		for (unsigned long p = 0; p < pages; p++) {
			/* a different 4K sub-page each round */
			uint64_t ea = BASE + (p << LINUX_PAGE_SHIFT) + ((r * 0x1000) & 0xf000);

			if (lace_syscall(SYS_TOUCH, (long)ea, (long)access, 0, 0, 0, 0, mm)) {
				fprintf(stderr, "hashmmu-driver: access to %#lx failed\n",
					(unsigned long)ea);
				return 1;
			}
		}
		/* age every other page: their next access faults again */
		for (unsigned long p = r & 1; p < pages; p += 2)
			lace_syscall(SYS_MKOLD, (long)(BASE + (p << LINUX_PAGE_SHIFT)),
				     (long)LINUX_PAGE_SIZE, 0, 0, 0, 0, mm);
	}
	hashmmu_get_stats(mm, &st);
	printf("{\"pages\": %lu, \"rounds\": %lu, \"psize\": \"%s\", \"young\": %s, "
	       "\"faults\": %lu, \"linux_faults\": %lu, \"inserts\": %lu, \"evictions\": %lu, "
	       "\"secondary\": %lu, \"busy_retries\": %lu, \"accessed_faults\": %lu, "
	       "\"syscalls\": %lu, \"exceptions\": %lu, \"hash_fault_hits\": %ld}\n",
	       pages, rounds, cfg.psize == MMU_PAGE_4K ? "4k" : "64k",
	       cfg.young ? "true" : "false", st.faults, st.linux_faults, st.inserts,
	       st.evictions, st.secondary, st.busy_retries, st.accessed_faults,
	       entry_syscall_count(), entry_exception_count(),
	       (long)lace_trace_hits("hash_fault"));
	hashmmu_destroy(mm);
	return 0;
}
