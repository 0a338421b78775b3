/* The batch and its JSON-lines results file; see results.h. */
#include "measure/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "measure/kernel_id.h"
#include "util/error.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const status_names[] = {
	[LACE_COUNT_OK] = "counted",
	[LACE_COUNT_NOT_SUPPORTED] = "not_supported",
	[LACE_COUNT_NOT_COUNTED] = "not_counted",
};

void batch_init(struct lace_batch *b, const char *kind, const struct lace_event_spec *evs,
		size_t nevents)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->kind, sizeof(b->kind), "%s", kind);
	b->fd = -1;
	b->margin = 0.01;
	b->confidence = 0.95;
	b->nevents = nevents;
	b->events = xcalloc(nevents, sizeof(*b->events));
	for (size_t i = 0; i < nevents; i++) {
		b->events[i].name = xstrdup(evs[i].name);
		b->events[i].unit = xstrdup(evs[i].unit ? evs[i].unit : "");
		b->events[i].scale = evs[i].scale > 0 ? evs[i].scale : 1.0;
		b->events[i].simulated = evs[i].simulated;
	}
	b->header = json_object();
}

void batch_describe_machine(struct lace_batch *b)
{
	struct utsname u;
	struct strbuf sb = STRBUF_INIT, cpu = STRBUF_INIT;
	const char *model = "unknown CPU";

	if (!strbuf_read_file(&cpu, "/proc/cpuinfo")) {
		char *p = strstr(cpu.buf, "model name");
		if (!p)
			p = strstr(cpu.buf, "\ncpu\t"); /* POWER */
		if (p && (p = strchr(p, ':'))) {
			p += 2;
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			model = p;
		}
	}
	if (uname(&u) == 0)
		strbuf_addf(&sb, "%s, Linux %s %s, ", u.nodename, u.release, u.machine);
	strbuf_addf(&sb, "%s, %ld CPUs", model, sysconf(_SC_NPROCESSORS_ONLN));
	free(b->machine);
	b->machine = strbuf_detach(&sb, NULL);
	strbuf_release(&cpu);
	/* which kernel, exactly: lace compare tells reboots and builds apart */
	struct lace_kernel_id k;
	kernel_id_read(&k);
	json_object_set_new(b->header, "kernel", kernel_id_json(&k));
}

static int write_line(struct lace_batch *b, json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII);
	struct strbuf sb = STRBUF_INIT;
	int err = 0;

	if (!s)
		return lace_error_set(ENOMEM, "cannot encode a results line");
	strbuf_addstr(&sb, s);
	strbuf_addch(&sb, '\n');
	free(s);
	/* one write, so a reader never sees half a line unless we crash in it */
	size_t off = 0;
	while (off < sb.len) {
		ssize_t n = write(b->fd, sb.buf + off, sb.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = lace_error_set(errno ? errno : EIO, "%s: %s", b->path, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (!err && fdatasync(b->fd) && errno != EINVAL && errno != EROFS)
		err = lace_error_set(errno, "%s: fsync: %s", b->path, strerror(errno));
	strbuf_release(&sb);
	return err;
}

/* command lines and paths are bytes: util/utf8.h's rule, "" for none */
static json_t *jstr(const char *s)
{
	return lace_json_string(s ? s : "");
}

int batch_open(struct lace_batch *b, const char *path)
{
	json_t *h = b->header, *evs = json_array();

	b->path = xstrdup(path);
	/* the previous results stay, as FILE.old (perf record keeps perf.data.old) */
	struct stat st;
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		struct strbuf old = STRBUF_INIT;
		strbuf_addf(&old, "%s.old", path);
		int rerr = rename(path, old.buf) ? errno : 0;
		strbuf_release(&old);
		if (rerr)
			return lace_error_set(rerr, "%s: cannot keep the previous results as %s.old: %s",
					      path, path, strerror(rerr));
	}
	b->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->fd < 0)
		return lace_error_set(errno, "%s: cannot write the results file: %s", path, strerror(errno));
	json_object_set_new(h, "lace_results", json_integer(1));
	json_object_set_new(h, "kind", json_string(b->kind));
	json_object_set_new(h, "lace_version", json_string(LACE_VERSION));
	json_object_set_new(h, "command", jstr(b->command));
	if (b->cmd_a) {
		json_object_set_new(h, "a", jstr(b->cmd_a));
		json_object_set_new(h, "b", jstr(b->cmd_b));
	}
	json_object_set_new(h, "backend", jstr(b->backend));
	json_object_set_new(h, "machine", jstr(b->machine));
	json_object_set_new(h, "margin", json_real(b->margin));
	json_object_set_new(h, "confidence", json_real(b->confidence));
	json_object_set_new(h, "started", json_integer((json_int_t)time(NULL)));
	for (size_t i = 0; i < b->nevents; i++)
		json_array_append_new(evs, json_pack("{s:s,s:s,s:f,s:b}", "name", b->events[i].name,
						     "unit", b->events[i].unit, "scale",
						     b->events[i].scale, "simulated",
						     b->events[i].simulated));
	json_object_set_new(h, "events", evs);
	int err = write_line(b, h);
	if (err) {
		close(b->fd);
		b->fd = -1;
	}
	return err;
}

