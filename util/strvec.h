/* strvec: a growable, NULL-terminated array of owned strings, for building
 * argv lists (after git's strvec.h).  Every push copies; nothing is ever
 * cut short to fit a fixed buffer. */
#ifndef LACE_STRVEC_H
#define LACE_STRVEC_H

#include <stddef.h>

struct strvec {
	const char **v;   /* v[nr] is NULL once anything was pushed */
	size_t nr;
	size_t alloc;
};

extern const char *strvec_empty[];
#define STRVEC_INIT { strvec_empty, 0, 0 }

void strvec_init(struct strvec *sv);
/* Append a copy of s; returns the copy. */
const char *strvec_push(struct strvec *sv, const char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append every element of v (NULL-terminated). */
void strvec_pushv(struct strvec *sv, const char **v);
/* Append each word of s split at spaces and tabs (s may be NULL). */
void strvec_split(struct strvec *sv, const char *s);
/* Insert copies of items (NULL-terminated) before the first element
 * equal to mark, or at the end when there is none: an option put before
 * a command line's "--". */
void strvec_insert_before(struct strvec *sv, const char *mark, const char *const *items);
/* Index of the first element equal to s, or -1. */
long strvec_find(const struct strvec *sv, const char *s);
/* Free every element and the array; sv is empty and reusable after. */
void strvec_clear(struct strvec *sv);

#endif
