/* Statistics over img->branches (filled by image_disassemble()):
 *  - the region-pair matrix: how many direct branches go from region A to
 *    region B (a branch to or from an address outside every region counts
 *    in the extra "outside" row/column), and the pairs that cross regions;
 *  - the histogram of direct jump-target offsets within the fetch block
 *    (img->geom.fetch): a hot target at offset 28 of a 32 B block wastes
 *    most of that fetch.
 * Kinds are selected by a mask of BRANCH_KIND_BIT(LACE_BR_*); only branches
 * with a known target count (thunk returns and indirect branches have none). */
#ifndef LACE_LAYOUT_BRANCH_STATS_H
#define LACE_LAYOUT_BRANCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "layout/image.h"

#define BRANCH_KIND_BIT(k) (1u << (k))
/* jumps whose targets start a fetch: jump + cond */
#define BRANCH_KINDS_JUMPS (BRANCH_KIND_BIT(LACE_BR_JUMP) | BRANCH_KIND_BIT(LACE_BR_COND))
/* every direct branch: jump + cond + call */
#define BRANCH_KINDS_DIRECT (BRANCH_KINDS_JUMPS | BRANCH_KIND_BIT(LACE_BR_CALL))

struct branch_matrix {
	size_t n;          /* img->nregions + 1: index n - 1 is "outside" */
	uint64_t *count;   /* n * n, count[from * n + to] */
	uint64_t total;    /* branches counted */
	uint64_t cross;    /* of those, from != to */
};

/* Fill m (release with branch_matrix_release) for the branches of the
 * selected kinds. */
void branch_matrix_compute(const struct lace_image *img, unsigned kinds, struct branch_matrix *m);
/* Count from region `from` to region `to`; -1 for outside every region. */
uint64_t branch_matrix_get(const struct branch_matrix *m, int from, int to);
void branch_matrix_release(struct branch_matrix *m);

struct branch_pair {
	int from, to;      /* region indices, -1 = outside */
	uint64_t count;
};
/* The non-zero pairs (only from != to when cross_only), by count
 * descending, then from, then to.  Returns how many; *out is malloc'ed. */
size_t branch_matrix_pairs(const struct branch_matrix *m, bool cross_only, struct branch_pair **out);

struct fetch_histogram {
	unsigned fetch;    /* block size, bytes (img->geom.fetch) */
	uint64_t *count;   /* [fetch]: branches whose target is at that offset */
	uint64_t total;
};
/* Fill h (release with fetch_histogram_release) for the selected kinds.
 * Returns 0, or -EINVAL when img->geom.fetch is not a power of two. */
int fetch_histogram_compute(const struct lace_image *img, unsigned kinds, struct fetch_histogram *h);
/* Share (0..1) of targets at offset >= from (the block's tail); 0 when empty. */
double fetch_histogram_tail_share(const struct fetch_histogram *h, unsigned from);
void fetch_histogram_release(struct fetch_histogram *h);

#endif
