/* lace study --kernel's jobs as a plan folder; see kstudy_jobs.h. */
#include "pipeline/kstudy/kstudy_jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/selfexec.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/run.h"
#include "util/sha256.h"
#include "util/time.h"
#include "util/xalloc.h"

struct kjob *kjobs_add(struct kjobs *q, int stage, const char *phase, const char *what,
		       bool self)
{
	struct kjob *j;

	ALLOC_GROW(q->v, q->nr + 1, q->alloc);
	j = &q->v[q->nr];
	memset(j, 0, sizeof(*j));
	snprintf(j->id, sizeof(j->id), "j%04zu", q->nr++);
	j->stage = stage;
	j->phase = xstrdup(phase);
	j->what = xstrdup(what);
	j->self = self;
	j->exit = -1;
	strvec_init(&j->argv);
	strvec_init(&j->inputs);
	strvec_init(&j->guest);
	strbuf_init(&j->out, 0);
	strbuf_init(&j->err, 0);
	return j;
}

void kjob_input(struct kjob *j, const char *path)
{
	strvec_push(&j->argv, path);
	strvec_push(&j->inputs, path);
}

void kjob_guest_input(struct kjob *j, const char *path)
{
	kjob_input(j, path);
	strvec_push(&j->guest, path);
}

char *kjob_output(struct kjob *j, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	j->files = true;
	strbuf_addf(&sb, "out/%s.files/%s", j->id, name);
	return strbuf_detach(&sb, NULL);
}

void kjobs_clear(struct kjobs *q)
{
	for (size_t i = 0; i < q->nr; i++) {
		struct kjob *j = &q->v[i];

		free(j->phase);
		free(j->what);
		free(j->arg);
		strvec_clear(&j->argv);
		strvec_clear(&j->inputs);
		strvec_clear(&j->guest);
		strbuf_release(&j->out);
		strbuf_release(&j->err);
	}
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* ---- where a job's result goes: a JSON pointer into the results -------- */

static void add_ptr_token(struct strbuf *sb, const char *k)
{
	strbuf_addch(sb, '/');
	for (; *k; k++) {
		if (*k == '~')
			strbuf_addstr(sb, "~0");
		else if (*k == '/')
			strbuf_addstr(sb, "~1");
		else
			strbuf_addch(sb, *k);
	}
}

/* the pointer of target inside root, appended to sb; false if absent */
static bool ptr_of(const json_t *root, const json_t *target, struct strbuf *sb)
{
	size_t len = sb->len, i;
	const char *k;
	json_t *v;

	if (root == target)
		return true;
	if (json_is_object(root)) {
		json_object_foreach((json_t *)root, k, v) {
			add_ptr_token(sb, k);
			if (ptr_of(v, target, sb))
				return true;
			strbuf_setlen(sb, len);
		}
	} else if (json_is_array(root)) {
		json_array_foreach(root, i, v) {
			strbuf_addf(sb, "/%zu", i);
			if (ptr_of(v, target, sb))
				return true;
			strbuf_setlen(sb, len);
		}
	}
	return false;
}

static json_t *ptr_get(json_t *root, const char *ptr)
{
	while (root && *ptr == '/') {
		struct strbuf tok = STRBUF_INIT;

		for (ptr++; *ptr && *ptr != '/'; ptr++) {
			if (*ptr == '~' && (ptr[1] == '0' || ptr[1] == '1'))
				strbuf_addch(&tok, *++ptr == '0' ? '~' : '/');
			else
				strbuf_addch(&tok, *ptr);
		}
		if (json_is_array(root))
			root = json_array_get(root, strtoul(tok.buf, NULL, 10));
		else
			root = json_object_get(root, tok.buf);
		strbuf_release(&tok);
	}
	return root;
}

/* ---- writing the plan --------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (!link(from, to) || errno == EEXIST)
		return 0;
	if ((rc = strbuf_read_file(&sb, from)) >= 0)
		rc = fs_write_file(to, sb.buf, sb.len);
	strbuf_release(&sb);
	if (rc >= 0)
		chmod(to, 0755);
	return rc;
}

/* inputs/SHA256/NAME for path, the file put there; NULL when path does
 * not exist yet (a build job of the plan makes it: the job reads it where
 * the build puts it) */
static char *hashed_input(const char *dir, const char *path)
{
	struct strbuf rel = STRBUF_INIT, full = STRBUF_INIT;
	const char *base = strrchr(path, '/');
	char hex[65];

	if (access(path, R_OK) || sha256_file_hex(path, hex) < 0)
		return NULL;
	strbuf_addf(&rel, "inputs/%s", hex);
	strbuf_addf(&full, "%s/%s", dir, rel.buf);
	fs_mkdir_p(full.buf, 0755);
	strbuf_addf(&rel, "/%s", base ? base + 1 : path);
	strbuf_addf(&full, "/%s", base ? base + 1 : path);
	if (copy_file(path, full.buf) < 0) {
		strbuf_release(&rel);
		strbuf_release(&full);
		return NULL;
	}
	/* an ELF's link map goes with it: lace replay reads NAME.map and
	 * NAME.map.align beside it (virtual layouts by input section) */
	static const char *const sidecars[] = { ".map", ".map.align" };
	for (size_t i = 0; i < ARRAY_SIZE(sidecars); i++) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		strbuf_addf(&a, "%s%s", path, sidecars[i]);
		strbuf_addf(&b, "%s%s", full.buf, sidecars[i]);
		if (!access(a.buf, R_OK) && copy_file(a.buf, b.buf) < 0)
			rel.len = 0;
		strbuf_release(&a);
		strbuf_release(&b);
	}
	if (!rel.len) {
		strbuf_release(&rel);
		strbuf_release(&full);
		return NULL;
	}
	strbuf_release(&full);
	return strbuf_detach(&rel, NULL);
}

