/* Carrying a recorded build's addresses over to a layout (replay.c's
 * part that reads the tables replay.h describes): each address of a piece
 * of the recorded build goes to the same offset in that piece in the
 * layout. */
#ifndef LACE_MEASURE_REPLAY_CARRY_H
#define LACE_MEASURE_REPLAY_CARRY_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/replay/replay.h"

struct rp_carry {
	const struct replay_layout *lay;
	int32_t *map;          /* per old piece: the new one, or -1 */
	int64_t *shift;        /* per old piece: new - old start of it or its
				* nearest mapped predecessor */
	/* a user-space object: where the stream's MAP record put it */
	bool have_map;
	uint64_t bias, map_start, map_size;
};

/* How an address was carried over */
enum { CL_EXACT, CL_APPROX, CL_OUTSIDE };

/* Fill c's tables for layout l (c->have_map false). */
void carry_prepare(struct rp_carry *c, const struct replay_layout *l);
void carry_free(struct rp_carry *c);
/* Carry runtime address a over to the layout: *cls says how, *fn is the
 * old piece (-1: none), *first whether a is that piece's first byte. */
uint64_t carry_addr(const struct rp_carry *c, uint64_t a, int *cls, long *fn, bool *first);

#endif
