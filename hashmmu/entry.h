/* Entry code: the syscall and exception entry stubs.
 *
 * As the kernel's entry_64.S / exceptions-64s.S do, an entry stub saves a
 * register frame (struct lace_pt_regs), dispatches on the syscall number or
 * trap vector through a table, calls the handler with the frame, and
 * restores (the return value comes back through regs->gpr[3], as r3 on
 * ppc64).  The stubs are marked __entry_text, so they land in `.entry.text`;
 * every linker script defines __entry_text_start/__entry_text_end around
 * where that code goes (see linker_scripts/), as the kernel's ENTRY_TEXT.
 *
 * Handlers are plain functions registered at start-up: the workloads plug
 * their (generated) handlers in with entry_register_syscall(), or a
 * generator can emit a table and register it with entry_register_table(). */
#ifndef LACE_HASHMMU_ENTRY_H
#define LACE_HASHMMU_ENTRY_H

#include <stdint.h>

#define __entry_text __attribute__((section(".entry.text"), noinline))

/* The frame: ppc64 layout, gpr[0..31], nip, msr, trap, dar, dsisr, result. */
struct lace_pt_regs {
	uint64_t gpr[32];
	uint64_t nip;
	uint64_t msr;
	uint64_t trap;
	uint64_t dar;
	uint64_t dsisr;
	uint64_t orig_gpr3;
	void *ctx;              /* the mm (or workload state) of the caller */
};

typedef long (*lace_syscall_fn)(struct lace_pt_regs *regs);
typedef long (*lace_trap_fn)(struct lace_pt_regs *regs);

#define LACE_NR_SYSCALLS 1024
#define LACE_NR_TRAPS 0x20          /* vector >> 8: 0x000..0x1f00 */

/* Register handler fn for syscall nr: 0, or -EINVAL (nr out of range). */
int entry_register_syscall(unsigned nr, lace_syscall_fn fn);
/* Register n handlers for syscalls first..first+n-1 (a generated table). */
int entry_register_table(unsigned first, const lace_syscall_fn *fns, unsigned n);
/* Register the handler of an exception vector (0x300, 0x400, ...). */
int entry_register_trap(unsigned long trap, lace_trap_fn fn);

/* The syscall entry: saves the frame, dispatches sys_call_table[nr];
 * returns the handler's result, or -ENOSYS for an empty slot. */
long lace_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5,
		  void *ctx);

/* The exception entry: saves the frame with trap/dar/dsisr, dispatches on
 * the vector; returns the handler's result, or -ENOSYS.  For TRAP_DSI and
 * TRAP_ISI the default handler (hashmmu) calls hash_page_mm() and falls
 * back to the Linux fault path. */
long lace_exception_entry(unsigned long trap, uint64_t dar, uint64_t dsisr, void *ctx);

/* DSISR bits the data-storage handler reads (ppc64). */
#define DSISR_NOHPTE 0x40000000UL    /* no translation found */
#define DSISR_PROTFAULT 0x08000000UL /* protection fault */
#define DSISR_ISSTORE 0x02000000UL   /* access was a store */

/* Counters of the entry code (for tests and sanity checks). */
unsigned long entry_syscall_count(void);
unsigned long entry_exception_count(void);

/* Marker symbols from the linker script (only in `lace build` variants;
 * the unit tests' default link has no such symbols, so they are weak). */
extern char __entry_text_start[] __attribute__((weak));
extern char __entry_text_end[] __attribute__((weak));

#endif
