/* The exception entry (EXCEPTION_PROLOG / interrupt_entry in the kernel's
 * exceptions-64s.S): the stub and the interrupt-return stub live in
 * .entry.text; the vector table and registration are ordinary .text. */
#include <errno.h>

#include "hashmmu/entry_frame.h"

static lace_trap_fn trap_table[LACE_NR_TRAPS];
static unsigned long exception_count;

int entry_register_trap(unsigned long trap, lace_trap_fn fn)
{
	if ((trap & 0xff) || (trap >> 8) >= LACE_NR_TRAPS)
		return -EINVAL;
	__atomic_store_n(&trap_table[trap >> 8], fn, __ATOMIC_RELEASE);
	return 0;
}

unsigned long entry_exception_count(void)
{
	return __atomic_load_n(&exception_count, __ATOMIC_RELAXED);
}

/* interrupt_exit_user_prepare(): the return path, also entry text. */
__entry_text static long lace_interrupt_return(struct lace_pt_regs *regs, long rc)
{
	regs->gpr[3] = (uint64_t)rc;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return (long)regs->gpr[3];
}

__entry_text long lace_exception_entry(unsigned long trap, uint64_t dar, uint64_t dsisr,
				       void *ctx)
{
	struct lace_pt_regs regs;
	lace_trap_fn fn = NULL;

	entry_save_regs(&regs);
	regs.trap = trap;
	regs.dar = dar;
	regs.dsisr = dsisr;
	regs.ctx = ctx;
	__atomic_fetch_add(&exception_count, 1, __ATOMIC_RELAXED);
	if (!(trap & 0xff) && (trap >> 8) < LACE_NR_TRAPS)
		fn = __atomic_load_n(&trap_table[trap >> 8], __ATOMIC_ACQUIRE);
	return lace_interrupt_return(&regs, fn ? fn(&regs) : -ENOSYS);
}
