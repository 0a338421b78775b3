/* The pure parts of lace's TCG plugin (plugin/lace_tcg_plugin.c), kept
 * apart from QEMU's API so the unit tests can check them: the window
 * markers the guest executes, which addresses are the kernel's, and the
 * user/kernel split of the shared front-end model's counters.
 *
 * The window: the guest opens and closes it by executing an instruction
 * no compiler emits and that does nothing, recognised by its bytes when
 * QEMU translates it (no device, no hypercall, nothing the kernel must
 * know about).  On x86-64 it is a 7-byte nop with a magic displacement:
 *   open   0f 1f 80 4f 43 41 4c   nopl 0x4c41434f(%rax)   ("OCAL")
 *   close  0f 1f 80 43 43 41 4c   nopl 0x4c414343(%rax)   ("CCAL") */
#ifndef LACE_QEMU_TCG_CORE_H
#define LACE_QEMU_TCG_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/sim/model.h"

enum tcg_mark {
	TCG_MARK_NONE = 0,
	TCG_MARK_OPEN,
	TCG_MARK_CLOSE,
};

#define TCG_MARK_LEN 7
/* The marker bytes (for the guest's runner and the tests). */
extern const uint8_t tcg_mark_open_x86[TCG_MARK_LEN];
extern const uint8_t tcg_mark_close_x86[TCG_MARK_LEN];

/* What the instruction bytes[0..len) is: a marker or not. */
enum tcg_mark tcg_mark_kind(const uint8_t *bytes, size_t len);

/* Kernel code lives in the upper half of the address space on x86-64
 * (0xffff8...) and ppc64 (0xc000...): the top bit says which side an
 * instruction is on, the way perf's :u/:k split counts by privilege. */
static inline int tcg_is_kernel(uint64_t vaddr)
{
	return (int)(vaddr >> 63);
}

/* Page numbers below this are user pages (non-global TLB entries). */
static inline uint64_t tcg_user_page_limit(uint64_t page)
{
	uint64_t bits = 0;

	while (page > 1) {
		page >>= 1;
		bits++;
	}
	return (uint64_t)1 << (63 - bits);
}

/* Counters of one window, split by privilege. */
struct tcg_split {
	struct sim_totals u, k;
};

/* Add what the model counted since *last (the model's totals then) to the
 * user or kernel side, and remember now as the new last. */
void tcg_split_account(struct tcg_split *w, int kernel, const struct sim_totals *now,
		       struct sim_totals *last);

/* One window's line of the plugin's output file ("window N k=v ..."),
 * and its reader.  Keys: u.<field>, k.<field> with the sim_totals fields
 * instructions, l1i_loads, l1i_misses, itlb_loads, itlb_misses,
 * stlb_loads, stlb_misses, fetch_blocks.  Returns the length written
 * (snprintf's). */
int tcg_split_format(char *buf, size_t size, unsigned window, const struct tcg_split *w);
/* 0 on a well-formed line, -1 otherwise. */
int tcg_split_parse(const char *line, unsigned *window, struct tcg_split *w);

#endif
