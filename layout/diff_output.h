/* Renderings of a lace_diff: text (one-screen summary, then details), JSON
 * (jansson; field names documented in doc/lace-diff.1), CSV (the stable
 * function table), Markdown (paste-ready) and the SVG layout map.  Each
 * appends to a strbuf; only cli/ writes it out. */
#ifndef LACE_LAYOUT_DIFF_OUTPUT_H
#define LACE_LAYOUT_DIFF_OUTPUT_H

#include <stdbool.h>

#include "layout/diff.h"
#include "util/strbuf.h"

struct lace_diff_print_opts {
	bool all;        /* also list functions that merely shifted, and unchanged jump sites */
	const char *hot_source; /* "--hot FILE" name, or NULL for the default hot set */
};

/* "add/remove: a/r grow/shrink: g/s up/down: u/-d (net)", as bloat-o-meter prints it. */
void diff_bloat_line(const struct lace_bloat *b, struct strbuf *sb);

void diff_output_text(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb);
/* Returns 0, or -ENOMEM when jansson fails. */
int diff_output_json(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb);
void diff_output_csv(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb);
/* `scripts/bloat-o-meter -t OLD NEW`'s output, byte for byte. */
void diff_output_bloat(const struct lace_diff *d, struct strbuf *sb);
void diff_output_md(const struct lace_diff *d, const struct lace_diff_print_opts *o, struct strbuf *sb);

/* Rows of the CSV table for one function: the change names it is listed
 * under (several rows for several changes; "shifted" only with all). */
size_t diff_func_rows(const struct lace_func_delta *f, bool all, const char **names, size_t max);

#endif
