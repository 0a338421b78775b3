/* lace ab --same-execution: the options cmd_ab.c parses for it, and the
 * command itself (cli/ab_same.c; the work is pipeline/ab_same.c's). */
#ifndef LACE_CLI_AB_SAME_H
#define LACE_CLI_AB_SAME_H

#include <stdbool.h>

#include "util/strvec.h"

struct ab_same_cli {
	bool on;                /* --same-execution */
	const char *noise_dir;  /* --noise-layouts DIR */
	struct strvec noise;    /* --noise-layout ELF, repeatable */
};

/* After lace ab's options (session_cli holds the backend, -e and the
 * format): check them, run, print.  argv: the workload (after --),
 * NULL-terminated.  The exit status. */
int ab_same_main(struct ab_same_cli *c, char **argv);

#endif