static json_t *strvec_json(const struct strvec *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->nr; i++)
		json_array_append_new(a, json_string(v->v[i]));
	return a;
}

/* The folder a guest's program is staged in, the same on every machine:
 * the qemu backend puts the program into the guest at its host path, and
 * the path's length moves what the guest executes (argv, the stack), so a
 * program read from wherever the plan or checkout happens to sit would
 * give other counts on each machine. */
#define GUEST_STAGE "/tmp/lace-in"

/* the path the job passes for arg, with the shell line staging it first
 * (guest programs) added to pre */
static char *job_path(const char *dir, const struct kjob *j, const char *arg, bool hash_inputs,
		      struct strbuf *pre, json_t *inputs)
{
	bool input = false, guest = false;
	char *h = NULL, hex[65];

	for (size_t k = 0; k < j->inputs.nr; k++)
		input |= !strcmp(arg, j->inputs.v[k]);
	for (size_t k = 0; k < j->guest.nr; k++)
		guest |= !strcmp(arg, j->guest.v[k]);
	if (!input)
		return xstrdup(arg);
	if (hash_inputs)
		h = hashed_input(dir, arg);
	json_array_append_new(inputs, json_string(h ? h : arg));
	if (!guest || sha256_file_hex(arg, hex) < 0)
		return h ? h : xstrdup(arg);

	const char *base = strrchr(arg, '/');
	struct strbuf st = STRBUF_INIT, src = STRBUF_INIT;

	base = base ? base + 1 : arg;
	strbuf_addf(&st, GUEST_STAGE "/%s/%s", hex, base);
	strbuf_add_sq(&src, h ? h : arg);
	/* content-named: any copy is the right one; the rename makes a
	 * half-written one invisible to a job beside it */
	strbuf_addf(pre, "[ -x '%s' ] || { mkdir -p '" GUEST_STAGE "/%s' && cp %s '%s.'$$ && "
		    "mv -f '%s.'$$ '%s'; }\n", st.buf, hex, src.buf, st.buf, st.buf, st.buf);
	strbuf_release(&src);
	free(h);
	return strbuf_detach(&st, NULL);
}

static int write_script(const char *dir, const struct kjob *j, bool hash_inputs, json_t *inputs)
{
	struct strbuf sh = STRBUF_INIT, cmd = STRBUF_INIT, pre = STRBUF_INIT, path = STRBUF_INIT;
	int rc;

	if (j->self)
		strbuf_addstr(&cmd, "\"${LACE:-lace}\"");
	for (size_t a = 0; a < j->argv.nr; a++) {
		char *arg = job_path(dir, j, j->argv.v[a], hash_inputs, &pre, inputs);

		if (j->self || a)
			strbuf_addch(&cmd, ' ');
		strbuf_add_sq(&cmd, arg);
		free(arg);
	}
	/* out/ID.files always: an engine that copies each job's outputs back
	 * (GNU parallel's --return) finds one folder whether the job wrote a
	 * file there or not */
	strbuf_addf(&sh, "#!/bin/sh\n# %s: %s\n# run in the plan folder; out/%s.rc is written last\n"
		    "mkdir -p out/%s.files\nt0=$(date +%%s.%%N)\n%s%s >out/%s.out 2>out/%s.err\n"
		    "echo $? \"$t0\" \"$(date +%%s.%%N)\" >out/%s.rc\n", j->phase, j->what, j->id,
		    j->id, pre.buf, cmd.buf, j->id, j->id, j->id);
	strbuf_addf(&path, "%s/jobs/%s.sh", dir, j->id);
	rc = fs_write_file(path.buf, sh.buf, sh.len);
	strbuf_release(&sh);
	strbuf_release(&cmd);
	strbuf_release(&pre);
	strbuf_release(&path);
	return rc;
}

