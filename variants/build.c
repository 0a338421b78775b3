/* The `lace build` driver; see build.h.  Builds are reproducible: fixed
 * paths via -ffile-prefix-map, a content-hash build-id (--build-id=sha1,
 * which perf needs to find SDT notes), no timestamps, so two builds with
 * the same seed are byte-identical wherever OUT is. */
#include "variants/build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fs.h"
#include "util/run.h"
#include "util/run_command.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "variants/shuffle.h"

/* "bench/hackbench.c" -> "bench_hackbench.o" */
static void obj_name(struct strbuf *sb, const char *rel)
{
	for (const char *p = rel; *p; p++)
		strbuf_addch(sb, *p == '/' ? '_' : *p);
	strbuf_setlen(sb, sb->len - 2);
	strbuf_addstr(sb, ".o");
}

static char *compiler_version(const char *cc)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *line = NULL;

	strvec_pushv(&cp.args, (const char *[]){ cc, "--version", NULL });
	cp.out_capture = 1;
	cp.err_null = 1;
	if (!child_process_run(&cp) && cp.out.len) {
		line = strbuf_detach(&cp.out, NULL);
		line[strcspn(line, "\n")] = 0;
	}
	child_process_clear(&cp);
	return line ? line : xstrdup(cc);
}

/* The flags every variant shares.  -no-pie: the scripts are ld's script
 * for non-PIE executables.  The prefix maps keep paths out of the output,
 * so builds are byte-identical wherever they happen. */
static void common_cflags(const struct variants_build *b, struct strvec *l)
{
	strvec_split(l, "-std=gnu11 -O2 -g -D_GNU_SOURCE -fno-pie -pthread");
	strvec_pushf(l, "-I%s", b->cfg->src);
	strvec_pushf(l, "-ffile-prefix-map=%s=/usr/src/lace", b->cfg->src);
	strvec_pushf(l, "-ffile-prefix-map=%s=.", b->out);
}

/* The sources of one program, in link order. */
static void program_sources(const struct variants_config *c, const struct program *p,
			    struct strvec *l)
{
	strvec_pushv(l, p->srcs.v);
	if (strcmp(p->name, "hashmmu-driver"))
		strvec_pushv(l, c->common.v);
	if (p->handlers)
		for (size_t i = 0; i < c->gen_outputs.nr; i++)
			strvec_pushf(l, ".gen/%s", c->gen_outputs.v[i]);
	strvec_pushv(l, c->study.v);
}

static void all_sources(const struct variants_config *c, struct strvec *l)
{
	for (size_t i = 0; i < c->nprogs; i++)
		program_sources(c, &c->progs[i], l);
}

struct phase {
	const struct variants_build *b;
	const char *name;
};

static void phase_progress(void *data, size_t done, size_t total, int end)
{
	const struct phase *ph = data;

	ph->b->progress(ph->b->progress_data, ph->name, done, total, end);
}

static int run_phase(const struct variants_build *b, struct run_pool *pool, const char *name)
{
	struct phase ph = { b, name };
	int rc = run_pool_finish(pool, b->jobs, b->progress ? phase_progress : NULL, &ph);

	run_pool_clear(pool);
	return rc;
}

/* ---- the generator (host tool, run once, shared by all variants) ----- */
static int run_generator(const struct variants_build *b)
{
	const struct variants_config *c = b->cfg;
	struct strbuf dir = STRBUF_INIT, log = STRBUF_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc, handlers = 0;

	for (size_t i = 0; i < c->nprogs; i++)
		handlers |= c->progs[i].handlers;
	if (!handlers)
		return 0;
	if (!c->gen_src || !c->gen_outputs.nr)
		return lace_error_set(EINVAL, "bench/workloads.conf: handlers wanted but no [generator]");
	strbuf_addf(&dir, "%s/.gen", b->out);
	if ((rc = fs_mkdir_p(dir.buf, 0755)))
		goto out;
	strbuf_addf(&log, "%s/gen.log", dir.buf);
	unlink(log.buf);
	cp.dir = dir.buf;
	cp.log = log.buf;
	strvec_push(&cp.args, b->cc);
	strvec_split(&cp.args, "-std=gnu11 -O2 -o gen_handlers");
	strvec_pushf(&cp.args, "-I%s", c->src);
	strvec_pushf(&cp.args, "%s/%s", c->src, c->gen_src);
	strvec_split(&cp.args, c->gen_libs);
	rc = child_process_run_ok(&cp, "building the handler generator");
	if (!rc) {
		strvec_clear(&cp.args);
		strvec_split(&cp.args, "./gen_handlers --out .");
		strvec_split(&cp.args, c->gen_args);
		rc = child_process_run_ok(&cp, "the handler generator");
	}
out:
	child_process_clear(&cp);
	strbuf_release(&dir);
	strbuf_release(&log);
	return rc;
}

