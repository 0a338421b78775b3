/* The known layout spread of lace ab / lace compare --layout-noise: the
 * sd of an event across layouts of one build (relinks, randomized-layout
 * builds), as a fraction, for every event (--layout-noise PCT) or per
 * event (--layout-noise EVENT=PCT, repeatable; an event named gets its
 * own, the others the PCT given alone, if any).  Per event because
 * layouts move events unequally: a relink moves L1i misses by percents
 * and the instructions retired hardly at all.
 *
 * stats_ratio_fold() folds it into an interval between two builds. */
#ifndef LACE_MEASURE_LAYOUT_NOISE_H
#define LACE_MEASURE_LAYOUT_NOISE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/strbuf.h"

struct layout_noise {
	double all;            /* every event not named; 0: none */
	size_t n;
	struct layout_noise_event {
		char *event;
		double sd;
	} *v;
};

/* One --layout-noise argument: PCT or EVENT=PCT (split at the last '=',
 * as perf's own event syntax has '=' in it), PCT in (0, 100).  0, or
 * -EINVAL with the message set. */
int layout_noise_parse(struct layout_noise *ln, const char *arg);
void layout_noise_release(struct layout_noise *ln);
bool layout_noise_any(const struct layout_noise *ln);
/* The spread of event (a fraction), 0 when none is known. */
double layout_noise_of(const struct layout_noise *ln, const char *event);
/* "2.5%" or "L1-icache-load-misses 2.5%, others 1%" */
void layout_noise_describe(const struct layout_noise *ln, struct strbuf *sb);

/* {"*": all, EVENT: sd ...} (only what is known), or null when nothing
 * is; and back (a number alone is "*"). */
json_t *layout_noise_json(const struct layout_noise *ln);
void layout_noise_from_json(struct layout_noise *ln, const json_t *j);

#endif
