/* lace ab --same-execution (issue 34): B's placement against A's, two
 * builds of one kernel, judged by the placement design
 * (pipeline/placement.h): executions of both recorded and replayed
 * through virtual layouts of both, paired.  This file checks what the
 * comparison needs before anything boots. */
#ifndef LACE_PIPELINE_AB_SAME_H
#define LACE_PIPELINE_AB_SAME_H

#include "pipeline/placement.h"
#include "util/strvec.h"

#define AB_SAME_DEFAULT_EVENTS "instructions:k,L1-icache-load-misses:k,iTLB-load-misses:k," \
			       "instructions:u,L1-icache-load-misses:u,iTLB-load-misses:u"

/* Each event a simulator's event, with no side or :k / :u; 0 or -EINVAL
 * naming the first that is not. */
int ab_same_events_check(const struct strvec *events);

/* A's and B's ELFs for spec (each boot image's, or the vmlinux beside
 * it: symkeys_build_of()), and B a build of A's code (half of A's
 * functions at least, by name): before anything boots.  The ELF paths
 * are malloc'd into spec->elf (the caller frees them).  0, or -EINVAL
 * with the message set. */
int ab_same_prepare(struct placement_spec *spec);

#endif