/* ---- one variant ----------------------------------------------------- */
/* A variant's objects live in one folder per distinct set of compile
 * flags, OUT/.obj-<hash>/obj, so variants that differ only in their linker
 * script (baseline, entry-out; the two -cold ones; all shuffled builds)
 * compile once.  OUT/<variant>/obj links to it. */
static int queue_compiles(const struct variants_build *b, const struct plan_variant *v,
			  struct run_pool *pool, struct strvec *seen_objdirs)
{
	struct strbuf log = STRBUF_INIT, o = STRBUF_INIT, cwd = STRBUF_INIT;
	struct strvec srcs = STRVEC_INIT, flags = STRVEC_INIT, done = STRVEC_INIT;
	int rc;

	if ((rc = fs_mkdir_p(v->dir, 0755)) || (rc = fs_mkdir_p(v->objdir, 0755)))
		goto out;
	strbuf_addf(&log, "%s/build.log", v->dir);
	unlink(log.buf);
	strbuf_addf(&o, "%s/obj", v->dir);
	unlink(o.buf);
	/* relative, so the output folder can move */
	strbuf_addf(&cwd, "../%s", v->objdir + strlen(b->out) + 1);
	if (symlink(cwd.buf, o.buf) && errno != EEXIST) {
		rc = lace_error_set(errno, "%s: cannot link the objects: %s", o.buf, strerror(errno));
		goto out;
	}
	if (strvec_find(seen_objdirs, v->objdir) >= 0)
		goto out; /* an earlier variant with the same flags compiles them */
	strvec_push(seen_objdirs, v->objdir);
	all_sources(b->cfg, &srcs);
	common_cflags(b, &flags);
	strvec_pushv(&flags, v->cflags.v);
	/* run in the object dir's parent so DW_AT_comp_dir is under OUT */
	strbuf_reset(&cwd);
	strbuf_add(&cwd, v->objdir, strlen(v->objdir) - strlen("/obj"));
	for (size_t i = 0; i < srcs.nr; i++) {
		const char *src = srcs.v[i];
		struct strbuf what = STRBUF_INIT;
		struct run_job *j;

		if (strvec_find(&done, src) >= 0)
			continue;
		strvec_push(&done, src);
		strbuf_addf(&what, "%s: compiling %s", v->name, src);
		j = run_pool_add(pool, cwd.buf, log.buf, what.buf);
		strbuf_release(&what);
		strvec_push(&j->argv, b->cc);
		strvec_pushv(&j->argv, flags.v);
		strvec_split(&j->argv, "-c -o");
		strbuf_reset(&o);
		strbuf_addstr(&o, "obj/");
		obj_name(&o, src);
		strvec_push(&j->argv, o.buf);
		if (!strncmp(src, ".gen/", 5))
			strvec_pushf(&j->argv, "%s/%s", b->out, src);
		else
			strvec_pushf(&j->argv, "%s/%s", b->cfg->src, src);
	}
out:
	strvec_clear(&srcs);
	strvec_clear(&flags);
	strvec_clear(&done);
	strbuf_release(&log);
	strbuf_release(&o);
	strbuf_release(&cwd);
	return rc;
}

/* OUT/<variant>/link.ld for a shuffled build: every distinct object. */
static int write_link_ld(const struct variants_build *b, const struct plan_variant *v,
			 struct strbuf *script)
{
	struct strvec srcs = STRVEC_INIT, objs = STRVEC_INIT;
	struct strbuf s = STRBUF_INIT;
	int rc;

