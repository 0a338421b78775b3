/* The studies' progress lines (pipeline/progress.h), printed here because
 * only cli/ prints. */
#ifndef LACE_CLI_PROGRESS_H
#define LACE_CLI_PROGRESS_H

#include "pipeline/progress.h"

/* data: the command's name.  On a terminal one live line, rewritten;
 * otherwise (a log, CI) one line per step, so a long run is never silent. */
void cli_progress(void *data, const struct study_progress *p);
/* Clear the live line, if one is shown. */
void cli_progress_end(void);

#endif
