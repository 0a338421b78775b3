/* The lace-placement document (pipeline/placement.h) as text (lace ab
 * --same-execution) and as Markdown (lace check, the kernel study):
 * pipeline/placement_render.c. */
#ifndef LACE_PIPELINE_PLACEMENT_RENDER_H
#define LACE_PIPELINE_PLACEMENT_RENDER_H

#include <stdio.h>

#include <jansson.h>

#include "util/strbuf.h"

void placement_render_text(FILE *f, const json_t *doc);
void placement_render_md(struct strbuf *sb, const json_t *doc);

#endif
