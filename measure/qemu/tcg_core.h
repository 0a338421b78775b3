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
 *   close  0f 1f 80 43 43 41 4c   nopl 0x4c414343(%rax)   ("CCAL")
 * On ppc64 no single instruction is both a no-op and free of meaning to
 * some POWER core (or r,r,r and ori r,r,0 are hints and barriers), so a
 * marker is a pair of identical `xori r0,r0,K` (r0 ^ K ^ K == r0, no CR
 * change), K = 0x4f43 ("OC") to open and 0x4343 ("CC") to close. */
#ifndef LACE_QEMU_TCG_CORE_H
#define LACE_QEMU_TCG_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/model/model.h"

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

/* The guest architectures the plugin knows (QEMU's target_name). */
enum tcg_arch {
	TCG_ARCH_X86_64 = 0,
	TCG_ARCH_PPC64,      /* little-endian ppc64 (ppc64le guests) */
};
/* "x86_64" or "ppc64"; -1 for a target the plugin does not know. */
int tcg_arch_from_target(const char *target_name);

#define TCG_PPC_MARK_OPEN  0x68004f43u   /* xori r0,r0,0x4f43 */
#define TCG_PPC_MARK_CLOSE 0x68004343u   /* xori r0,r0,0x4343 */
/* ppc64: the marker a 4-byte instruction and the one after it make (next
 * NULL when the block ends there: no marker). */
enum tcg_mark tcg_mark_kind_ppc64(const uint8_t *insn, const uint8_t *next);

/* Whether the instruction leaves a return address for a callee: x86 call
 * (direct or indirect), ppc64 bl/bcl/bctrl/blrl/bctarl (the link bit set;
 * not `bcl 20,31,$+4`, the idiom that only reads the program counter). */
int tcg_insn_is_call(enum tcg_arch arch, const uint8_t *bytes, size_t len);

/* ppc64 ELFv2: a function that sets up its TOC pointer starts with
 * `addis r2,r12,HI; addi r2,r2,LO` and callers in the same object enter it
 * 8 bytes in (the local entry point), which System.map does not say.
 * first8 is the function's first 8 bytes. */
