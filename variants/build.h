/* The `lace build` driver: the handler generator (a host tool, built and
 * run once), every distinct flag set's objects compiled once, every
 * variant's programs linked with its script, all in parallel job pools
 * (util/run.h) whose children log to OUT/<variant>/build.log. */
#ifndef LACE_VARIANTS_BUILD_H
#define LACE_VARIANTS_BUILD_H

#include <stddef.h>

#include "variants/config.h"
#include "variants/plan.h"

/* After each job of a phase ("compiling", "linking") and once at its end. */
typedef void variants_progress_fn(void *data, const char *phase, size_t done, size_t total,
				  int end);

struct variants_build {
	const struct variants_config *cfg;
	struct plan *plan;
	const char *cc;               /* the compiler command */
	int jobs;                     /* parallel jobs, >= 1 */
	variants_progress_fn *progress;  /* NULL: none */
	void *progress_data;
	char *out;                    /* the output folder, a real path */
	char *compiler;               /* first line of `cc --version`, else cc */
};

/* Make the output folder, set every variant's folders under it and ask the
 * compiler its version.  0 or -errno ("cannot create the output folder"). */
int variants_build_start(struct variants_build *b, const char *out);
/* Run the generator, compile, link.  0 or -errno naming what failed (and
 * its log). */
int variants_build_run(struct variants_build *b);
/* Write OUT/<variant>/manifest.json (variants/manifest.c). */
int variants_write_manifest(const struct variants_build *b, const struct plan_variant *v);
void variants_build_release(struct variants_build *b);

#endif
