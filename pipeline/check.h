/* lace check: the pre-merge gate for patches that move code.
 *
 * Runs `lace diff` (layout rules) and `lace ab` (per workload) on a base and
 * a head build, applies the configuration's thresholds and returns a report
 * (JSON, the single source the Markdown is rendered from) and a decision. */
#ifndef LACE_PIPELINE_CHECK_H
#define LACE_PIPELINE_CHECK_H

#include <jansson.h>
#include <stdbool.h>

#include "pipeline/check_config.h"
#include "util/strbuf.h"

enum check_decision {
	CHECK_PASS = 0,
	CHECK_FAIL = 1,
	CHECK_ERROR = 2, /* could not run */
};

struct check_opts {
	const char *base, *head;  /* ELF paths or built-in variant names */
	const char *variants_dir; /* where variant names are looked up */
	const char *results;      /* ab results file (JSON lines), or NULL: none */
	const char *svg;          /* layout map, or NULL */
	bool measure;             /* false: layout rules only (--no-measure) */
	struct check_config cfg;
};

/* Resolve a base/head argument: an existing file is itself; a variant name
 * gives <variants_dir>/<name>/hackbench.  Returns a malloc'd path or NULL
 * with lace_error_msg() set. */
char *check_resolve_elf(const char *arg, const char *variants_dir);

/* Run the check.  *report gets the JSON report (also on failure to measure,
 * with what was done); returns the decision. */
enum check_decision check_run(const struct check_opts *o, json_t **report);

/* Append a formatted {kind, reason} to reasons, or with kind NULL the bare
 * string (a note); the one way every part of lace check reports. */
void check_add_reason(json_t *reasons, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Render the report as a Markdown review comment. */
void check_render_md(const json_t *report, struct strbuf *out);

#endif
