/* lace study --kernel's downloads: the guests its readings boot, fetched
 * part by part (scripts/fetch-guest.sh --part), what a failed part keeps
 * from being measured, the stock ppc64le kernel's name as
 * scripts/downloads.manifest pins it, and every version used that is not
 * the pinned one.  See kstudy_priv.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/kstudy/kstudy_priv.h"
#include "util/array.h"
#include "util/error.h"
#include "util/run_command.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* the parts, each its own job: the readings that need busybox of an arch
 * must not wait on that arch's stock kernel, nor the x86-64 reading on
 * anything of ppc64le (lace's own kernels boot with busybox alone; Debian's
 * x86-64 kernel is not booted by any reading) */
static const struct {
	const char *arch, *part;
} parts[] = {
	{ "x86_64", "busybox" },
	{ "ppc64le", "busybox" },
	{ "ppc64le", "kernel" },
};

/* every line of what a fetch said that names a version other than the
 * pin (fetch-deb.sh: "fetch-deb: using X, not the pinned Y ...") into the
 * results' not_pinned, once each */
static void note_not_pinned(struct ks *s, const char *text, json_t *dest)
{
	json_t *all = json_object_get(s->res, "not_pinned");
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		size_t i;
		json_t *v;
		bool seen = false;

		if (len > 10 && strstr(p, ", not the pinned ") && strstr(p, ", not the pinned ") < p + len) {
			json_t *line = json_stringn(p, len);
			if (!all) {
				all = json_array();
				json_object_set_new(s->res, "not_pinned", all);
			}
			json_array_foreach(all, i, v)
				seen |= json_equal(v, line);
			if (!seen)
				json_array_append(all, line);
			if (dest)
				json_object_set(dest, "not_pinned", line);
			json_decref(line);
		}
		p = nl ? nl + 1 : NULL;
	}
}

void kstudy_guests_queue(struct ks *s)
{
	json_t *out = json_object();

	json_object_set_new(s->res, "guests", out);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		json_t *a = json_object_get(out, parts[i].arch), *g = json_object();

		if (!a) {
			a = json_object();
			json_object_set_new(out, parts[i].arch, a);
		}
		json_object_set_new(a, parts[i].part, g);
		if (!s->o->src) {
			ks_not_measured(g, "lace's sources not found (scripts/fetch-guest.sh; set LACE_SRCDIR)");
			continue;
		}
		char what[64];

		/* one stage, run one at a time: they download into one cache */
		snprintf(what, sizeof(what), "guest fetch %s %s", parts[i].arch, parts[i].part);
		struct kjob *j = ks_job(s, "guests", what, false, FILL_GUEST, g);
		strvec_pushf(&j->argv, "%s/scripts/fetch-guest.sh", s->o->src);
		strvec_pushv(&j->argv, (const char *[]){ "--arch", parts[i].arch, "--part", parts[i].part,
							  NULL });
	}
	s->stage++;
}

/* a failed fetch's cause: the last line it printed (the scripts' one-line
 * error), or how it ended */
static void fetch_cause(const struct kjob *j, char *why, size_t len)
{
	struct strbuf e = STRBUF_INIT;
	const char *last;

	strbuf_addstr(&e, j->err.buf);
	last = strbuf_last_line(&e);
	/* "fetch-guest: ARCH PART: <the fetcher's line>": the part is named
	 * by the caller already */
	if (!strncmp(last, "fetch-guest: ", 13) && j->argv.nr >= 5) {
		char pre[64];
		int n = snprintf(pre, sizeof(pre), "%s %s: ", j->argv.v[2], j->argv.v[4]);
		if (!strncmp(last + 13, pre, (size_t)n))
			last += 13 + n;
	}
	if (j->exit < 0)
		snprintf(why, len, "%s did not finish (no out/%s.rc)", j->argv.nr ? j->argv.v[0] : "?", j->id);
	else if (*last)
		snprintf(why, len, "%.900s", last);
	else
		snprintf(why, len, "%s exited %d", j->argv.nr ? j->argv.v[0] : "?", j->exit);
	strbuf_release(&e);
}

void kstudy_guests_fill(struct ks *s, const struct kjob *j)
{
	char why[1024];

	ks_record(s, j, false, why, sizeof(why));
	note_not_pinned(s, j->err.buf, j->dest);
	if (j->exit) {
		fetch_cause(j, why, sizeof(why));
		ks_not_measured(j->dest, "%s", why);
	}
}