int kjobs_write(struct kjobs *q, const char *dir, const json_t *results, bool hash_inputs)
{
	json_t *plan = json_object(), *jobs = json_array();
	struct strbuf p = STRBUF_INIT;
	int rc = 0, nstages = 0;

	strbuf_addf(&p, "%s/jobs", dir);
	if ((rc = fs_mkdir_p(p.buf, 0755)) < 0 || (strbuf_reset(&p), strbuf_addf(&p, "%s/out", dir),
						    rc = fs_mkdir_p(p.buf, 0755)) < 0) {
		strbuf_release(&p);
		json_decref(plan);
		json_decref(jobs);
		return rc;
	}
	json_object_set_new(plan, "schema", json_string("lace-study-kernel-plan"));
	json_object_set_new(plan, "schema_version", json_integer(1));
	for (size_t i = 0; i < q->nr && rc >= 0; i++) {
		struct kjob *j = &q->v[i];
		struct strbuf ptr = STRBUF_INIT;
		json_t *inputs = json_array();

		rc = write_script(dir, j, hash_inputs, inputs);
		if (j->dest && !ptr_of(results, j->dest, &ptr))
			rc = lace_error_set(EINVAL, "%s: its result has no place in the results", j->what);
		json_array_append_new(jobs, json_pack("{s:s,s:i,s:s,s:s,s:b,s:o,s:o,s:i,s:s,s:b,s:s?}",
			"id", j->id, "stage", j->stage, "phase", j->phase, "what", j->what, "self", j->self,
			"argv", strvec_json(&j->argv), "inputs", inputs, "fill", j->fill,
			"dest", ptr.buf, "enabled", j->enabled, "arg", j->arg));
		json_object_set_new(json_array_get(jobs, json_array_size(jobs) - 1), "files",
				    json_boolean(j->files));
		strbuf_release(&ptr);
		if (j->stage + 1 > nstages)
			nstages = j->stage + 1;
	}
	for (int s = 0; s < nstages && rc >= 0; s++) {
		struct strbuf ids = STRBUF_INIT;

		for (size_t i = 0; i < q->nr; i++)
			if (q->v[i].stage == s)
				strbuf_addf(&ids, "%s\n", q->v[i].id);
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/stage-%d.txt", dir, s);
		rc = fs_write_file(p.buf, ids.buf, ids.len);
		strbuf_release(&ids);
	}
	json_object_set_new(plan, "stages", json_integer(nstages));
	json_object_set_new(plan, "jobs", jobs);
	json_object_set(plan, "results", (json_t *)results);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/plan.json", dir);
	if (rc >= 0 && json_dump_file(plan, p.buf, JSON_INDENT(1) | JSON_SORT_KEYS) < 0)
		rc = lace_error_set(EIO, "%s: cannot write", p.buf);
	json_decref(plan);
	strbuf_release(&p);
	return rc;
}

int kjobs_read_plan(struct kjobs *q, const char *dir, json_t **results)
{
	struct strbuf p = STRBUF_INIT;
	json_error_t je;
	json_t *plan, *jo;
	size_t i;

	strbuf_addf(&p, "%s/plan.json", dir);
	plan = json_load_file(p.buf, 0, &je);
	if (!plan) {
		int rc = lace_error_set(ENOENT, "%s: %s", p.buf, je.text);
		strbuf_release(&p);
		return rc;
	}
	strbuf_release(&p);
	*results = json_incref(json_object_get(plan, "results"));
	json_array_foreach(json_object_get(plan, "jobs"), i, jo) {
		struct kjob *j = kjobs_add(q, (int)json_integer_value(json_object_get(jo, "stage")),
			json_string_value(json_object_get(jo, "phase")) ?: "",
			json_string_value(json_object_get(jo, "what")) ?: "",
			json_is_true(json_object_get(jo, "self")));
		size_t a;
		json_t *v;

		json_array_foreach(json_object_get(jo, "argv"), a, v)
			strvec_push(&j->argv, json_string_value(v) ?: "");
		/* the files it read, as the plan names them (inputs/SHA256/NAME
		 * with --plan): a fill step may read them again */
		json_array_foreach(json_object_get(jo, "inputs"), a, v)
			strvec_push(&j->inputs, json_string_value(v) ?: "");
		j->fill = (int)json_integer_value(json_object_get(jo, "fill"));
		j->enabled = json_is_true(json_object_get(jo, "enabled"));
		j->files = json_is_true(json_object_get(jo, "files"));
		if (json_string_value(json_object_get(jo, "arg")))
			j->arg = xstrdup(json_string_value(json_object_get(jo, "arg")));
		j->dest = ptr_get(*results, json_string_value(json_object_get(jo, "dest")) ?: "");
	}
	json_decref(plan);
	if (!*results)
		return lace_error_set(EINVAL, "%s/plan.json: no results skeleton", dir);
	return 0;
}

