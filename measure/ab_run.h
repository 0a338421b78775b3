/* lace ab's batch: A and B in randomized rounds through the session
 * (measure/session.h), the analysis of measure/stats/ab.c deciding when
 * `-r auto` may stop. */
#ifndef LACE_MEASURE_AB_RUN_H
#define LACE_MEASURE_AB_RUN_H

#include "measure/build_scope.h"
#include "measure/session.h"

struct ab_plan {
	const char *cmd_a, *cmd_b; /* run with /bin/sh -c */
	long rounds, warmup;
	bool autorounds;	   /* -r auto: until every event is decided ... */
	long max_runs;		   /* ... or this many rounds ... */
	double max_time;	   /* ... or this many seconds */
	double margin, confidence; /* fractions */
	unsigned long seed;
	bool seed_given;	   /* else from the clock and pid */
	char *owned_a, *owned_b;   /* commands made by ab_plan_workload() */
	char *const *argv;         /* lace ab -- CMD ARGS: A and B both run it (an
				    * A/A comparison, or --kernel-a/--kernel-b
				    * with --backend qemu); cmd_a/cmd_b say it */
	const char *elf_a, *elf_b; /* --base/--head: the builds A and B run */
	struct layout_noise layout_noise; /* --layout-noise: sd across layouts */
};

/* Defaults: 10 rounds, 1 warmup, auto budget 200 rounds / 600 s, margin
 * 1 %, confidence 95 %. */
void ab_plan_init(struct ab_plan *p);
/* --base ELF --head ELF --workload 'CMD {elf}': A and B are the workload
 * with {elf} replaced by each (shell-quoted) path; both must be
 * executable.  -errno with the message set. */
int ab_plan_workload(struct ab_plan *p, const char *base, const char *head, const char *workload);
/* -- CMD ARGS: both sides run argv (kept, not copied). */
void ab_plan_same(struct ab_plan *p, char *const *argv);
void ab_plan_release(struct ab_plan *p);

/* Whether A and B run one build (measure/build_scope.h): the kernels
 * (--kernel-a/--kernel-b, --kernel: images compared by build-id or
 * content), the ELFs of --base/--head, else the commands (one command on
 * both sides is one build; two different -A/-B commands: unknown). */
void ab_scope(const struct lace_session *s, const struct ab_plan *p, struct build_scope *sc);

/* The batch record with its header (commands, seed, rounds, margin, the
 * scope as "builds" and the layout spread as "layout_noise"), and the
 * results file: 0 or -errno as session_results_open(). */
int ab_begin(struct lace_session *s, struct ab_plan *p);
/* The rounds: each runs A and B in random order (seeded); warmup rounds
 * first; with autorounds, from round 5 on, stop once every event is
 * decided.  Then the end line.  0, or the backend failure (s->err). */
int ab_run(struct lace_session *s, const struct ab_plan *p);
/* session_status(), else 1 with the message set when fewer than 2 rounds
 * ran both A and B cleanly, else 0. */
int ab_exit_status(const struct lace_session *s);

#endif
