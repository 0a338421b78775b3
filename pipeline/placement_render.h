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
/* One result's pieces, as every report of the design says them (the
 * model study's reading 4 too): its effect "+1.17% [+0.40%, +1.94%]"
 * from effect_percent and ci_low/high_percent, and its verdict: "slower",
 * "equivalent within +-1%" (margin_percent), "no verdict possible:
 * smallest detectable effect 3.20%" (mde_percent), or "(estimate)" for an
 * event without one. */
void placement_render_effect(struct strbuf *sb, const json_t *result);
void placement_render_verdict(struct strbuf *sb, const json_t *result);

#endif
