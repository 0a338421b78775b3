/* Saved batches for lace compare; see perf_import.h. */
#include "measure/perf_import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "measure/results.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct lace_import_event *event_get(struct lace_import *im, const char *name,
					   const char *unit)
{
	for (size_t i = 0; i < im->nevents; i++)
		if (!strcmp(im->events[i].name, name))
			return &im->events[i];
	im->events = xrealloc(im->events, (im->nevents + 1) * sizeof(*im->events));
	struct lace_import_event *e = &im->events[im->nevents++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	e->unit = xstrdup(unit ? unit : "");
	return e;
}

static void event_add(struct lace_import_event *e, double v)
{
	ALLOC_GROW(e->values, e->n + 1, e->alloc);
	e->values[e->n++] = v;
}

/* One event line of perf (either format), already split into fields. */
static int perf_value(struct lace_import *im, size_t line, const char *value, const char *unit,
		      const char *event, bool has_var, double var_pct)
{
	struct lace_import_event *e;

	if (!*event)
		return lace_error_set(EINVAL, "%s:%zu: no event name", im->path, line);
	e = event_get(im, event, unit);
	if (e->summary || (has_var && (e->n || e->not_supported)))
		return lace_error_set(EINVAL,
				      "%s:%zu: %s appears again after a perf stat -r N summary; give each "
				      "-r N output as its own file", im->path, line, event);
	if (value[0] == '<') { /* <not supported>, <not counted> */
		e->not_supported++;
		return 0;
	}
	double v;
	if (parse_double(value + strspn(value, " \t"), &v))
		return lace_error_set(EINVAL, "%s:%zu: '%s' is not a count", im->path, line, value);
	if (has_var) {
		e->summary = true;
		e->mean = v;
		e->rel_sem = var_pct / 100.0;
	} else {
		event_add(e, v);
	}
	return 0;
}

/* "3.86%" -> 3.86 */
static bool parse_pct(const char *s, double *out)
{
	size_t len = strlen(s);

	if (!len || s[len - 1] != '%')
		return false;
	return !parse_double_n(s, len - 1, out) && *out >= 0;
}

/* perf 6.1 -x: value, unit, event, [variance "x.xx%" with -r > 1], run
 * time, pct running, metric value, metric unit. */
static int perf_csv_line(struct lace_import *im, size_t lineno, char *line, const char *sep)
{
	char *f[16];
	size_t nf = 0, sl = strlen(sep);
	char *p = line;

	while (nf < 16) {
		f[nf++] = p;
		char *q = strstr(p, sep);
		if (!q)
			break;
		*q = '\0';
		p = q + sl;
	}
	if (nf < 3)
		return lace_error_set(EINVAL, "%s:%zu: not a perf stat -x line (%zu fields)", im->path,
				      lineno, nf);
	double var = 0;
	bool has_var = nf > 3 && parse_pct(f[3], &var);
	return perf_value(im, lineno, f[0], f[1], f[2], has_var, var);
}

/* perf 6.1 -j (util/stat-display.c): {"counter-value" : "...", "unit" :
 * "", "event" : "...", "variance" : 1.23 (with -r > 1), ...}. */
static int perf_json_line(struct lace_import *im, size_t lineno, const char *line)
{
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr);
	int err = 0;

	if (!json_is_object(o)) {
		err = lace_error_set(EINVAL, "%s:%zu: not a perf stat -j line: %s", im->path, lineno,
				     jerr.text);
	} else {
		const char *value = json_string_value(json_object_get(o, "counter-value"));
		const char *unit = json_string_value(json_object_get(o, "unit"));
		const char *event = json_string_value(json_object_get(o, "event"));
		json_t *var = json_object_get(o, "variance");
		if (event && value)
			err = perf_value(im, lineno, value, unit, event, json_is_number(var),
					 json_number_value(var));
		/* else a metric-only line (-M, --topdown): nothing to compare */
	}
	json_decref(o);
	return err;
}

