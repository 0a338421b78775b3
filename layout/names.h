/* Compiler suffixes on function names (GCC's .cold/.part/.isra/.constprop
 * clones, LLVM's .llvm.N) and how pieces are joined to their parent. */
#ifndef LACE_LAYOUT_NAMES_H
#define LACE_LAYOUT_NAMES_H

#include <stddef.h>

#include "layout/image.h"

/* Classify name's suffix chain and give the length of its base name (the
 * name with every compiler suffix removed).  A chain holding "cold" anywhere
 * is LACE_SUFFIX_COLD ("f.constprop.0.cold" is a cold piece); otherwise the
 * first suffix decides.  Names starting with '.' have no suffix. */
enum lace_suffix name_parse_suffix(const char *name, size_t *base_len);
/* Length of name with its last suffix step removed ("a.isra.0.cold" ->
 * "a.isra.0", "a.part.3" -> "a"); equals strlen(name) when there is none. */
size_t name_strip_last(const char *name);
/* "cold", "part", "isra", "constprop", "llvm", "other" or "" */
const char *suffix_name(enum lace_suffix s);

#endif
