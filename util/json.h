/* json: the one string policy of lace's JSON output (jansson).
 *
 * Header-only on purpose: every .c file of util/ is also compiled into the study's
 * variant programs, which link nothing but libc (doc/architecture.md,
 * "util/"), so the code that needs jansson stays in headers that only
 * lace's own modules include.  The byte-level rule lives in util/utf8.h
 * and strbuf_add_utf8() (libc only); this is the jansson end of it. */
#ifndef LACE_UTIL_JSON_H
#define LACE_UTIL_JSON_H

#include <jansson.h>
#include <math.h>

#include "util/strbuf.h"

/* A JSON string holding s: s itself when it is valid UTF-8, else s with
 * every byte that is not UTF-8 replaced by U+FFFD (util/utf8.h).  NULL
 * gives JSON null, so a missing value is never an empty string by
 * accident: pass `s ? s : ""` where "" is meant. */
static inline json_t *lace_json_string(const char *s)
{
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);   /* jansson checks UTF-8 itself: the fast path */
	if (!j) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_add_utf8(&sb, s);
		j = json_stringn(sb.buf, sb.len);
		strbuf_release(&sb);
	}
	return j ? j : json_null();
}

/* v as a JSON number, or null when it is not finite: JSON has no NaN or
 * infinity, and a missing statistic must read as missing, not as 0. */
static inline json_t *lace_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The value of a JSON number (integer or real), or NaN when j is NULL or
 * not a number: the reverse of lace_json_real(). */
static inline double lace_json_num(const json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* lace_json_num() of o's member k. */
static inline double lace_json_get_num(const json_t *o, const char *k)
{
	return lace_json_num(json_object_get(o, k));
}

#endif
