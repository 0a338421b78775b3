/* Two events for test_tracepoint.c, declared the way a real trace header
 * is (see hashmmu/trace_hash.h). */
#if !defined(TEST_TRACEPOINT_EVENTS_H) || defined(LACE_TRACE_HEADER_MULTI_READ)
#define TEST_TRACEPOINT_EVENTS_H

#include "probes/tracepoint.h"

LACE_TRACE_EVENT(test_one,
	TP_PROTO(int a, unsigned long b),
	TP_ARGS(a, b),
	TP_FIELDS(__field(int, a) __field(unsigned long, b)),
	TP_printk("test_one: a=%d b=%lu", __entry->a, __entry->b))

LACE_TRACE_EVENT(test_two,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_FIELDS(__field(int, x)),
	TP_printk("test_two: x=%d", __entry->x))

#endif

#define LACE_TRACE_INCLUDE "tests/unit/test_tracepoint_events.h"
#include "probes/define_trace.h"
