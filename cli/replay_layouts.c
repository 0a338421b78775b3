/* lace replay's checks of its inputs, which print (cli/replay_layouts.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/replay_layouts.h"
#include "layout/symkeys.h"
#include "util/error.h"
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

