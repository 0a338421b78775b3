#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/utf8.h"
#include "util/xalloc.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need < sb->len)
		xdie_oom();
	if (need <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, n);
	}
	sb->alloc = n;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		/* slopbuf must stay "" */
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_csv(struct strbuf *sb, const char *s, char sep)
{
	char sepstr[2] = { sep, '\0' };

	strbuf_add_csv_sep(sb, s, sepstr);
}

void strbuf_add_csv_sep(struct strbuf *sb, const char *s, const char *sep)
{
	if (!(*sep && strstr(s, sep)) && !strpbrk(s, "\"\n\r")) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* Call ascii(sb, c, data) for every ASCII byte of s[0..len), copy valid
 * multi-byte UTF-8 and write U+FFFD for every other byte. */
static void add_utf8_each(struct strbuf *sb, const char *s, size_t len,
			  void (*ascii)(struct strbuf *sb, char c, size_t at, void *data), void *data)
{
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq_len(s + i, len - i);

		if (k == 1) {
			if (ascii)
				ascii(sb, s[i], i, data);
			else
				strbuf_addch(sb, s[i]);
		} else if (k) {
			/* U+FFFE and U+FFFF are no XML characters; rare enough
			 * to be the same in every format */
			if (k == 3 && (unsigned char)s[i] == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
			    (unsigned char)s[i + 2] >= 0xBE)
				strbuf_addstr(sb, UTF8_REPLACEMENT);
			else
				strbuf_add(sb, s + i, k);
		} else {
			strbuf_addstr(sb, UTF8_REPLACEMENT);
			k = 1;
		}
		i += k;
	}
}

void strbuf_add_utf8(struct strbuf *sb, const char *s)
{
	add_utf8_each(sb, s, strlen(s), NULL, NULL);
}

static void xml_ascii(struct strbuf *sb, char c, size_t at, void *data)
{
	switch (c) {
	case '&': strbuf_addstr(sb, "&amp;"); break;
	case '<': strbuf_addstr(sb, "&lt;"); break;
	case '>': strbuf_addstr(sb, "&gt;"); break;
	case '"': strbuf_addstr(sb, "&quot;"); break;
	case '\'': strbuf_addstr(sb, "&apos;"); break;
	case '\t': case '\n': case '\r': strbuf_addch(sb, c); break;
	default:
		if ((unsigned char)c < 0x20 || c == 0x7f)
			strbuf_addstr(sb, UTF8_REPLACEMENT);
		else
			strbuf_addch(sb, c);
	}
}

void strbuf_add_xml_len(struct strbuf *sb, const char *s, size_t len)
{
	add_utf8_each(sb, s, len, xml_ascii, NULL);
}

void strbuf_add_xml(struct strbuf *sb, const char *s)
{
	strbuf_add_xml_len(sb, s, strlen(s));
}

struct md_state {
	const char *s;
	size_t digits_end;  /* where a leading number ends (its . or ) starts a list) */
};

static int md_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void md_ascii(struct strbuf *sb, char c, size_t at, void *data)
{
	const struct md_state *st = data;

	if (c == '\n' || c == '\r' || c == '\t') {
		strbuf_addch(sb, ' ');
		return;
	}
	if ((unsigned char)c < 0x20 || c == 0x7f) {
		strbuf_addstr(sb, UTF8_REPLACEMENT);
		return;
	}
	/* an _ between two letters or digits can neither open nor close
	 * emphasis (CommonMark 6.2): hash_page_mm stays as it is */
	if (c == '_' && at && md_alnum(st->s[at - 1]) && md_alnum(st->s[at + 1])) {
		strbuf_addch(sb, c);
		return;
	}
	if (strchr("\\`*_[]<>|~&", c) ||
	    (at == 0 && strchr("#+-=", c)) ||
	    (at && at == st->digits_end && (c == '.' || c == ')')))
		strbuf_addch(sb, '\\');
	strbuf_addch(sb, c);
}

void strbuf_add_md(struct strbuf *sb, const char *s)
{
	struct md_state st = { s, strspn(s, "0123456789") };

	add_utf8_each(sb, s, strlen(s), md_ascii, &st);
}

static void md_code_ascii(struct strbuf *sb, char c, size_t at, void *data)
{
	const int *in_table = data;

	if (c == '\n' || c == '\r' || c == '\t')
		strbuf_addch(sb, ' ');
	else if ((unsigned char)c < 0x20 || c == 0x7f)
		strbuf_addstr(sb, UTF8_REPLACEMENT);
	else if (c == '|' && *in_table)
		strbuf_addstr(sb, "\\|");
	else
		strbuf_addch(sb, c);
}

void strbuf_add_md_code(struct strbuf *sb, const char *s, int in_table)
{
	size_t run = 0, longest = 0, n = strlen(s);
	int pad;

	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	/* CommonMark strips one space from each end when both ends have
	 * one (and s is not all spaces): pad so that what s has stays */
	pad = n && (s[0] == '`' || s[n - 1] == '`' ||
		    (s[0] == ' ' && s[n - 1] == ' ' && strspn(s, " ") < n));
	for (size_t i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
	if (pad)
		strbuf_addch(sb, ' ');
	if (n)
		add_utf8_each(sb, s, n, md_code_ascii, &in_table);
	else
		strbuf_addch(sb, ' ');   /* `` is no code span; ` ` is one space */
	if (pad)
		strbuf_addch(sb, ' ');
	for (size_t i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
}

void strbuf_add_sq(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_sh_word(struct strbuf *sb, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789-_./=:,+@%";

	if (*s && strspn(s, plain) == strlen(s))
		strbuf_addstr(sb, s);
	else
		strbuf_add_sq(sb, s);
}

const char *strbuf_last_line(struct strbuf *sb)
{
	const char *last;

	strbuf_rtrim(sb);
	last = strrchr(sb->buf, '\n');
	return last ? last + 1 : sb->buf;
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\n' ||
			   sb->buf[sb->len - 1] == '\t' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	char tmp[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		strbuf_add(sb, tmp, (size_t)n);
	}
	close(fd);
	return 0;
}
