/* Function matching between two images (lace diff).
 *
 * A function is identified by its base name (compiler suffixes such as
 * .isra.N, .constprop.N, .llvm.N removed) plus its piece class (the main
 * body, a .cold piece, a .part piece), and for local symbols the STT_FILE
 * in force.  Within one identity, equal symbol names pair first (statics of
 * one file in static_ordinal order), then what is left pairs in address
 * order, so "foo" -> "foo.isra.0" is a match, not removed + added.  Locals
 * left unpaired get a second chance without the file (a function that
 * became static, or a file name that changed).  Marker symbols are never
 * matched nor reported. */
#ifndef LACE_LAYOUT_MATCH_H
#define LACE_LAYOUT_MATCH_H

#include <stdbool.h>

#include "layout/image.h"

#define LACE_MATCH_NONE   (-1) /* no partner: added or removed */
#define LACE_MATCH_MARKER (-2) /* marker symbol: ignored */

/* Fill old_to_new[old->nfuncs] and new_to_old[new->nfuncs] with the partner
 * index, LACE_MATCH_NONE or LACE_MATCH_MARKER. */
void funcs_match(const struct lace_image *old, const struct lace_image *new,
		 int *old_to_new, int *new_to_old);

/* A region start/end marker or another linker-script label with no size
 * (__*_start, __*_end, __start_*, __stop_*, _stext, _etext ...). */
bool func_is_marker(const struct lace_image *img, int idx);

#endif
