/* The generated handler code: the interface between the workloads and the
 * C files bench/gen_handlers.c writes at build time (never committed).
 *
 * Why it exists: a kernel's syscall and fault paths execute hundreds of KiB
 * of code, so a 32 KiB L1i and a 64-entry iTLB are under pressure and code
 * placement can matter.  A user-space model with a few KiB of code fits in
 * any cache and no layout could ever make a difference.  The generator
 * writes LACE_GEN_FILES C files holding `lace_gen_handler_count` handlers of
 * varied size, some calling shared helpers; the workloads call them, after
 * the entry stub, in a Zipf-skewed order (bench/zipf.h) so some code is hot,
 * much is warm and the rest is cold, as in a kernel. */
#ifndef LACE_BENCH_HANDLERS_H
#define LACE_BENCH_HANDLERS_H

#include <stdint.h>

/* How many .c files the generator writes (lace_handlers_0.c ..), plus one
 * lace_handlers_table.c.  Fixed so build rules need not read the output. */
#define LACE_GEN_FILES 4

/* The state a handler works on: a few words it mixes, so the compiler cannot
 * drop the code, and which makes every run's result checkable. */
struct gen_state {
	uint64_t r[4];
};

typedef uint64_t (*gen_handler_fn)(struct gen_state *s, uint64_t arg);

/* In generation order, which is also address order within each file. */
extern const gen_handler_fn lace_gen_handlers[];
extern const char *const lace_gen_handler_names[];
extern const unsigned lace_gen_handler_count;
/* The generator's arguments, for the record (the workloads print it). */
extern const char lace_gen_config[];

#endif
