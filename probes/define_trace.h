/* Instantiate the tracepoints of one trace header (the kernel's
 * include/trace/define_trace.h, cut down).  A trace header ends with
 *     #define LACE_TRACE_INCLUDE "dir/trace_x.h"
 *     #include "probes/define_trace.h"
 * In the one .c file that defines LACE_CREATE_TRACE_POINTS first, this file
 * re-reads the header twice with LACE_TRACE_EVENT redefined: once to
 * declare each event's record struct, once to emit the tracepoint object,
 * its registration pointer and the slow path.  Elsewhere it does nothing. */
#if defined(LACE_CREATE_TRACE_POINTS) && !defined(LACE_NO_TRACEPOINTS)
#undef LACE_CREATE_TRACE_POINTS

#ifndef SDT_USE_VARIADIC
#define SDT_USE_VARIADIC 1  /* for STAP_PROBEV */
#endif
#include <sys/sdt.h>

#define LACE_TRACE_HEADER_MULTI_READ

/* pass 1: struct lace_trace_rec_<name> { fields } */
#undef LACE_TRACE_EVENT
#undef __field
#define __field(type, item) type item;
#define LACE_TRACE_EVENT(ev, proto, args, fields, printk) \
	struct lace_trace_rec_##ev {                       \
		fields                                       \
	};
#include LACE_TRACE_INCLUDE

/* pass 2: the tracepoint, its entry in __lace_tracepoints, the slow path.
 * The SDT probe goes through one more macro so TP_ARGS() is expanded
 * before STAP_PROBEV counts the arguments. */
#undef LACE_TRACE_EVENT
#undef __field
#define __field(type, item) __entry->item = item;
#define __LACE_SDT(provider, name, ...) STAP_PROBEV(provider, name, __VA_ARGS__)
#define LACE_TRACE_EVENT(ev, proto, args, fields, printk)                         \
	static void __lace_print_##ev(FILE *f, const void *rec__)                   \
	{                                                                             \
		const struct lace_trace_rec_##ev *__entry = rec__;                  \
		fprintf(f, printk);                                                   \
		fputc('\n', f);                                                       \
	}                                                                             \
	struct lace_tracepoint __tracepoint_##ev = {                                \
		.name = #ev,                                                        \
		.key = { .key = STATIC_KEY_INIT_FALSE },                              \
		.rec_size = sizeof(struct lace_trace_rec_##ev),                     \
		.print = __lace_print_##ev,                                         \
	};                                                                            \
	static struct lace_tracepoint *const __lace_tp_ptr_##ev                     \
		__attribute__((used, section("__lace_tracepoints"))) = &__tracepoint_##ev; \
	LACE_SLOWPATH void __trace_##ev##_slow(proto)                               \
	{                                                                             \
		struct lace_trace_rec_##ev *__entry;                                \
		__atomic_fetch_add(&__tracepoint_##ev.hits, 1, __ATOMIC_RELAXED);   \
		__entry = lace_trace_ring_reserve(&__tracepoint_##ev);              \
		if (__entry) {                                                        \
			fields                                                        \
		}                                                                     \
		__LACE_SDT(lace, ev, args);                                         \
	}
#include LACE_TRACE_INCLUDE

#undef __field
#undef LACE_TRACE_EVENT
#define LACE_TRACE_EVENT(ev, proto, args, fields, printk)                      \
	__LACE_TRACE_EVENT_DECL(ev, LACE_PARAMS(proto), LACE_PARAMS(args),      \
				LACE_PARAMS(fields), LACE_PARAMS(printk))
#undef LACE_TRACE_HEADER_MULTI_READ
#endif