static int from_lace(struct lace_import *im, const char *path)
{
	struct lace_batch b;
	char warning[256];
	int err = batch_load(&b, path, warning, sizeof(warning));

	if (err)
		return err;
	if (strcmp(b.kind, "stat")) {
		err = lace_error_set(EINVAL, "%s: a lace %s batch; lace compare takes lace stat batches",
				     path, b.kind);
		batch_release(&b);
		return err;
	}
	im->format = "lace stat";
	im->command = b.command ? xstrdup(b.command) : NULL;
	json_t *k = json_object_get(b.header, "kernel");
	im->has_kernel = json_is_object(k);
	kernel_id_from_json(&im->kernel, k);
	for (size_t e = 0; e <= b.nevents; e++) {
		struct lace_import_event *ev =
			e < b.nevents ? event_get(im, b.events[e].name, b.events[e].unit)
				      : event_get(im, "elapsed", "s");
		ev->simulated = e < b.nevents && b.events[e].simulated;
		for (size_t r = 0; r < b.nruns; r++) {
			const struct lace_batch_run *run = &b.runs[r];
			if (run->warmup || run->fault != LACE_FAULT_NONE)
				continue;
			if (e == b.nevents)
				event_add(ev, run->elapsed_s);
			else if (run->status[e] != LACE_COUNT_OK)
				ev->not_supported++;
			else
				event_add(ev, run->values[e] * b.events[e].scale);
		}
	}
	batch_release(&b);
	return 0;
}

int import_parse(struct lace_import *im, const char *path, const char *buf, size_t len,
		 const char *sep, size_t runs)
{
	struct strbuf sb = STRBUF_INIT;
	size_t lineno = 0, lines = 0;
	int err = 0;

	memset(im, 0, sizeof(*im));
	im->path = xstrdup(path);
	im->runs = runs;
	strbuf_add(&sb, buf, len);
	for (char *p = sb.buf, *nl; !err && p < sb.buf + sb.len; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = sb.buf + sb.len;
		*nl = '\0';
		lineno++;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!*p || *p == '#') /* perf -o: "# started on ..." */
			continue;
		if (*p == '{') {
			if (im->format && strcmp(im->format, "perf stat -j"))
				err = lace_error_set(EINVAL, "%s:%zu: a JSON line in perf -x output", path, lineno);
			im->format = "perf stat -j";
			if (!err)
				err = perf_json_line(im, lineno, p);
		} else {
			if (im->format && strcmp(im->format, "perf stat -x"))
				err = lace_error_set(EINVAL, "%s:%zu: a CSV line in perf -j output", path, lineno);
			im->format = "perf stat -x";
			if (!err)
				err = perf_csv_line(im, lineno, p, sep ? sep : ",");
		}
		lines++;
	}
	strbuf_release(&sb);
	if (!err && !lines)
		err = lace_error_set(EINVAL, "%s: no counts (an empty file, or only comments)", path);
	for (size_t i = 0; !err && i < im->nevents; i++) {
		struct lace_import_event *e = &im->events[i];
		if (e->summary && !runs)
			err = lace_error_set(EINVAL,
					     "%s: perf stat -r N output holds only means and their errors, "
					     "not N: give it with --runs N or %s@N", path, path);
	}
	return err;
}

int import_load(struct lace_import *im, const char *path, const char *sep, size_t runs)
{
	struct strbuf sb = STRBUF_INIT;
	int err = strbuf_read_file(&sb, path);

	if (err) {
		memset(im, 0, sizeof(*im));
		return lace_error_set(-err, "%s: %s", path, strerror(-err));
	}
	if (!strncmp(sb.buf, "{\"lace_results\"", 15) || strstr(sb.buf, "\"lace_results\":")) {
		memset(im, 0, sizeof(*im));
		im->path = xstrdup(path);
		err = from_lace(im, path);
	} else {
		err = import_parse(im, path, sb.buf, sb.len, sep, runs);
	}
	strbuf_release(&sb);
	return err;
}

void import_release(struct lace_import *im)
{
	for (size_t i = 0; i < im->nevents; i++) {
		free(im->events[i].name);
		free(im->events[i].unit);
		free(im->events[i].values);
	}
	free(im->events);
	free(im->command);
	free(im->path);
	memset(im, 0, sizeof(*im));
}

const struct lace_import_event *import_find(const struct lace_import *im, const char *name)
{
	for (size_t i = 0; i < im->nevents; i++)
		if (!strcmp(im->events[i].name, name))
			return &im->events[i];
	return NULL;
}
