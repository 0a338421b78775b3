#include <errno.h>
#include <unistd.h>

#include "bench/msgpath.h"
#include "hashmmu/entry.h"

/* Model address of the first slot: 1 TiB, far from anything else a
 * workload maps, in its own 256 MB segments. */
#define MSGPATH_BASE 0x10000000000ULL

static long sys_msg_write(struct lace_pt_regs *regs)
{
	struct msgpath_worker *w = regs->ctx;
	int fd = (int)regs->gpr[3];
	const void *buf = (const void *)(uintptr_t)regs->gpr[4];
	size_t n = (size_t)regs->gpr[5];
	ssize_t ret;

	footprint_run(&w->fp, n);
	/* copy_from_user: the sender's buffer is the first page of its slot */
	if (hashmmu_touch(w->mm, w->ea, _PAGE_READ))
		w->model_errors++;
	ret = write(fd, buf, n);
	return ret < 0 ? -errno : ret;
}

static long sys_msg_read(struct lace_pt_regs *regs)
{
	struct msgpath_worker *w = regs->ctx;
	int fd = (int)regs->gpr[3];
	void *buf = (void *)(uintptr_t)regs->gpr[4];
	size_t n = (size_t)regs->gpr[5];
	ssize_t ret;

	footprint_run(&w->fp, n);
	ret = read(fd, buf, n);
	if (ret < 0)
		return -errno;
	/* copy_to_user into this read's page of the ring */
	if (hashmmu_touch(w->mm, w->ea + (w->next % w->ring_pages) * w->page_bytes,
			  _PAGE_READ | _PAGE_WRITE))
		w->model_errors++;
	w->next++;
	return ret;
}

int msgpath_init(void)
{
	int err = entry_register_syscall(MSGPATH_NR_READ, sys_msg_read);

	return err ? err : entry_register_syscall(MSGPATH_NR_WRITE, sys_msg_write);
}

uint64_t msgpath_slot_bytes(unsigned ring_pages, uint64_t page_bytes)
{
	uint64_t b = (uint64_t)ring_pages * page_bytes;

	/* Slots are whole 64 KiB Linux pages, the model's mapping unit. */
	return (b + LINUX_PAGE_SIZE - 1) & ~(uint64_t)(LINUX_PAGE_SIZE - 1);
}

int msgpath_map(struct hashmmu_mm *mm, unsigned workers, unsigned ring_pages,
		uint64_t page_bytes)
{
	return hashmmu_map(mm, MSGPATH_BASE, workers * msgpath_slot_bytes(ring_pages, page_bytes),
			   _PAGE_READ | _PAGE_WRITE);
}

void msgpath_worker_init(struct msgpath_worker *w, struct hashmmu_mm *mm, uint64_t seed,
			 unsigned index, unsigned ring_pages, uint64_t page_bytes)
{
	footprint_worker_init(&w->fp, seed, index);
	w->mm = mm;
	w->ea = MSGPATH_BASE + index * msgpath_slot_bytes(ring_pages, page_bytes);
	w->page_bytes = page_bytes;
	w->ring_pages = ring_pages;
	w->next = 0;
	w->entries = 0;
	w->model_errors = 0;
}

static ssize_t msg_syscall(struct msgpath_worker *w, long nr, int fd, const void *buf, size_t n)
{
	long ret;

	w->entries++;
	ret = lace_syscall(nr, fd, (long)(uintptr_t)buf, (long)n, 0, 0, 0, w);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

ssize_t msgpath_write(struct msgpath_worker *w, int fd, const void *buf, size_t n)
{
	return msg_syscall(w, MSGPATH_NR_WRITE, fd, buf, n);
}

ssize_t msgpath_read(struct msgpath_worker *w, int fd, void *buf, size_t n)
{
	return msg_syscall(w, MSGPATH_NR_READ, fd, buf, n);
}
