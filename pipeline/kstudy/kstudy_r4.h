/* Reading 4 of the kernel study in its reports (kstudy_r4_report.c): the
 * same-execution replays, the verdicts and the execution noise that
 * kstudy_r4.c stored in results.json. */
#ifndef LACE_PIPELINE_KSTUDY_R4_H
#define LACE_PIPELINE_KSTUDY_R4_H

#include <stdio.h>

#include <jansson.h>

#include "util/strbuf.h"

/* the report's section (markdown) */
void kstudy_r4_section(struct strbuf *sb, const json_t *res);
/* the chart: every layout's replayed kernel L1i misses, the relinks' band */
void kstudy_r4_figure(struct strbuf *html, const json_t *res);
/* the terminal's lines: the verdicts */
void kstudy_r4_summary(const json_t *res, FILE *f);

#endif
