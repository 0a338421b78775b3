/* Numbers from command lines and configuration files, with one set of
 * rules for every caller: the whole string must be the number (no empty
 * string, no leading blanks or '+', no trailing junk), a value that does
 * not fit is an error rather than a wrapped or clamped one, and a '-' is
 * accepted only where a negative value is allowed.  Each returns 0, or
 * -EINVAL (not a number of that kind) / -ERANGE (a number out of range)
 * with a one-line message through lace_error_set(). */
#ifndef LACE_UTIL_PARSE_NUM_H
#define LACE_UTIL_PARSE_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Decimal whole number in [min, max]. */
int parse_long(const char *s, long min, long max, long *out);
/* Whole number >= 0, decimal or 0x hex (seeds). */
int parse_ulong(const char *s, unsigned long *out);
/* Decimal whole number >= 0 that fits 64 bits (counts in files lace
 * writes or reads: no 0x, no octal reading of a leading 0). */
int parse_u64(const char *s, uint64_t *out);
/* A finite number, '-' allowed: "12", "-0.5", "1e3" (no inf, no nan). */
int parse_double(const char *s, double *out);
/* The same for the first n bytes of s, a token inside a longer text
 * ("window 3 u.instructions=12", "0-3,6"): the token must be all number. */
int parse_u64_n(const char *s, size_t n, uint64_t *out);
int parse_double_n(const char *s, size_t n, double *out);
/* Bytes: "4096", "64K", "64M", "1G", "512MB" (binary multiples). */
int parse_size(const char *s, uint64_t *out);
/* Seconds >= 0: "10", "1.5", "500ms", "30s", "2m", "2min", "1h". */
int parse_seconds(const char *s, double *out);
/* A percentage strictly between lo and hi: "1", "1%", "0.5" -> 0.01,
 * 0.01, 0.005 (the fraction). */
int parse_percent(const char *s, double lo, double hi, double *out);

#endif
