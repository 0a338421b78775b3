/* lace replay's checks of its inputs (cli/replay_layouts.c); its layouts
 * are pipeline/replay_plan.h's. */
#ifndef LACE_CLI_REPLAY_LAYOUTS_H
#define LACE_CLI_REPLAY_LAYOUTS_H

#include <stdbool.h>

#include "measure/replay/record_file.h"
#include "pipeline/replay_plan.h"
#include "util/strvec.h"

/* The ELF whose addresses the recording (file) holds: base_arg, or the
 * recorded build's (a kernel's boot image: the vmlinux beside it),
 * checked against the recorded build-id; NULL after printing why. */
char *replay_recorded_elf(const char *file, const struct lace_record_build *b, const char *base_arg);
/* The layouts are builds for the recorded build's machine; false after
 * printing why. */
bool replay_same_machine(const char *own, const struct strvec *layouts);

/* -e's events (default: the model's five), as sim_event_index()es into
 * idx (at most max); a count, or -1 after printing why. */
int replay_events_parse(const char *events_arg, int *idx, int max);
/* --cpu-profile NAME: the recording replayed on that profile's front end
 * (what the host mapped with large pages stays); 0 or the exit status
 * after printing why. */
int replay_record_profile(struct lace_record *rec, const char *cpu_profile);

#endif