json_t *run_result_json(const struct lace_run_result *res)
{
	json_t *o = json_object(), *counts = json_array();

	json_object_set_new(o, "fault", json_string(run_fault_name(res->fault)));
	json_object_set_new(o, "fault_msg", json_string(res->fault_msg));
	json_object_set_new(o, "exit_status", json_integer(res->exit_status));
	json_object_set_new(o, "signal", json_integer(res->term_signal));
	json_object_set_new(o, "timed_out", json_boolean(res->timed_out));
	json_object_set_new(o, "output_bytes", json_integer((json_int_t)res->output_bytes));
	json_object_set_new(o, "leftover", json_integer(res->leftover));
	json_object_set_new(o, "elapsed", json_real(res->elapsed_s));
	json_object_set_new(o, "user", json_real(res->user_s));
	json_object_set_new(o, "sys", json_real(res->sys_s));
	json_object_set_new(o, "ctx_switches", json_integer(res->ctx_switches));
	json_object_set_new(o, "migrations", json_integer(res->migrations));
	for (size_t i = 0; i < res->nevents; i++) {
		const struct lace_count *c = &res->counts[i];
		json_array_append_new(counts,
				      json_pack("{s:o,s:I,s:s,s:I,s:I}", "value",
						lace_json_real(c->status == LACE_COUNT_OK ? c->value : NAN),
						"raw", (json_int_t)c->raw, "status", status_names[c->status],
						"enabled", (json_int_t)c->time_enabled, "running",
						(json_int_t)c->time_running));
	}
	json_object_set_new(o, "counts", counts);
	if (res->nprocs) {
		json_t *procs = json_array();
		for (size_t p = 0; p < res->nprocs; p++) {
			json_t *vals = json_array();
			for (size_t i = 0; i < res->nevents; i++)
				json_array_append_new(vals, lace_json_real(res->procs[p].values[i]));
			json_array_append_new(procs, json_pack("{s:i,s:s,s:o}", "pid",
							       (int)res->procs[p].pid, "comm",
							       res->procs[p].comm, "values", vals));
		}
		json_object_set_new(o, "procs", procs);
	}
	if (res->extra)
		json_object_set(o, "backend_data", res->extra);
	return o;
}

