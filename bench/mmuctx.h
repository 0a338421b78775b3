/* mmuctx: the hash MMU model as the workloads use it.
 *
 * One place for the model options every workload takes (HPT size, hashed
 * page size, PTEs created old or young), the creation of the address space,
 * and the model's counters in the workloads' output.  Model addresses are
 * synthetic (fixed bases, not the workload's real pointers), so ASLR never
 * changes which HPT group a page hashes to: counts stay identical run to
 * run. */
#ifndef LACE_BENCH_MMUCTX_H
#define LACE_BENCH_MMUCTX_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/counts.h"
#include "hashmmu/hashmmu.h"

struct mmuctx_opts {
	uint64_t htab_kib;       /* HPT size in KiB: power of two >= 256 */
	enum hash_psize psize;   /* MMU_PAGE_4K or MMU_PAGE_64K HPTEs */
	bool young;              /* PTEs created young (default) or old */
};

#define MMUCTX_OPTS_DEFAULT { .htab_kib = 1024, .psize = MMU_PAGE_64K, .young = true }

/* Option help lines (for usage texts), and parsers returning 0 or -1. */
#define MMUCTX_USAGE                                                              \
	"      --htab-kib=K       hashed page table size in KiB, a power of two >= 256\n" \
	"                         (default 1024: 65536 HPTEs)\n"                      \
	"      --page-size=4k|64k page size the model hashes (default 64k)\n"         \
	"      --old              create PTEs old (accessed bit clear): the first\n"  \
	"                         access of each page takes one more hash fault\n"    \
	"      --young            create PTEs young (default)\n"
int mmuctx_parse_psize(const char *s, enum hash_psize *psize);
int mmuctx_parse_htab(const char *s, uint64_t *kib);

/* Bytes of one page of the chosen size. */
uint64_t mmuctx_page_bytes(enum hash_psize psize);
/* HPTEs the table holds: what "larger than the hash table covers" means. */
uint64_t mmuctx_htab_entries(const struct mmuctx_opts *o);

/* Create the address space (NULL with lace_error_msg() set on failure). */
struct hashmmu_mm *mmuctx_create(const struct mmuctx_opts *o, uint64_t seed);

/* The model's counter names, in output order, NULL-terminated; a workload
 * appends them to its own list. */
extern const char *const mmuctx_count_names[];
#define MMUCTX_NCOUNTS 12
/* Start counting for this task: zero the mm's statistics and the
 * hash_fault tracepoint's hits (a forked child calls it first). */
void mmuctx_count_begin(struct hashmmu_mm *mm);
/* Add the mm's statistics and the tracepoint hits since begin to c,
 * starting at index first. */
void mmuctx_count_end(struct hashmmu_mm *mm, struct counts *c, unsigned first);
/* Line describing the model config, for the readable output. */
const char *mmuctx_describe(const struct mmuctx_opts *o);

#endif