/* ---- running and reading back ------------------------------------------ */

static void load_one(struct kjob *j, const char *dir)
{
	struct strbuf p = STRBUF_INIT, rc = STRBUF_INIT;
	double t0 = 0, t1 = 0;
	int ex = -1;

	j->exit = -1;
	j->seconds = 0;
	strbuf_reset(&j->out);
	strbuf_reset(&j->err);
	strbuf_addf(&p, "%s/out/%s.rc", dir, j->id);
	if (strbuf_read_file(&rc, p.buf) >= 0 && sscanf(rc.buf, "%d %lf %lf", &ex, &t0, &t1) >= 1) {
		j->exit = ex;
		j->seconds = t1 > t0 ? t1 - t0 : 0;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/out/%s.out", dir, j->id);
		strbuf_read_file(&j->out, p.buf);
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/out/%s.err", dir, j->id);
		strbuf_read_file(&j->err, p.buf);
	}
	strbuf_release(&p);
	strbuf_release(&rc);
}

void kjobs_load(struct kjobs *q, const char *dir)
{
	for (size_t i = 0; i < q->nr; i++)
		load_one(&q->v[i], dir);
}

struct stage_progress {
	const struct kjobs *q;
	const size_t *idx;
	const struct kjobs_progress *pr;
	double start;
	const struct run_pool *pool;
	const char *dir;
	size_t failed;           /* the stage's jobs that failed so far */
};

static void pool_progress(void *data, size_t done, size_t total, int end)
{
	struct stage_progress *sp = data;
	double now = time_now_s();

	if (end || sp->pool->last < 0)
		return;
	struct kjob *j = &sp->q->v[sp->idx[sp->pool->last]];
	char what[1024];

	const struct kjobs_progress *pr = sp->pr;
	size_t all = pr->total ? pr->total : total;

	/* the job's outcome, read now: a failure says so at once, with the
	 * line that says why, not only in the report at the end */
	load_one(j, sp->dir);
	bool failed = j->exit < 0 || j->exit > j->ok_exit;
	sp->failed += failed;
	/* the phase's count; the reading a boot is for, with it.  The
	 * estimate is this stage's pace over what is left of the phase. */
	snprintf(what, sizeof(what), "%s%s%s%s%.700s", strcmp(j->phase, pr->name) ? j->phase : "",
		 strcmp(j->phase, pr->name) ? ": " : "", j->what, failed ? ": failed: " : "",
		 j->exit < 0 ? "it did not finish" : failed ? strbuf_last_line(&j->err) : "");
	pr->fn(pr->data, &(struct study_progress){
		.phase = pr->name, .what = what, .done = pr->done + done, .total = all,
		.failed = pr->failed + sp->failed, .step_failed = failed, .elapsed = now - pr->t0,
		.left = done ? (now - sp->start) / done * (double)(all - pr->done - done) : -1 });
}

int kjobs_run_stage(struct kjobs *q, const char *dir, int stage, int max, struct kjobs_progress *pr)
{
	struct run_pool pool = RUN_POOL_INIT;
	size_t *idx = xcalloc(q->nr + 1, sizeof(*idx)), n = 0;
	struct strbuf lace = STRBUF_INIT, p = STRBUF_INIT;
	struct stage_progress sp = { q, idx, pr, time_now_s(), &pool, dir, 0 };

	strbuf_addf(&lace, "LACE=%s", selfexec_path());
	for (size_t i = 0; i < q->nr; i++) {
		if (q->v[i].stage != stage)
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/out/%s.rc", dir, q->v[i].id);
		unlink(p.buf);
		strbuf_reset(&p);
		strbuf_addf(&p, "jobs/%s.sh", q->v[i].id);
		struct run_job *rj = run_pool_add(&pool, dir, NULL, q->v[i].what);
		strvec_pushv(&rj->argv, (const char *[]){ "env", lace.buf, "sh", p.buf, NULL });
		idx[n++] = i;
	}
	/* a job's failure is its own result (the study says "not measured"
	 * where it was needed): the pool stops starting jobs after one, so
	 * the scripts always exit 0 and keep the status in out/ID.rc */
	run_pool_run(&pool, max, pr->fn ? pool_progress : NULL, &sp);
	pr->done += n;
	for (size_t k = 0; k < n; k++) {
		load_one(&q->v[idx[k]], dir);
		pr->failed += q->v[idx[k]].exit < 0 || q->v[idx[k]].exit > q->v[idx[k]].ok_exit;
	}
	run_pool_clear(&pool);
	strbuf_release(&lace);
	strbuf_release(&p);
	free(idx);
	return 0;
}