int batch_add_run(struct lace_batch *b, const struct lace_run_result *res, int round, char side,
		  bool warmup)
{
	struct lace_batch_run *r;

	ALLOC_GROW(b->runs, b->nruns + 1, b->alloc);
	r = &b->runs[b->nruns];
	memset(r, 0, sizeof(*r));
	r->index = (int)b->nruns;
	r->round = round;
	r->side = side;
	r->warmup = warmup;
	r->fault = res->fault;
	snprintf(r->fault_msg, sizeof(r->fault_msg), "%s", res->fault_msg);
	r->elapsed_s = res->elapsed_s;
	r->user_s = res->user_s;
	r->sys_s = res->sys_s;
	r->ctx_switches = res->ctx_switches;
	r->migrations = res->migrations;
	r->exit_status = res->exit_status;
	r->term_signal = res->term_signal;
	size_t n = b->nevents ? b->nevents : 1;
	r->values = xcalloc(n, sizeof(double));
	r->status = xcalloc(n, sizeof(*r->status));
	r->enabled = xcalloc(n, sizeof(double));
	r->running = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < b->nevents && i < res->nevents; i++) {
		const struct lace_count *c = &res->counts[i];
		r->status[i] = c->status;
		r->values[i] = c->status == LACE_COUNT_OK ? c->value : NAN;
		r->enabled[i] = (double)c->time_enabled;
		r->running[i] = (double)c->time_running;
	}
	b->nruns++;
	if (b->fd < 0)
		return 0;

	json_t *o = json_object();
	json_object_set_new(o, "run", json_integer(r->index));
	json_object_set_new(o, "round", json_integer(round));
	if (side) {
		char s[2] = { side, 0 };
		json_object_set_new(o, "side", json_string(s));
	}
	json_object_set_new(o, "warmup", json_boolean(warmup));
	json_object_update_new(o, run_result_json(res));
	int err = write_line(b, o);
	json_decref(o);
	return err;
}

int batch_close(struct lace_batch *b, bool interrupted)
{
	int err = 0;

	b->interrupted = interrupted;
	b->finished = true;
	if (b->fd >= 0) {
		json_t *o = json_pack("{s:b,s:b,s:I}", "end", 1, "interrupted", interrupted, "runs",
				      (json_int_t)b->nruns);
		err = write_line(b, o);
		json_decref(o);
		close(b->fd);
		b->fd = -1;
	}
	return err;
}