void kstudy_guests_check(struct ks *s)
{
	json_decref(s->guest_failed);
	s->guest_failed = json_object();
	for (size_t i = 0; i < s->q.nr; i++) {
		const struct kjob *j = &s->q.v[i];
		char why[1024], key[64];

		if (j->fill != FILL_GUEST || !j->exit)
			continue;
		/* argv: fetch-guest.sh --arch ARCH --part PART */
		if (j->argv.nr < 5)
			continue;
		snprintf(key, sizeof(key), "%s %s", j->argv.v[2], j->argv.v[4]);
		fetch_cause(j, why, sizeof(why));
		json_object_set_new(s->guest_failed, key, json_string(why));
	}
}

const char *kstudy_guest_missing(struct ks *s, const char *kernel, char *buf, size_t len)
{
	bool stock = !strncmp(kernel, "linux-image-", 12);
	const char *arch = stock || !strncmp(kernel, "ppc64le", 7) ? "ppc64le" : "x86_64";
	const char *need[2] = { "busybox", stock ? "kernel" : NULL };

	for (size_t i = 0; i < 2 && need[i]; i++) {
		char key[64];
		const char *why;

		snprintf(key, sizeof(key), "%s %s", arch, need[i]);
		why = json_string_value(json_object_get(s->guest_failed, key));
		if (why) {
			snprintf(buf, len, "guest fetch %s failed: %.900s", key, why);
			return buf;
		}
	}
	return NULL;
}

/* scripts/fetch-deb.sh MODE NAME: its stdout's first line into out; its
 * stderr goes to the results (a version that is not the pin's) */
static int fetch_deb(struct ks *s, const char *mode, const char *name, char *out, size_t len)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_pushf(&cp.args, "%s/scripts/fetch-deb.sh", s->o->src);
	strvec_pushv(&cp.args, (const char *[]){ mode, name, NULL });
	cp.out_capture = 1;
	cp.err_capture = 1;
	rc = child_process_run_ok(&cp, "scripts/fetch-deb.sh");
	if (!rc) {
		note_not_pinned(s, cp.err.buf, NULL);
		snprintf(out, len, "%.*s", (int)strcspn(cp.out.buf, "\n"), cp.out.buf);
	}
	child_process_clear(&cp);
	return rc;
}

void kstudy_stock_resolve(struct ks *s)
{
	char line[256] = "";

	s->stock[0] = '\0';
	if (!s->o->src) {
		snprintf(s->stock_why, sizeof(s->stock_why),
			 "lace's sources not found (scripts/downloads.manifest names the stock kernel; "
			 "set LACE_SRCDIR)");
		return;
	}
	if (fetch_deb(s, "--resolve", "ppc64le-kernel", line, sizeof(line))) {
		snprintf(s->stock_why, sizeof(s->stock_why), "%.500s", lace_error_msg());
		return;
	}
	/* "PACKAGE VERSION ARCH pinned|newer" */
	snprintf(s->stock, sizeof(s->stock), "%.*s", (int)strcspn(line, " "), line);
}

void kstudy_source_check(struct ks *s)
{
	static const char *const bases[] = { "x86_64-baseline", "ppc64le-baseline", "ppc64le-4k-baseline" };
	char pin[256] = "";
	struct strvec seen = STRVEC_INIT;

	if (!s->o->src || fetch_deb(s, "--pinned", "linux-source", pin, sizeof(pin)))
		return;
	/* "PACKAGE VERSION ARCH" */
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, pin);
	for (size_t i = 0; w.nr >= 2 && i < ARRAY_SIZE(bases); i++) {
		char path[PATH_MAX], note[512];
		json_error_t je;
		json_t *m;

		ks_kernel_path(s, path, sizeof(path), bases[i], "manifest.json");
		if (!(m = json_load_file(path, 0, &je)))
			continue;
		const char *v = json_string_value(json_object_get(json_object_get(m, "source"), "version"));
		if (v && strcmp(v, w.v[1]) && strvec_find(&seen, v) < 0) {
			strvec_push(&seen, v);
			snprintf(note, sizeof(note), "the kernels in %.200s were built from %s %.40s, not the pinned "
				 "%.40s: not the committed version", s->kernels, w.v[0], v, w.v[1]);
			note_not_pinned(s, note, NULL);
		}
		json_decref(m);
	}
	strvec_clear(&w);
	strvec_clear(&seen);
}
