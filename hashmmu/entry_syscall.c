/* The syscall entry (system_call_common in the kernel's entry_64.S): the
 * stub lives in .entry.text; the table and its registration are ordinary
 * .text, next to it in this file, so a layout that does not gather
 * .entry.text leaves the entry code spread among other functions. */
#include <errno.h>

#include "hashmmu/entry_frame.h"

static lace_syscall_fn sys_call_table[LACE_NR_SYSCALLS];
static unsigned long syscall_count;

int entry_register_syscall(unsigned nr, lace_syscall_fn fn)
{
	if (nr >= LACE_NR_SYSCALLS)
		return -EINVAL;
	__atomic_store_n(&sys_call_table[nr], fn, __ATOMIC_RELEASE);
	return 0;
}

int entry_register_table(unsigned first, const lace_syscall_fn *fns, unsigned n)
{
	if (first >= LACE_NR_SYSCALLS || n > LACE_NR_SYSCALLS - first)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		entry_register_syscall(first + i, fns[i]);
	return 0;
}

unsigned long entry_syscall_count(void)
{
	return __atomic_load_n(&syscall_count, __ATOMIC_RELAXED);
}

/* Out-of-range and empty slots: sys_ni_syscall(). */
static long sys_ni_syscall(struct lace_pt_regs *regs)
{
	(void)regs;
	return -ENOSYS;
}

__entry_text long lace_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5,
			       void *ctx)
{
	struct lace_pt_regs regs;
	lace_syscall_fn fn;

	entry_save_regs(&regs);
	regs.gpr[0] = (uint64_t)nr;
	regs.gpr[3] = regs.orig_gpr3 = (uint64_t)a0;
	regs.gpr[4] = (uint64_t)a1;
	regs.gpr[5] = (uint64_t)a2;
	regs.gpr[6] = (uint64_t)a3;
	regs.gpr[7] = (uint64_t)a4;
	regs.gpr[8] = (uint64_t)a5;
	regs.trap = 0xc00;
	regs.ctx = ctx;
	__atomic_fetch_add(&syscall_count, 1, __ATOMIC_RELAXED);

	fn = (unsigned long)nr < LACE_NR_SYSCALLS
		     ? __atomic_load_n(&sys_call_table[nr], __ATOMIC_ACQUIRE) : NULL;
	if (!fn)
		fn = sys_ni_syscall;
	regs.gpr[3] = (uint64_t)fn(&regs);
	/* syscall_exit: the result goes back in r3 */
	return (long)regs.gpr[3];
}
