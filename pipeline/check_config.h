/* lace check's configuration: an INI file (read with inih).
 *
 *   [check]    fail_on = error|warning|info|never   diff findings that fail
 *              inconclusive = pass|fail            an undecided gated event
 *              no_verdict = pass|fail              backend qemu: a primary event the
 *                                                  design cannot see (default pass, said)
 *              gate = EV,EV...                      events whose "slower" fails
 *              backend = auto|hw|sim
 *   [diff]     min_align, max_hot_growth, hot = FILE, rule.<id> = LEVEL,
 *              expect = KIND=REGEX                 repeatable (lace diff --expect)
 *   [ab]       rounds = N|auto, max_runs, max_time, warmup, confidence, margin,
 *              events = EV,EV..., seed, timeout; backend qemu (lace ab
 *              --same-execution): executions, draws, primary = EV,EV...,
 *              target = PCT, budget = S, family
 *   [margin]   <event> = PCT                        per-event margins
 *   [workload] run = 'CMD {elf} ARGS'               repeatable
 *
 * Command-line options override the file. */
#ifndef LACE_PIPELINE_CHECK_CONFIG_H
#define LACE_PIPELINE_CHECK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct check_margin {
	char *event;
	double margin; /* fraction: 0.01 = 1% */
};

struct check_config {
	/* [check] */
	char *fail_on;        /* diff --fail-on level */
	bool inconclusive_fails;
	bool no_verdict_fails;
	char *gate;           /* comma list; NULL = every measured event */
	char *backend;
	/* [diff] */
	char *min_align, *max_hot_growth, *hot;
	char **rules; size_t nrules;           /* "id=level" */
	char **expects; size_t nexpects;       /* "kind=regex", checked when set */
	/* [ab] */
	char *rounds, *max_runs, *max_time, *warmup, *confidence, *seed, *timeout;
	double margin;        /* default margin, fraction */
	char *events;
	/* backend qemu: lace ab --same-execution's design */
	char *executions, *draws, *primary, *target, *budget, *family;
	struct check_margin *margins; size_t nmargins;
	/* [workload] */
	char **workloads; size_t nworkloads;
};

void check_config_init(struct check_config *c);
void check_config_release(struct check_config *c);
/* Parse path into c (on top of what is there).  0, or a negative code with
 * lace_error_msg() saying "line N: ..." */
int check_config_load(struct check_config *c, const char *path);
/* Apply one "section.key=value" override (the CLI's --set). */
int check_config_set(struct check_config *c, const char *section, const char *key,
		     const char *value);
/* The margin (fraction) for event name, falling back to c->margin. */
double check_config_margin(const struct check_config *c, const char *event);
/* Is event gated (does "slower" on it fail the check)? */
bool check_config_gated(const struct check_config *c, const char *event);

#endif
