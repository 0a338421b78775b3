#include "util/utf8.h"

#include <string.h>

size_t utf8_seq_len(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c < 0xC2 || c > 0xF4)
		return 0;        /* a continuation byte, an overlong lead, or past U+10FFFF */
	len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	if (c == 0xE0)
		lo = 0xA0;       /* overlong */
	else if (c == 0xED)
		hi = 0x9F;       /* surrogates */
	else if (c == 0xF0)
		lo = 0x90;       /* overlong */
	else if (c == 0xF4)
		hi = 0x8F;       /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

bool utf8_valid(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		size_t k = utf8_seq_len(s, n);

		if (!k)
			return false;
		s += k;
		n -= k;
	}
	return true;
}
