/* Small self-contained SVG charts for the study report: one row per
 * variant (a bar from zero, or a dot on a zoomed axis when bars from zero
 * would hide the differences) with a shaded band for the layout noise
 * floor.  Every row is drawn. */
#ifndef LACE_PIPELINE_SVGPLOT_H
#define LACE_PIPELINE_SVGPLOT_H

#include <stddef.h>

#include "util/strbuf.h"

struct svgplot_bar {
	const char *label;
	double value;     /* NaN: not measured (drawn as a note) */
	const char *note; /* short text after the value, or NULL */
};

struct svgplot {
	const char *title;
	const char *unit;       /* axis/value unit, e.g. "misses" */
	struct svgplot_bar *bars;
	size_t nbars;
	double band_low;        /* noise band [low, high] in value units; */
	double band_high;       /* NaN = no band */
	const char *band_label;
};

/* Append an <svg> element (no XML prolog, so it can be inlined in HTML).
 * Each row's mark carries data-label and data-value (class bar, dot, or
 * missing for a NaN) so a test can check the picture against its table. */
void svgplot_bars(struct strbuf *out, const struct svgplot *p);

#endif
