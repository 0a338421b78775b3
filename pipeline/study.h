/* lace study: the built-in case study end to end.
 *
 * Builds every placement variant and K randomized-layout builds of baseline
 * (lace build), diffs each variant against baseline (lace diff), measures
 * the workloads on each (lace stat / lace ab, hardware counters when the CPU
 * has icache/iTLB events, else the simulator) and makes the four readings
 * (the study's four items, one per review thread of design.md) in
 * build/study/{report.md,report.html,results.json}.  Every
 * number in the report comes from a command run in this study. */
#ifndef LACE_PIPELINE_STUDY_H
#define LACE_PIPELINE_STUDY_H

#include <stdarg.h>

#include <jansson.h>
#include <stdbool.h>

#include "pipeline/progress.h"

struct study_opts {
	const char *out_dir;   /* build/study */
	const char *backend;   /* auto | hw | sim */
	bool quick;
	unsigned shuffle;      /* randomized builds of baseline (K) */
	unsigned long seed;
	study_progress_fn *progress;  /* each step as it ends; NULL: quiet */
	void *progress_data;
	int jobs;              /* simulator runs at once (its counts do not depend on it) */
	bool keep_variants;    /* reuse OUT/variants when present (--no-build) */
};

/* Run the study; *results gets the results object (also on partial
 * failure: what could not be measured says why).  Returns 0, or a negative
 * code when nothing useful could be produced (message set). */
int study_run(const struct study_opts *o, json_t **results);

/* Write report.md and report.html for results into dir. */
int study_write_reports(const json_t *results, const char *dir);
/* Markdown (the reports' subset: headings, paragraphs, lists, tables,
 * indented code blocks as <pre>, `code`, **bold**) as HTML, appended to
 * out; lace study --kernel's report uses it too (study_html.c). */
struct strbuf;
void study_md_to_html(struct strbuf *out, const char *md);
/* The reports' HTML head (title, the shared style), up to <body>. */
void study_html_head(struct strbuf *html, const char *title);
/* DIR/report.md, DIR/report.html (html is the body after the head, the
 * closing tags added here) and DIR/results.json: 0, or -errno with the
 * message set.  Both studies write their reports through it. */
int study_write_files(const char *dir, const char *title, const struct strbuf *md,
		      const struct strbuf *html_body, const json_t *results);
/* The terminal summary. */
void study_print_summary(const json_t *results, FILE *f);

#endif
