/* msgpath: how one hackbench message crosses the modelled kernel.
 *
 * A send is lace_syscall(4 = ppc64 __NR_write, fd, buf, len): the entry stub
 * (hashmmu/entry.h, in .entry.text) saves the frame and dispatches to
 * msgpath's sys_write handler, which runs the code footprint (`depth`
 * generated handlers, bench/footprint.h), reads the sender's buffer through
 * the MMU model (copy_from_user) and makes the real write(2).  A receive is
 * the same with __NR_read = 3: footprint, the real read(2), then the copy
 * to the receiver's buffer stores through the MMU model (copy_to_user), so a
 * page not in the hashed page table takes the hash-fault path
 * (lace_exception_entry -> hash_page_mm).  The receiver's buffer rotates
 * over a ring of `ring_pages` model pages, as socket data lands in
 * different pages.
 *
 * Exactly one real read or write per call: the system-call counts of the
 * workload are those of rt-tests hackbench. */
#ifndef LACE_BENCH_MSGPATH_H
#define LACE_BENCH_MSGPATH_H

#include <stdint.h>
#include <sys/types.h>

#include "bench/footprint.h"
#include "hashmmu/hashmmu.h"

#define MSGPATH_NR_READ 3   /* ppc64 syscall numbers */
#define MSGPATH_NR_WRITE 4

struct msgpath_worker {
	struct footprint_worker fp;
	struct hashmmu_mm *mm;
	uint64_t ea;            /* model address of this worker's buffers */
	uint64_t page_bytes;
	unsigned ring_pages;
	uint64_t next;          /* next ring page */
	uint64_t entries;       /* calls through the entry stub */
	uint64_t model_errors;  /* touches the model refused (should stay 0) */
};

/* Register the handlers with the entry code (once, before workers). */
int msgpath_init(void);
/* Bytes of model address space each worker's slot takes. */
uint64_t msgpath_slot_bytes(unsigned ring_pages, uint64_t page_bytes);
/* Map `workers` slots in mm at the model base address; 0 or -errno. */
int msgpath_map(struct hashmmu_mm *mm, unsigned workers, unsigned ring_pages,
		uint64_t page_bytes);
/* Worker `index`'s state (its slot, its random stream). */
void msgpath_worker_init(struct msgpath_worker *w, struct hashmmu_mm *mm, uint64_t seed,
			 unsigned index, unsigned ring_pages, uint64_t page_bytes);

/* write(2)/read(2) through the entry code; same return convention. */
ssize_t msgpath_write(struct msgpath_worker *w, int fd, const void *buf, size_t n);
ssize_t msgpath_read(struct msgpath_worker *w, int fd, void *buf, size_t n);

#endif
