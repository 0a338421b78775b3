/* lace ab --same-execution: the options cmd_ab.c parses for it, and the
 * command itself (cli/ab_same.c; the work is pipeline/ab_same.c's). */
#ifndef LACE_CLI_AB_SAME_H
#define LACE_CLI_AB_SAME_H

#include <stdbool.h>

#include "measure/ab_run.h"
#include "util/parse_options.h"
#include "util/strvec.h"

struct ab_same_cli {
	bool on;                /* --same-execution */
	bool seen;              /* one of the options below was given */
	long executions, draws; /* 0: the pilot chooses */
	long aa_trials;         /* --aa-trials */
	const char *family, *pad_points, *primary;
	double target;          /* percent */
	double budget;          /* seconds */
	bool aa, a_only;
};

/* the options' values (lace ab's table writes them) */
extern struct ab_same_cli ab_same;
void ab_same_cli_init(void);
/* the options of --same-execution, in lace ab's table */
const struct lace_option *ab_same_options(void);
/* After lace ab's options (session_cli holds the backend, -e and the
 * format; plan the seed, margin and confidence): check them, run, print.
 * argv: the workload (after --), NULL-terminated.  The exit status. */
int ab_same_main(const struct ab_plan *plan, char **argv);

#endif
