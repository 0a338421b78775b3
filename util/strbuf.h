/* strbuf: a growable, always NUL-terminated byte buffer (after git's strbuf). */
#ifndef LACE_STRBUF_H
#define LACE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it) and reset sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append s with CSV quoting when it holds a separator, quote or newline. */
void strbuf_add_csv(struct strbuf *sb, const char *s, char sep);
/* The same with a separator of any length (perf stat -x STR); "" never
 * quotes for the separator.  Fields are quoted as RFC 4180 does. */
void strbuf_add_csv_sep(struct strbuf *sb, const char *s, const char *sep);
/* The escapers below all treat bytes that are not UTF-8 as util/utf8.h
 * says: each becomes U+FFFD; valid UTF-8 is copied unchanged. */
/* Append s (NUL-terminated) with only that repair: for JSON strings and
 * anything else that must be UTF-8 but needs no quoting. */
void strbuf_add_utf8(struct strbuf *sb, const char *s);
/* XML/HTML character data and attribute values (double or single quoted):
 * & < > " ' become entities; control characters XML 1.0 forbids (all below
 * 0x20 but tab, newline, return) and U+FFFE/U+FFFF become U+FFFD. */
void strbuf_add_xml(struct strbuf *sb, const char *s);
void strbuf_add_xml_len(struct strbuf *sb, const char *s, size_t len);
/* Markdown (CommonMark and GitHub's tables) text that must show as it is,
 * in a paragraph, a list item or a table cell: a backslash goes before
 * each character that can start inline markup or end a cell
 * (\ ` * _ [ ] < > | ~ &; not an _ between two letters or digits, which
 * CommonMark never reads as emphasis), and before a leading # + - = or
 * the . ) after a leading number, which would start a block (a heading, a
 * list); line breaks and tabs become
 * spaces and other control characters U+FFFD, so s stays on its line.
 * Bare URLs are left as they are (GitHub links them; that is harmless). */
void strbuf_add_md(struct strbuf *sb, const char *s);
/* s as a Markdown code span: fenced with one backtick more than the
 * longest run of backticks in s (padded with a space where s begins or ends
 * with one), so any s shows verbatim.  in_table: the span is in a table
 * cell, where GitHub needs a | written \| even inside code (outside a
 * table that backslash would show).  Line breaks become spaces. */
void strbuf_add_md_code(struct strbuf *sb, const char *s, int in_table);
/* s as one word of a POSIX shell command: in single quotes, each ' written
 * '\'' (after git's sq_quote_buf), so any s stays one word, verbatim. */
void strbuf_add_sq(struct strbuf *sb, const char *s);
/* The same, but s as it is when it is not empty and holds only letters,
 * digits and -_./=:,+@% (no shell reads those specially): for commands
 * shown to a person, who reads them more easily unquoted. */
void strbuf_add_sh_word(struct strbuf *sb, const char *s);
void strbuf_rtrim(struct strbuf *sb);
/* Trim trailing white space, then the last line ("" when sb is empty):
 * the line of a program's stderr that says why it failed. */
const char *strbuf_last_line(struct strbuf *sb);
/* Read a whole file; returns 0 or -errno. */
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
