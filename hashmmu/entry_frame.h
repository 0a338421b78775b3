/* Saving the frame, shared by the entry stubs.  The x86-64 registers the
 * caller expects preserved (rbx, rbp, r12-r15) and rsp are stored into the
 * ppc64-shaped frame's gpr[] the way the kernel's prologue stores
 * r14-r31 and r1, so the entry code does the loads and stores of a real
 * one; the compiler restores them on return. */
#ifndef LACE_HASHMMU_ENTRY_FRAME_H
#define LACE_HASHMMU_ENTRY_FRAME_H

#include <string.h>

#include "hashmmu/entry.h"

static inline __attribute__((always_inline)) void entry_save_regs(struct lace_pt_regs *regs)
{
#ifdef __x86_64__
	__asm__ volatile("mov %%rsp, %0\n\t"
			 "mov %%rbx, %1\n\t"
			 "mov %%rbp, %2\n\t"
			 "mov %%r12, %3\n\t"
			 "mov %%r13, %4\n\t"
			 "mov %%r14, %5\n\t"
			 "mov %%r15, %6\n\t"
			 : "=m"(regs->gpr[1]), "=m"(regs->gpr[14]), "=m"(regs->gpr[15]),
			   "=m"(regs->gpr[16]), "=m"(regs->gpr[17]), "=m"(regs->gpr[18]),
			   "=m"(regs->gpr[19]));
#else
	regs->gpr[1] = (uint64_t)(uintptr_t)__builtin_frame_address(0);
#endif
	regs->nip = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

#endif
