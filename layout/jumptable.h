/* Jump-label tables: the kernel's __jump_table and lace's own
 * __lace_jump_table (probes/), both arrays of 16-byte relative entries
 * { s32 code; s32 target; s64 key; }, each field relative to its own
 * address (HAVE_ARCH_JUMP_LABEL_RELATIVE).  The key's low two bits are
 * flags: bit 0 the branch polarity (default-true key), bit 1 "init" --
 * which the kernel sets at boot for sites in init text, but which x86
 * objtool already sets at build time on most sites (5,778 of 5,980 in the
 * Debian 6.1 vmlinux, of which 157 are in .init.text): so a site is init
 * when its code is in an init section (lace_jump_site.init), whatever the
 * bit says.  Kernels before HAVE_ARCH_JUMP_LABEL_RELATIVE stored absolute
 * { u64 code; u64 target; u64 key; }: such a table decodes to sites
 * outside the code and is reported with a warning, not listed. */
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
