/* utf8: what lace does with bytes that are not UTF-8.
 *
 * Names in an ELF file, command lines and paths are bytes; JSON, XML and
 * Markdown are UTF-8 text.  The one rule, for every output format: a valid
 * UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF, the same test jansson applies) is copied as it is, and every
 * byte that does not begin one becomes U+FFFD (the replacement character,
 * EF BF BD), one per byte, so a reader sees where bytes were lost and a
 * valid name is never touched. */
#ifndef LACE_UTF8_H
#define LACE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Length (1 to 4) of the valid sequence that starts s[0], or 0 when s[0]
 * does not begin one within n bytes (n >= 1). */
size_t utf8_seq_len(const char *s, size_t n);
/* Whether all of s (NUL-terminated) is valid UTF-8. */
bool utf8_valid(const char *s);

#endif
