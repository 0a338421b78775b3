/* The hash MMU tracepoints (arch/powerpc/include/asm/trace.h upstream:
 * TRACE_EVENT(hash_fault, TP_PROTO(unsigned long addr, unsigned long
 * access, unsigned long trap), ...)).  hash_utils.c instantiates them. */
#if !defined(LACE_TRACE_HASH_H) || defined(LACE_TRACE_HEADER_MULTI_READ)
#define LACE_TRACE_HASH_H

#include "probes/tracepoint.h"

LACE_TRACE_EVENT(hash_fault,
	TP_PROTO(unsigned long addr, unsigned long access, unsigned long trap),
	TP_ARGS(addr, access, trap),
	TP_FIELDS(__field(unsigned long, addr) __field(unsigned long, access)
		  __field(unsigned long, trap)),
	TP_printk("hash_fault: addr=0x%lx access=0x%lx trap=0x%lx",
		  __entry->addr, __entry->access, __entry->trap))

#endif

#define LACE_TRACE_INCLUDE "hashmmu/trace_hash.h"
#include "probes/define_trace.h"