void batch_release(struct lace_batch *b)
{
	if (b->fd >= 0)
		close(b->fd);
	for (size_t i = 0; i < b->nevents; i++) {
		free(b->events[i].name);
		free(b->events[i].unit);
	}
	free(b->events);
	for (size_t i = 0; i < b->nruns; i++) {
		free(b->runs[i].values);
		free(b->runs[i].status);
		free(b->runs[i].enabled);
		free(b->runs[i].running);
	}
	free(b->runs);
	free(b->command);
	free(b->cmd_a);
	free(b->cmd_b);
	free(b->backend);
	free(b->machine);
	free(b->path);
	if (b->header)
		json_decref(b->header);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

/* ---- reading ---------------------------------------------------------- */

static char *dup_field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static double real_field(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

static int load_header(struct lace_batch *b, json_t *h, const char *path)
{
	json_t *kind = json_object_get(h, "kind"), *evs = json_object_get(h, "events");

	if (!json_is_object(h) || !json_is_integer(json_object_get(h, "lace_results")))
		return lace_error_set(EINVAL, "%s: not a lace results file (no header line)", path);
	if (!json_is_string(kind) || (strcmp(json_string_value(kind), "stat") &&
				      strcmp(json_string_value(kind), "ab")))
		return lace_error_set(EINVAL, "%s: unknown batch kind in the header", path);
	if (!json_is_array(evs))
		return lace_error_set(EINVAL, "%s: header has no events", path);
	snprintf(b->kind, sizeof(b->kind), "%s", json_string_value(kind));
	b->nevents = json_array_size(evs);
	b->events = xcalloc(b->nevents, sizeof(*b->events));
	for (size_t i = 0; i < b->nevents; i++) {
		json_t *e = json_array_get(evs, i);
		b->events[i].name = dup_field(e, "name");
		b->events[i].unit = dup_field(e, "unit");
		if (!b->events[i].name)
			return lace_error_set(EINVAL, "%s: event %zu has no name", path, i + 1);
		if (!b->events[i].unit)
			b->events[i].unit = xstrdup("");
		b->events[i].scale = real_field(e, "scale", 1.0);
		b->events[i].simulated = json_is_true(json_object_get(e, "simulated"));
	}
	b->command = dup_field(h, "command");
	b->cmd_a = dup_field(h, "a");
	b->cmd_b = dup_field(h, "b");
	b->backend = dup_field(h, "backend");
	b->machine = dup_field(h, "machine");
	b->margin = real_field(h, "margin", 0.01);
	b->confidence = real_field(h, "confidence", 0.95);
	b->header = json_incref(h);
	return 0;
}

int run_result_from_json(json_t *o, struct lace_run_result *res, char *why, size_t whylen)
{
	json_t *counts = json_object_get(o, "counts"), *f = json_object_get(o, "fault");
	json_t *procs = json_object_get(o, "procs"), *extra = json_object_get(o, "backend_data");
	enum lace_run_fault fault = LACE_FAULT_NONE;

	if (!json_is_array(counts) || json_array_size(counts) != res->nevents) {
		snprintf(why, whylen, "run has %zu counts, the header %zu events",
			 json_array_size(counts), res->nevents);
		return -EINVAL;
	}
	if (json_is_string(f) && run_fault_parse(json_string_value(f), &fault)) {
		snprintf(why, whylen, "unknown fault '%s'", json_string_value(f));
		return -EINVAL;
	}
	res->fault = fault;
	const char *msg = json_string_value(json_object_get(o, "fault_msg"));
	snprintf(res->fault_msg, sizeof(res->fault_msg), "%s", msg ? msg : "");
	res->elapsed_s = real_field(o, "elapsed", NAN);
	res->user_s = real_field(o, "user", NAN);
	res->sys_s = real_field(o, "sys", NAN);
	res->ctx_switches = (long)real_field(o, "ctx_switches", -1);
	res->migrations = (long)real_field(o, "migrations", -1);
	res->exit_status = (int)real_field(o, "exit_status", -1);
	res->term_signal = (int)real_field(o, "signal", 0);
	res->timed_out = json_is_true(json_object_get(o, "timed_out"));
	res->output_bytes = (uint64_t)real_field(o, "output_bytes", 0);
	res->leftover = (int)real_field(o, "leftover", 0);
	for (size_t i = 0; i < res->nevents; i++) {
		json_t *c = json_array_get(counts, i);
		const char *st = json_string_value(json_object_get(c, "status"));
		struct lace_count *k = &res->counts[i];
		k->status = LACE_COUNT_NOT_COUNTED;
		if (st && !strcmp(st, "counted"))
			k->status = LACE_COUNT_OK;
		else if (st && !strcmp(st, "not_supported"))
			k->status = LACE_COUNT_NOT_SUPPORTED;
		k->value = real_field(c, "value", NAN);
		k->raw = (uint64_t)real_field(c, "raw", 0);
		k->time_enabled = (uint64_t)real_field(c, "enabled", 0);
		k->time_running = (uint64_t)real_field(c, "running", 0);
		if (k->status == LACE_COUNT_OK && isnan(k->value))
			k->status = LACE_COUNT_NOT_COUNTED;
	}
	if (json_is_array(procs) && json_array_size(procs)) {
		res->procs = xcalloc(json_array_size(procs), sizeof(*res->procs));
		for (size_t p = 0; p < json_array_size(procs); p++) {
			json_t *po = json_array_get(procs, p), *vals = json_object_get(po, "values");
			struct lace_proc_result *pr = &res->procs[res->nprocs++];
			const char *comm = json_string_value(json_object_get(po, "comm"));
			pr->pid = (pid_t)real_field(po, "pid", 0);
			snprintf(pr->comm, sizeof(pr->comm), "%s", comm ? comm : "");
			pr->values = xcalloc(res->nevents, sizeof(double));
			for (size_t i = 0; i < res->nevents; i++)
				pr->values[i] = lace_json_num(json_array_get(vals, i));
		}
	}
	if (extra)
		res->extra = json_incref(extra);
	return 0;
}

static int load_run(struct lace_batch *b, json_t *o, const char *path, size_t line)
{
	json_t *side = json_object_get(o, "side");
	struct lace_run_result res;
	char why[128];

	run_result_init(&res, b->nevents);
	if (run_result_from_json(o, &res, why, sizeof(why))) {
		run_result_release(&res);
		return lace_error_set(EINVAL, "%s:%zu: %s", path, line, why);
	}
	int round = (int)real_field(o, "round", (double)b->nruns);
	char sd = json_is_string(side) ? json_string_value(side)[0] : 0;
	batch_add_run(b, &res, round, sd, json_is_true(json_object_get(o, "warmup")));
	run_result_release(&res);
	return 0;
}

int batch_load(struct lace_batch *b, const char *path, char *warning, size_t wlen)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (warning && wlen)
		warning[0] = '\0';
	err = strbuf_read_file(&sb, path);
	if (err) {
		strbuf_release(&sb);
		return lace_error_set(-err, "%s: %s", path, strerror(-err));
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return lace_error_set(EINVAL, "%s: empty results file", path);
	}
	char *p = sb.buf, *end = sb.buf + sb.len;
	size_t line = 0;
	while (p < end && !err) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		bool last = !nl || nl + 1 >= end;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_error_t je;
		line++;
		if (len == 0) {
			p += 1;
			continue;
		}
		json_t *o = json_loadb(p, len, 0, &je);
		if (!o) {
			/* a final line that does not parse is a write cut short */
			if (last && line > 1) {
				if (warning)
					snprintf(warning, wlen, "%s:%zu: last line is cut short (interrupted write); ignored",
						 path, line);
				break;
			}
			err = lace_error_set(EINVAL, "%s:%zu: not JSON (%s)", path, line, je.text);
			break;
		}
		if (line == 1)
			err = load_header(b, o, path);
		else if (json_is_true(json_object_get(o, "end"))) {
			b->finished = true;
			b->interrupted = json_is_true(json_object_get(o, "interrupted"));
		} else
			err = load_run(b, o, path, line);
		json_decref(o);
		p = nl ? nl + 1 : end;
	}
	strbuf_release(&sb);
	if (err)
		batch_release(b);
	return err;
}

