/* lace ab --same-execution: two builds of one kernel compared on one
 * execution (design.md, "Same execution, two noises").  Two boots of two
 * builds are two executions (a binary that moves moves when the timer
 * interrupts land), so instead of booting B this records one boot of A
 * (`lace stat --backend qemu --record`) and replays it (`lace replay`)
 * through A's own build (which must give the live counts), B's and each
 * relink of A given as placement noise; each event's B - A is ranked
 * among the relinks' differences from A (two-sided, stats_rank_p), the
 * events Holm-adjusted together (stats_holm).  lace runs itself for both
 * steps (pipeline/selfexec.h), as the kernel study does. */
#ifndef LACE_PIPELINE_AB_SAME_H
#define LACE_PIPELINE_AB_SAME_H

#include <jansson.h>

#include "util/strvec.h"

#define AB_SAME_DEFAULT_EVENTS "instructions:k,L1-icache-load-misses:k,iTLB-load-misses:k," \
			       "instructions:u,L1-icache-load-misses:u,iTLB-load-misses:u"

struct ab_same_opts {
	const char *kernel_a, *kernel_b;  /* as given: a bzImage or a vmlinux */
	const char *map_a;                /* A's System.map, or NULL */
	struct strvec events;             /* lace stat's names: EVENT, EVENT:k, EVENT:u */
	struct strvec noise;              /* the relinks' vmlinux files */
	struct strvec stat_opts;          /* passed to lace stat as they are */
	char *const *argv;                /* the workload, in the guest */
};

/* Each event a simulator's event, with no side or :k / :u; 0 or -EINVAL
 * naming the first that is not. */
int ab_same_events_check(const struct strvec *events);
/* Append DIR/SUB/vmlinux of each subfolder SUB that holds one (in
 * version order: shuffle-2 before shuffle-10); 0, or -ENOENT / -ENOTDIR
 * with the message set when there is none. */
int ab_same_noise_dir(const char *dir, struct strvec *out);

/* The comparison: the document `lace ab --same-execution --json` prints
 * (schema lace-ab-same) in *out.  0, or -errno with one line set: -EIO
 * when A's boot failed (the run failed), -EINVAL for bad input (B not a
 * build of the same code: lace replay's refusal, passed on). */
int ab_same_run(const struct ab_same_opts *o, json_t **out);

#endif
