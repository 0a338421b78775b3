/* Event names in perf's spelling, parsed into struct lace_event_spec.
 *
 *   generic     cycles, instructions, branch-misses, ...
 *   cache       L1-icache-loads, L1-icache-load-misses, iTLB-loads, LLC-store-misses, ...
 *   software    task-clock, page-faults, context-switches, cpu-migrations, ...
 *   tool        duration_time (the run's wall clock in ns, as perf's)
 *   tracepoint  sys:name, probe:NAME, sdt_prov:NAME  (id from tracefs)
 *   raw         rNNNN (hex)
 *   pmu         pmu/config=0x..,config1=..,event=..,umask=../  (sysfs format/ and events/)
 *   native      names libpfm4 knows on this CPU (INST_RETIRED.ANY_P)
 *   modifiers   :u :k :h (and combinations), as perf: a modifier selects
 *               what is counted, everything else excluded
 *   groups      {a,b} opens a and b as one group
 *
 * A plain identifier nothing above knows is kept as LACE_EV_SIM_ONLY so the
 * simulator may claim it (fetch-blocks); backend_select() rejects it when no
 * backend does. */
#ifndef LACE_MEASURE_EVENTS_H
#define LACE_MEASURE_EVENTS_H

#include <stddef.h>

#include "measure/backend.h"

struct lace_event_list {
	struct lace_event_spec *ev;
	size_t n, alloc;
	int ngroups;
};

/* Parse a comma-separated list (a -e argument) and append to list.
 * Returns 0 or -errno with the message naming the bad event. */
int events_parse(struct lace_event_list *list, const char *spec);
/* Parse one event (no commas at top level) into ev; 0 or -errno. */
int event_parse_one(struct lace_event_spec *ev, const char *name);
/* After parsing: put the hardware events that are not in an explicit
 * {group} into one group, as perf does not but as a fair comparison of
 * ratios (misses/loads) needs. */
void events_group_hardware(struct lace_event_list *list);
void events_release(struct lace_event_list *list);
void event_spec_release(struct lace_event_spec *ev);

/* The default list of `lace stat` without -e (perf's software defaults
 * plus the hardware ones). */
extern const char events_default_list[];

/* Where tracefs is mounted: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; NULL when neither has events/. */
const char *events_tracefs(void);
/* kernel.perf_event_paranoid into *level; false, *level untouched, when
 * /proc/sys/kernel/perf_event_paranoid cannot be read (the kernel's
 * default is 2: pass that as the fallback where a value is needed). */
bool events_paranoid(int *level);

#endif