size_t batch_count_runs(const struct lace_batch *b, bool include_warmup)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nruns; i++)
		n += include_warmup || !b->runs[i].warmup;
	return n;
}

size_t batch_count_ok(const struct lace_batch *b, bool include_warmup)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nruns; i++)
		if ((include_warmup || !b->runs[i].warmup) && b->runs[i].fault == LACE_FAULT_NONE)
			n++;
	return n;
}

void batch_fault_summary(const struct lace_batch *b, char *buf, size_t len)
{
	size_t counts[LACE_FAULT_INTERRUPTED + 1] = { 0 };
	const char *example[LACE_FAULT_INTERRUPTED + 1] = { 0 };
	size_t failed = 0, total = 0;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < b->nruns; i++) {
		const struct lace_batch_run *r = &b->runs[i];
		if (r->warmup)
			continue;
		total++;
		if (r->fault == LACE_FAULT_NONE || r->fault > LACE_FAULT_INTERRUPTED)
			continue;
		failed++;
		counts[r->fault]++;
		if (!example[r->fault])
			example[r->fault] = r->fault_msg;
	}
	buf[0] = '\0';
	if (!failed)
		return;
	strbuf_addf(&sb, "%zu of %zu runs failed:", failed, total);
	const char *sep = " ";
	for (int f = 1; f <= LACE_FAULT_INTERRUPTED; f++) {
		if (!counts[f])
			continue;
		strbuf_addf(&sb, "%s%zu %s (%s)", sep, counts[f], run_fault_name((enum lace_run_fault)f),
			    example[f] ? example[f] : "");
		sep = ", ";
	}
	snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
}