int tcg_ppc64_has_local_entry(const uint8_t *first8);

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
 * stlb_loads, stlb_misses, fetch_blocks, fetch_late.  Returns the length
 * written (snprintf's). */
int tcg_split_format(char *buf, size_t size, unsigned window, const struct tcg_split *w);
/* 0 on a well-formed line, -1 otherwise. */
int tcg_split_parse(const char *line, unsigned *window, struct tcg_split *w);

/* A block is counted when it starts (plugin API 1 has no callback when a
 * block ends).  A synchronous exception raised by one of its instructions
 * (a page fault, a general protection fault, a trap) leaves the block
 * there, and when the kernel returns to that instruction (a fault: to
 * retry it) or past it (a trap) a new block counts the same instructions
 * again.  tcg_exception_entry() tells whether a kernel symbol is where
 * such an exception enters the kernel (x86-64: the asm_exc_* entries but
 * the asynchronous NMI, machine check and the like; ppc64: the vectors of
 * storage, alignment, program and facility interrupts, exc_virt_0x4300_
 * data_access and its kind, not the external, decrementer or doorbell ones);
 * tcg_block_rest() how many of a block's instructions, at offsets
 * off[0..n) from its start vaddr, lie from resume on: counted once too
 * many when execution resumes there (0 when resume is not one of them). */
int tcg_exception_entry(enum tcg_arch arch, const char *name);
uint32_t tcg_block_rest(const uint16_t *off, uint32_t n, uint64_t vaddr, uint64_t resume);

/* Inclusive path length of named functions without registers (QEMU's
 * plugin API 1 shows none): a frame opens when a block starts at a named
 * function's entry right after a block that ended in a call, remembering
 * the address after that call; it closes when a block starts at that
 * return address.  Tail calls out of the function are covered (the callee
 * returns to the same address); interrupts taken inside it count towards
 * it, as they do on real hardware's "instructions between entry and
 * return".  A recursive function counts its outermost frame only.
 * Each outermost call's length is kept (struct tcg_path_fn's len[]),
 * marked when an asynchronous interrupt's vector was entered while it
 * was open. */
struct tcg_path_len {
	uint64_t instructions, calls, interrupted;
};

struct tcg_path_fn {
	const char *name;
	uint64_t calls, inclusive;
	unsigned active;
	/* Each call's length, for a distribution rather than a mean (one
	 * interrupt landing in a call adds thousands): the distinct lengths
	 * in increasing order, with how many calls took each and how many of
	 * those an asynchronous interrupt landed in (tcg_paths_interrupt). */
	uint64_t interrupted;
	/* the model's L1i and iTLB misses inside the calls (callees
	 * included), when tcg_paths.totals is set */
	uint64_t l1i_misses, itlb_misses;
	struct tcg_path_len *len;
	size_t nlen, caplen;
};

#define TCG_PATH_DEPTH 64
struct tcg_paths {
	struct tcg_path_fn *fn;
	size_t n;
	struct {
		uint32_t fn;
		uint64_t start, ret;
		uint64_t start_l1i, start_itlb;
		int interrupted;
	} stack[TCG_PATH_DEPTH];
	size_t depth;
	uint64_t pending_ret;   /* the previous block ended in a call returning here */
	/* the model's counters, read when a call starts and ends (NULL: no
	 * misses per path): like `now`, they must not yet count the block
	 * passed to tcg_paths_block */
	const struct sim_totals *totals;
};

/* One executed block: it starts at vaddr, is the entry of path function
 * entry_fn (-1: none), ends in a call returning to call_ret (0: it does
 * not); now is the instruction count before it ran. */
void tcg_paths_block(struct tcg_paths *p, uint64_t vaddr, long entry_fn, uint64_t call_ret,
		     uint64_t now);

/* The vCPU entered an asynchronous interrupt's vector (tcg_is_async_vector):
 * every call open now took an interrupt.  Called before the vector's
 * block is passed to tcg_paths_block. */
void tcg_paths_interrupt(struct tcg_paths *p);
/* Frees the per-call lengths of p's functions. */
void tcg_paths_release(struct tcg_paths *p);

/* Whether the kernel symbol sym is where the CPU enters an asynchronous
 * interrupt: something that lands in any code at any time (a timer, an
 * external interrupt, an IPI, a performance-monitor or NMI), as opposed
 * to an exception the code itself causes (page, hash and segment faults,
 * system calls, traps), which belongs to the code's path as it does on
 * hardware and under a debugger's single step.  ppc64 (book3s):
 * exc_real_0xVEC_NAME and exc_virt_0x4VEC_NAME of the vectors 0x100,
 * 0x200, 0x500, 0x900, 0x980, 0xa00, 0xe60, 0xe80, 0xea0, 0xf00; x86_64:
 * asm_common_interrupt, asm_spurious_interrupt, asm_sysvec_*, asm_exc_nmi,
 * asm_exc_machine_check. */
int tcg_is_async_vector(enum tcg_arch arch, const char *sym);

/* The plugin's arguments (-plugin lib.so,out=FILE,switch=0x...,...), as
 * QEMU's contrib/plugins/cache.c takes its own: every one is key=value,
 * every value is checked (numbers through util/parse_num.h, decimal or
 * 0x), and an unknown key or a malformed value is refused, so a typo
 * cannot quietly become 0 (switch=0 would never flush the user TLB). */
#define TCG_MAX_PATHS 64
#define TCG_MAX_EXC 64
#define TCG_MAX_PROFILES 8
struct tcg_args {
	const char *out, *map;       /* out=FILE (required), map=System.map */
	const char *record;          /* record=FILE: the raw code stream (tcg_record.h) */
	const char *path[TCG_MAX_PATHS];
	size_t npath;                /* path=FUNCTION, repeatable */
	uint64_t switch_addr;        /* switch=ADDR: where the guest changes
				      * address space; 0 = not given */
	uint64_t exc[TCG_MAX_EXC];   /* exc=ADDR, repeatable: where synchronous
				      * exceptions enter the kernel */
	size_t nexc;
	struct sim_config cfg;       /* l1i_size= ... fetch_block=: the first profile */
	/* profile=NAME starts one more CPU profile, modelled beside the first
	 * on the same blocks; the geometry keys after it are its own (from
	 * the defaults) */
	const char *more_name[TCG_MAX_PROFILES - 1];
	struct sim_config more[TCG_MAX_PROFILES - 1];
	size_t nmore;
};

/* Defaults (a Skylake-like front end), then argv[0..argc) over them.
 * Values point into argv.  0, or -EINVAL with the message set
 * (lace_error_set(): "switch: 'junk' is not a whole number"). */
int tcg_args_parse(int argc, char *const *argv, struct tcg_args *a);

#endif