	all_sources(b->cfg, &srcs);
	for (size_t i = 0; i < srcs.nr; i++) {
		strbuf_reset(&s);
		obj_name(&s, srcs.v[i]);
		if (strvec_find(&objs, s.buf) < 0)
			strvec_push(&objs, s.buf);
	}
	strbuf_addf(script, "%s/link.ld", v->dir);
	rc = shuffle_write_script(v->script_path, &objs, v->objdir, v->seed, v->shuffle,
				  script->buf);
	strvec_clear(&srcs);
	strvec_clear(&objs);
	strbuf_release(&s);
	return rc;
}

static int queue_links(const struct variants_build *b, const struct plan_variant *v,
		       struct run_pool *pool)
{
	const struct variants_config *c = b->cfg;
	struct strbuf log = STRBUF_INIT, script = STRBUF_INIT, s = STRBUF_INIT;
	int rc = 0;

	strbuf_addf(&log, "%s/build.log", v->dir);
	if (v->shuffle)
		rc = write_link_ld(b, v, &script);
	else
		strbuf_addstr(&script, v->script_path);
	for (size_t i = 0; i < c->nprogs && !rc; i++) {
		struct strvec srcs = STRVEC_INIT, seen = STRVEC_INIT;
		struct strbuf what = STRBUF_INIT;
		struct run_job *j;

		program_sources(c, &c->progs[i], &srcs);
		strbuf_addf(&what, "%s: linking %s", v->name, c->progs[i].name);
		j = run_pool_add(pool, v->dir, log.buf, what.buf);
		strbuf_release(&what);
		strvec_push(&j->argv, b->cc);
		strvec_split(&j->argv, "-no-pie -pthread -Wl,--build-id=sha1");
		strvec_pushf(&j->argv, "-Wl,-T,%s", script.buf);
		strvec_split(&j->argv, v->ldflags);
		strvec_push(&j->argv, "-o");
		strvec_push(&j->argv, c->progs[i].name);
		for (size_t k = 0; k < srcs.nr; k++) {
			strbuf_reset(&s);
			strbuf_addf(&s, "%s/", v->objdir);
			obj_name(&s, srcs.v[k]);
			if (strvec_find(&seen, s.buf) >= 0)
				continue;
			strvec_push(&seen, s.buf);
			strvec_push(&j->argv, s.buf);
		}
		strvec_push(&j->argv, "-lm");
		strvec_pushv(&j->argv, c->libs.v);
		strvec_clear(&srcs);
		strvec_clear(&seen);
	}
	strbuf_release(&log);
	strbuf_release(&script);
	strbuf_release(&s);
	return rc;
}

/* ---- the whole build ------------------------------------------------- */
int variants_build_start(struct variants_build *b, const char *out)
{
	int rc = fs_mkdir_p(out, 0755);

	if (rc)
		return rc;
	if (!(b->out = realpath(out, NULL)))
		return lace_error_set(errno, "%s: %s", out, strerror(errno));
	plan_set_out(b->plan, b->out);
	b->compiler = compiler_version(b->cc);
	return 0;
}

int variants_build_run(struct variants_build *b)
{
	struct run_pool pool = RUN_POOL_INIT;
	struct strvec seen = STRVEC_INIT;
	struct plan *p = b->plan;
	int rc = run_generator(b);

	for (size_t i = 0; i < p->nr && !rc; i++)
		rc = queue_compiles(b, &p->v[i], &pool, &seen);
	strvec_clear(&seen);
	if (!rc)
		rc = run_phase(b, &pool, "compiling");
	run_pool_clear(&pool);
	for (size_t i = 0; i < p->nr && !rc; i++)
		rc = queue_links(b, &p->v[i], &pool);
	if (!rc)
		rc = run_phase(b, &pool, "linking");
	run_pool_clear(&pool);
	return rc;
}

void variants_build_release(struct variants_build *b)
{
	free(b->out);
	free(b->compiler);
	b->out = b->compiler = NULL;
}
