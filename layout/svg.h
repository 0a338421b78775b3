/* The SVG layout map of lace diff: both images' code as strips of 4 KiB
 * pages coloured by region, hot pages outlined, functions that changed
 * region linked from their old page to their new one. */
#ifndef LACE_LAYOUT_SVG_H
#define LACE_LAYOUT_SVG_H

#include "layout/diff.h"
#include "util/strbuf.h"

void diff_svg_render(const struct lace_diff *d, struct strbuf *sb);

#endif
