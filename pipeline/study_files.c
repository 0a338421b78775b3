/* The files a study writes, for both studies (study_report.c,
 * kstudy_report.c); see study.h. */
#include "pipeline/study.h"

#include <errno.h>

#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"

int study_write_files(const char *dir, const char *title, const struct strbuf *md,
		      const struct strbuf *html_body, const json_t *res)
{
	struct strbuf html = STRBUF_INIT, path = STRBUF_INIT;
	int rc;

	strbuf_addf(&path, "%s/report.md", dir);
	rc = fs_write_file(path.buf, md->buf, md->len);
	if (!rc) {
		study_html_head(&html, title);
		strbuf_add(&html, html_body->buf, html_body->len);
		strbuf_addstr(&html, "</body></html>\n");
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/report.html", dir);
		rc = fs_write_file(path.buf, html.buf, html.len);
	}
	if (!rc) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/results.json", dir);
		if (json_dump_file(res, path.buf, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			rc = lace_error_set(EIO, "%s: write failed", path.buf);
	}
	strbuf_release(&html);
	strbuf_release(&path);
	return rc;
}
