/* Jump-label tables: the kernel's __jump_table and lace's own
 * __lace_jump_table (probes/), both arrays of 16-byte relative entries
 * { s32 code; s32 target; s64 key; }, each field relative to its own
 * address (HAVE_ARCH_JUMP_LABEL_RELATIVE).  The key's low two bits are
 * flags: bit 0 the branch polarity (default-true key), bit 1 init text. */
#ifndef LACE_LAYOUT_JUMPTABLE_H
#define LACE_LAYOUT_JUMPTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "layout/image.h"

#define LACE_JUMP_ENTRY_SIZE 16
#define LACE_JUMP_FLAG_BRANCH 1u
#define LACE_JUMP_FLAG_INIT   2u

/* Decode the entry at bytes e, which lives at address entry_addr; fills
 * code, target, key and key_flags of *site (nothing else). */
void jump_entry_decode(const uint8_t *e, uint64_t entry_addr, bool big_endian,
		       struct lace_jump_site *site);

#endif
