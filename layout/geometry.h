/* Geometry of a code range against cache lines, pages and fetch blocks.
 * Pure arithmetic, shared by the loader, lace diff and the tests. */
#ifndef LACE_LAYOUT_GEOMETRY_H
#define LACE_LAYOUT_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "layout/image.h"

/* Largest power of two dividing addr, capped at cap (a power of two);
 * address 0 is aligned to anything, so it gets cap. */
uint64_t geom_alignment(uint64_t addr, uint64_t cap);
/* Number of unit-sized blocks [addr, addr + size) touches; 0 for size 0. */
unsigned geom_span(uint64_t addr, uint64_t size, uint64_t unit);
/* The fewest blocks size bytes could touch: ceil(size / unit). */
unsigned geom_min_span(uint64_t size, uint64_t unit);
/* Touches more blocks than its size needs (a better placement exists). */
bool geom_straddles(uint64_t addr, uint64_t size, uint64_t unit);
/* Offset of addr within its fetch block (or line, or page). */
static inline unsigned geom_offset(uint64_t addr, uint64_t unit)
{
	return (unsigned)(addr & (unit - 1));
}
/* A geometry whose sizes are all non-zero powers of two, line <= page. */
bool geom_valid(const struct lace_geometry *g);

#endif
