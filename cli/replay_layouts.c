/* lace replay's checks of its inputs, which print (cli/replay_layouts.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/replay_layouts.h"
#include "layout/symkeys.h"
#include "util/error.h"
#include "measure/cpu_profile.h"
#include "measure/model_results.h"
#include "util/file_probe.h"
#include "util/xalloc.h"

/* The ELF whose addresses the recording holds (a kernel's boot image:
 * the vmlinux beside it), checked against the recorded build-id; NULL
 * after printing why. */
char *replay_recorded_elf(const char *file, const struct lace_record_build *b, const char *base_arg)
{
	char *src = base_arg ? xstrdup(base_arg)
			     : strcmp(b->role, "kernel") ? xstrdup(b->path) : symkeys_build_of(b->path);
	char id[81] = "";

	if (!src || symkeys_build_id(src, id, sizeof(id))) {
		lace_err(NULL, "%s (the recorded build)", lace_error_msg());
		free(src);
		return NULL;
	}
	if (b->build_id[0] && strcmp(b->build_id, id)) {
		if (base_arg)
			lace_err(base_arg, "not the recorded build (build-id %s; %s recorded build-id %s "
				 "of %s)", id[0] ? id : "none", file, b->build_id, b->path);
		else
			lace_err(b->path, "not the recorded build any more (build-id %s, recorded %s)",
				 id[0] ? id : "none", b->build_id);
		free(src);
		return NULL;
	}
	return src;
}

/* The layouts must be builds for the recorded build's machine. */
bool replay_same_machine(const char *own, const struct strvec *layouts)
{
	struct file_facts f, lf;

	if (file_probe(own, &f))
		return true;
	for (size_t l = 0; l < layouts->nr; l++)
		if (!file_probe(layouts->v[l], &lf) && lf.machine != f.machine) {
			lace_err(layouts->v[l], "an ELF for machine %u, the recorded build's is %u: "
				 "not a build of the same code", lf.machine, f.machine);
			return false;
		}
	return true;
}


/* The events asked for, as sim_event_index()es; a count or -1 (printed). */
int replay_events_parse(const char *events_arg, int *idx, int max)
{
	const char *def = "instructions,L1-icache-load-misses,iTLB-load-misses,stlb-misses,"
			  "fetch-blocks";
	char *copy = xstrdup(events_arg ? events_arg : def), *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = sim_event_index(tok);
		if (i < 0 || n == max) {
			lace_usage_error("replay", "-e %s: not an event the simulator counts", tok);
			free(copy);
			return -1;
		}
		idx[n++] = i;
	}
	free(copy);
	if (!n)
		lace_usage_error("replay", "-e: no event");
	return n ? n : -1;
}

/* --cpu-profile: another front end for the same stream; what the host
 * mapped with large pages (the guest's, not the core's) stays */
int replay_record_profile(struct lace_record *rec, const char *cpu_profile)
{
	struct sim_profile p;
	uint64_t lo = rec->cfg.large_lo, hi = rec->cfg.large_hi;

	if (sim_profile_load(cpu_profile, &p)) {
		lace_err("replay", "--cpu-profile %s: %s", cpu_profile, lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	rec->cfg = p.cfg;
	rec->cfg.large_lo = lo;
	rec->cfg.large_hi = hi;
	snprintf(rec->profile, sizeof(rec->profile), "%s", p.name);
	return 0;
}
