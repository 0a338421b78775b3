/* Randomized layouts for `lace build --shuffle K --seed S`: list every text
 * input section of the (-ffunction-sections) objects with libelf and write
 * a linker script that places them in a seeded order with seeded padding. */
#ifndef LACE_VARIANTS_SHUFFLE_H
#define LACE_VARIANTS_SHUFFLE_H

#include "util/strvec.h"

/* Write outpath: base_script with its "@lace-shuffle@" line replaced by
 * every text input section of the objects (names in objs, files under
 * objdir) in a splitmix64 permutation of (seed, index), each preceded by
 * 0..112 bytes of padding in 16-byte steps, so function alignment is kept
 * while cache-line placement changes.  0 or -errno with a message. */
int shuffle_write_script(const char *base_script, const struct strvec *objs,
			 const char *objdir, unsigned long long seed, unsigned index,
			 const char *outpath);

#endif
