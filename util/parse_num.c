/* Strict number parsing; see parse_num.h. */
#include "util/parse_num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* What strto*() would skip or take silently: leading blanks, '+', and a
 * '-' that strtoul() turns into a huge positive value. */
static int check_start(const char *s, bool minus_ok)
{
	if (!s || !*s)
		return lace_error_set(EINVAL, "empty value");
	if (isdigit((unsigned char)*s) || *s == '.')
		return 0;
	if (*s == '-' && minus_ok)
		return 0;
	if (*s == '-')
		return lace_error_set(ERANGE, "'%s' is negative", s);
	return lace_error_set(EINVAL, "'%s' is not a number", s);
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;
	int err = check_start(s, min < 0);

	if (err)
		return err;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end)
		return lace_error_set(EINVAL, "'%s' is not a whole number", s);
	if (errno == ERANGE || v < min || v > max)
		return lace_error_set(ERANGE, "%s is out of range [%ld, %ld]", s, min, max);
	*out = v;
	return 0;
}

int parse_ulong(const char *s, unsigned long *out)
{
	char *end;
	unsigned long v;
	int err = check_start(s, false);

	if (err)
		return err;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (end == s || *end)
		return lace_error_set(EINVAL, "'%s' is not a whole number", s);
	if (errno == ERANGE)
		return lace_error_set(ERANGE, "%s is too large", s);
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int err = check_start(s, false);

	if (err)
		return err;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end)
		return lace_error_set(EINVAL, "'%s' is not a whole number", s);
	if (errno == ERANGE || v > UINT64_MAX)
		return lace_error_set(ERANGE, "%s is too large", s);
	*out = (uint64_t)v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;
	int err = check_start(s, true);

	if (err)
		return err;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return lace_error_set(EINVAL, "'%s' is not a number", s);
	if (errno == ERANGE || !isfinite(v))
		return lace_error_set(ERANGE, "%s is out of range", s);
	*out = v;
	return 0;
}

/* a token copied out, so that the whole-string rules apply to it */
static int token_copy(char *buf, size_t len, const char *s, size_t n)
{
	if (n >= len)
		return lace_error_set(EINVAL, "'%.*s' is not a number", (int)(len - 1), s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

int parse_u64_n(const char *s, size_t n, uint64_t *out)
{
	char buf[64];
	int err = token_copy(buf, sizeof(buf), s, n);

	return err ? err : parse_u64(buf, out);
}

int parse_double_n(const char *s, size_t n, double *out)
{
	char buf[64];
	int err = token_copy(buf, sizeof(buf), s, n);

	return err ? err : parse_double(buf, out);
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;
	int err = check_start(s, false);

	if (err)
		return err;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s)
		return lace_error_set(EINVAL, "'%s' is not a size", s);
	if (errno == ERANGE)
		return lace_error_set(ERANGE, "%s is too large", s);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return lace_error_set(EINVAL, "'%s' is not a size", s);
	if (shift && v > (UINT64_MAX >> shift))
		return lace_error_set(ERANGE, "%s is too large", s);
	*out = (uint64_t)v << shift;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;
	int err = check_start(s, false);

	if (err)
		return err;
	errno = 0;
	v = strtod(s, &end);
	if (end == s)
		return lace_error_set(EINVAL, "'%s' is not a duration", s);
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return lace_error_set(EINVAL, "'%s' is not a duration", s);
	if (errno == ERANGE || !isfinite(v))
		return lace_error_set(ERANGE, "%s is too large", s);
	*out = v;
	return 0;
}

int parse_percent(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;
	int err = check_start(s, lo < 0);

	if (err)
		return err;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%")))
		return lace_error_set(EINVAL, "'%s' is not a percentage", s);
	if (errno == ERANGE || !(v > lo) || !(v < hi))
		return lace_error_set(ERANGE, "%s is outside (%g, %g)", s, lo, hi);
	*out = v / 100.0;
	return 0;
}
