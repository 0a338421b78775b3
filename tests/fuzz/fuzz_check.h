/* Invariants of a loaded struct lace_image that every consumer (layout
 * output, diff) relies on; the harnesses abort when one breaks, so the
 * fuzzer reports a broken model as a finding, not only a crash. */
#ifndef LACE_FUZZ_CHECK_H
#define LACE_FUZZ_CHECK_H

#include "layout/image.h"

/* Walks every array, every index and every section's contents (so ASan sees
 * each byte the image claims to own); aborts with a message on a violation. */
void fuzz_check_image(struct lace_image *img);

#endif
