/* Hot sets for lace diff: the functions whose footprint matters.
 *
 * A hot file names one function per line, optionally followed by a weight
 * (a non-negative number; default 1).  '#' starts a comment; blank lines are
 * skipped.  Names are matched against a function's symbol name or its
 * base_name (compiler suffixes removed), so "foo" covers "foo.isra.0"; .cold
 * pieces are never hot. */
#ifndef LACE_LAYOUT_HOTSET_H
#define LACE_LAYOUT_HOTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lace_hotset {
	char **names;
	double *weights;
	size_t n;
	void *index;   /* sorted view for lookups */
};

/* Parse hot-file text.  Returns 0, or -EINVAL with "line N: ..." set. */
int hotset_parse(const char *text, struct lace_hotset *hs);

/* Profiles as hot sets (layout/hotset_perf.c): the functions that took
 * samples, weighted by their share -- `perf report --stdio` (Self column)
 * and `perf script` (leaf frames, by period). */
enum hot_format { HOT_LIST, HOT_PERF_REPORT, HOT_PERF_SCRIPT };
enum hot_format hotset_detect(const char *text);
int hotset_parse_perf_report(const char *text, struct lace_hotset *hs);
int hotset_parse_perf_script(const char *text, struct lace_hotset *hs);

/* Read and parse path, in whichever of the formats above it is; the
 * message names the line, not the path. */
int hotset_load(const char *path, struct lace_hotset *hs);
void hotset_free(struct lace_hotset *hs);
/* Position in hs->names of name (or of base when name is absent), or -1. */
long hotset_find(const struct lace_hotset *hs, const char *name, const char *base);

/* Distinct line/page/2 MiB-page counts of address ranges.  Ranges are
 * [start[i], start[i] + size[i]); zero sizes are ignored. */
struct lace_span_count {
	size_t lines, pages, hugepages;
};
void ranges_count(const uint64_t *start, const uint64_t *size, size_t n,
		  unsigned line, unsigned page, uint64_t hugepage, struct lace_span_count *out);

/* The ranges as sorted, disjoint [first, last] unit numbers (addr / unit),
 * two uint64_t per interval; *nint intervals; caller frees. */
uint64_t *ranges_units(const uint64_t *start, const uint64_t *size, size_t n, uint64_t unit, size_t *nint);
/* Whether unit number u lies in one of the intervals. */
bool units_contain(const uint64_t *iv, size_t nint, uint64_t u);

#endif
