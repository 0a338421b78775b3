/* Kernel-style tracepoints on top of static keys.
 *
 * A trace header declares events with
 *
 *   LACE_TRACE_EVENT(name,
 *       TP_PROTO(unsigned long ea, unsigned long trap),
 *       TP_ARGS(ea, trap),
 *       TP_FIELDS(__field(unsigned long, ea) __field(unsigned long, trap)),
 *       TP_printk("ea=%#lx trap=%#lx", __entry->ea, __entry->trap))
 *
 * which gives `trace_<name>(ea, trap)`.  Disabled, the call site is exactly
 * one 5-byte nop (a static_branch_unlikely() site); enabled, the nop becomes
 * a jmp to a block that calls the out-of-line slow path
 * `__trace_<name>_slow()`, which counts the hit, records the fields in the
 * optional ring buffer and fires the SDT probe `lace:<name>` (<sys/sdt.h>,
 * so `perf probe -x BIN sdt_lace:<name>`, bpftrace `usdt:BIN:lace:<name>` and
 * uprobes see it).  Each field's value is the argument of the same name.
 *
 * The trace header follows the kernel's pattern (see hashmmu/trace_hash.h):
 * guarded with `!defined(GUARD) || defined(LACE_TRACE_HEADER_MULTI_READ)`,
 * ending with `#define LACE_TRACE_INCLUDE "path.h"` and
 * `#include "probes/define_trace.h"`.  Exactly one .c file defines
 * LACE_CREATE_TRACE_POINTS before including it; that instantiates the
 * tracepoint objects and slow paths.
 *
 * Where the slow path's code goes is a build decision, never a code edit:
 *   (default)                    slow path is an ordinary function in .text,
 *                                the call block stays at the caller's tail;
 *   -DLACE_SLOWPATH_COLD         slow path is `cold` and lives in section
 *                                LACE_SLOWPATH_SECTION (".lace.cold.text"),
 *                                the call block goes to fn.cold;
 *   -DLACE_SLOWPATH_SECTION="s"  the same with another section name;
 *   -DLACE_NO_TRACEPOINTS        trace_<name>() compiles to nothing.
 *
 * Enabling: lace_trace_enable("name") or the environment variable
 * LACE_TRACE=name[,name...] (or "all"), read at start-up. */
#ifndef LACE_PROBES_TRACEPOINT_H
#define LACE_PROBES_TRACEPOINT_H

#include <stddef.h>
#include <stdio.h>

#include "probes/static_key.h"

struct lace_trace_ring;

struct lace_tracepoint {
	const char *name;
	struct static_key_false key;
	unsigned long hits;                 /* slow-path executions (atomic) */
	size_t rec_size;                    /* bytes of one record */
	void (*print)(FILE *f, const void *rec);
	struct lace_trace_ring *ring;       /* NULL: count only */
} __attribute__((aligned(64)));

/* LACE_PARAMS keeps a comma list one macro argument while it is passed on */
#define LACE_PARAMS(...) __VA_ARGS__
#define TP_PROTO(...) __VA_ARGS__
#define TP_ARGS(...) __VA_ARGS__
#define TP_FIELDS(...) __VA_ARGS__
#define TP_printk(fmt, ...) fmt, ##__VA_ARGS__

#if defined(LACE_SLOWPATH_COLD) && !defined(LACE_SLOWPATH_SECTION)
#define LACE_SLOWPATH_SECTION ".lace.cold.text"
#endif
#ifdef LACE_SLOWPATH_SECTION
#define LACE_SLOWPATH __attribute__((noinline, cold, section(LACE_SLOWPATH_SECTION)))
#else
#define LACE_SLOWPATH __attribute__((noinline))
#endif

#ifdef LACE_NO_TRACEPOINTS
#define __LACE_TRACE_EVENT_DECL(name, proto, args, fields, printk)          \
	static inline __attribute__((always_inline)) void trace_##name(proto) \
	{                                                                     \
	}
#else
#define __LACE_TRACE_EVENT_DECL(name, proto, args, fields, printk)          \
	extern struct lace_tracepoint __tracepoint_##name;                    \
	LACE_SLOWPATH void __trace_##name##_slow(proto);                      \
	static inline __attribute__((always_inline)) void trace_##name(proto) \
	{                                                                     \
		if (static_branch_unlikely(&__tracepoint_##name.key))         \
			__trace_##name##_slow(args);                          \
	}
#endif
/* define_trace.h redefines this while it instantiates, then restores it */
#define LACE_TRACE_EVENT(name, proto, args, fields, printk)                     \
	__LACE_TRACE_EVENT_DECL(name, LACE_PARAMS(proto), LACE_PARAMS(args),      \
				LACE_PARAMS(fields), LACE_PARAMS(printk))

/* ---- run-time API --------------------------------------------------- */

/* All tracepoints linked into this executable, NULL-free. */
struct lace_tracepoint *const *lace_trace_begin(void);
struct lace_tracepoint *const *lace_trace_end(void);
struct lace_tracepoint *lace_trace_find(const char *name);

/* Enable/disable one tracepoint by name: 0, or -ENOENT (unknown name) or
 * the static-key patching error. */
int lace_trace_enable(const char *name);
int lace_trace_disable(const char *name);
/* Enable a comma-separated list ("all" = every tracepoint); the format of
 * LACE_TRACE.  Returns the number enabled or -ENOENT naming the first
 * unknown one in lace_error_msg(). */
int lace_trace_enable_list(const char *list);
/* Read LACE_TRACE now (also done once by a constructor at start-up). */
int lace_trace_init_env(void);

/* Hit counter; -1UL for an unknown name. */
unsigned long lace_trace_hits(const char *name);
void lace_trace_reset(struct lace_tracepoint *tp);

/* Ring buffer of the last `nrec` records (power of two, rounded up);
 * 0 frees it.  Not to be changed while the tracepoint is enabled. */
int lace_trace_ring_alloc(struct lace_tracepoint *tp, size_t nrec);
/* Print the buffered records, oldest first, one line each with the
 * event's TP_printk format; returns how many. */
size_t lace_trace_ring_dump(struct lace_tracepoint *tp, FILE *f);
/* Used by the generated slow paths: a slot to fill, or NULL. */
void *lace_trace_ring_reserve(struct lace_tracepoint *tp);

#endif
