/* The reports' HTML: the Markdown subset both studies write, as HTML, and
 * the page's head.  Kept apart from study_report.c (the model study's
 * content) since lace study --kernel renders through it too. */
#include "pipeline/study.h"

#include <stdbool.h>
#include <string.h>

#include "util/strbuf.h"

/* Markdown (our subset) to HTML: headings, paragraphs, lists, tables,
 * indented code blocks, `code` and **bold**. */
static void inline_md(struct strbuf *out, const char *s, size_t n)
{
	bool code = false, bold = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '`') {
			strbuf_addstr(out, code ? "</code>" : "<code>");
			code = !code;
		} else if (!code && s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
			strbuf_addstr(out, bold ? "</b>" : "<b>");
			bold = !bold;
			i++;
		} else {
			/* the plain run from here, whole (a sequence of UTF-8 is never cut) */
			size_t k = i + 1 + strcspn(s + i + 1, "`*");

			strbuf_add_xml_len(out, s + i, (k < n ? k : n) - i);
			i = (k < n ? k : n) - 1;
		}
	}
	if (code)
		strbuf_addstr(out, "</code>");
	if (bold)
		strbuf_addstr(out, "</b>");
}

void study_html_head(struct strbuf *html, const char *title)
{
	strbuf_addstr(html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	strbuf_add_xml(html, title);
	strbuf_addstr(html, "</title><style>"
			    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
			    "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
			    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
			    "td:first-child,th:first-child{text-align:left}"
			    "code{background:#f3f3f3;padding:0 3px}"
			    "pre{background:#f3f3f3;padding:6px 8px;overflow-x:auto;font-size:12px}"
			    "pre code{padding:0}"
			    "figure{margin:1.5em 0}figure.map svg{max-width:100%;height:auto}"
			    "figcaption{color:#555;font-size:13px}"
			    "</style></head><body>\n");
}

void study_md_to_html(struct strbuf *out, const char *md)
{
	bool in_table = false, in_list = false, header_row = false;
	const char *p = md;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		/* an indented code block: its lines as they are, in one <pre>
		 * (as paragraphs a command's output loses its line breaks) */
		if (n >= 4 && !strncmp(p, "    ", 4) && !in_table && !in_list) {
			strbuf_addstr(out, "<pre><code>");
			while (*p && !strncmp(p, "    ", 4)) {
				e = strchr(p, '\n');
				n = e ? (size_t)(e - p) : strlen(p);
				strbuf_add_xml_len(out, p + 4, n - 4);
				p += n + (e != NULL);
				if (*p && !strncmp(p, "    ", 4))
					strbuf_addch(out, '\n');
			}
			strbuf_addstr(out, "</code></pre>\n");
			continue;
		}
		if (n && p[0] == '|') {
			if (n > 1 && p[1] == '-') { /* separator row */
				p += n + (e != NULL);
				continue;
			}
			if (!in_table) {
				strbuf_addstr(out, "<table>\n");
				in_table = header_row = true;
			}
			strbuf_addstr(out, "<tr>");
			const char *c = p + 1, *end = p + n;
			while (c < end) {
				const char *bar = memchr(c, '|', (size_t)(end - c));
				if (!bar)
					break;
				strbuf_addstr(out, header_row ? "<th>" : "<td>");
				const char *a = c, *z = bar;
				while (a < z && *a == ' ')
					a++;
				while (z > a && z[-1] == ' ')
					z--;
				inline_md(out, a, (size_t)(z - a));
				strbuf_addstr(out, header_row ? "</th>" : "</td>");
				c = bar + 1;
			}
			strbuf_addstr(out, "</tr>\n");
			header_row = false;
		} else {
			if (in_table) {
				strbuf_addstr(out, "</table>\n");
				in_table = false;
			}
			if (n >= 2 && p[0] == '-' && p[1] == ' ') {
				if (!in_list) {
					strbuf_addstr(out, "<ul>\n");
					in_list = true;
				}
				strbuf_addstr(out, "<li>");
				inline_md(out, p + 2, n - 2);
				strbuf_addstr(out, "</li>\n");
			} else {
				if (in_list) {
					strbuf_addstr(out, "</ul>\n");
					in_list = false;
				}
				int h = 0;
				while ((size_t)h < n && p[h] == '#')
					h++;
				if (h && (size_t)h < n && p[h] == ' ') {
					strbuf_addf(out, "<h%d>", h);
					inline_md(out, p + h + 1, n - h - 1);
					strbuf_addf(out, "</h%d>\n", h);
				} else if (n) {
					strbuf_addstr(out, "<p>");
					inline_md(out, p, n);
					strbuf_addstr(out, "</p>\n");
				}
			}
		}
		p += n + (e != NULL);
	}
	if (in_table)
		strbuf_addstr(out, "</table>\n");
	if (in_list)
		strbuf_addstr(out, "</ul>\n");
}
