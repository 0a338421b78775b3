/* `lace build --kernel`; see kernel_build.h. */
#include "variants/kernel_build.h"

#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "layout/linkmap.h"
#include "util/elf_note.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/paths.h"
#include "util/run_command.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/xalloc.h"

/* --- phases and their times ------------------------------------------ */

/* kbuild/<arch>/times: "phase seconds" lines, the last run of each */
static double time_last(const struct kernel_build *b, const char *phase)
{
	struct strbuf p = STRBUF_INIT;
	char name[128];
	double s, found = 0;
	FILE *f;

	strbuf_addf(&p, "%s/times", b->kdir);
	f = fopen(p.buf, "r");
	while (f && fscanf(f, "%127s %lf", name, &s) == 2)
		if (!strcmp(name, phase))
			found = s;
	if (f)
		fclose(f);
	strbuf_release(&p);
	return found;
}

static void time_record(const struct kernel_build *b, const char *phase, double s)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s/times", b->kdir);
	f = fopen(p.buf, "a");
	if (f) {
		fprintf(f, "%s %.1f\n", phase, s);
		fclose(f);
	}
	strbuf_release(&p);
}

static double phase_begin(const struct kernel_build *b, const char *phase, const char *kind)
{
	if (b->progress)
		b->progress(b->progress_data, phase, time_last(b, kind), 0);
	return time_now_s();
}

static double phase_end(const struct kernel_build *b, const char *phase, const char *kind, double t0)
{
	double s = time_now_s() - t0;

	time_record(b, kind, s);
	if (b->progress)
		b->progress(b->progress_data, phase, s, 1);
	return s;
}

/* --- running commands ------------------------------------------------- */

/* Run one command (argv NULL-terminated), its output appended to log.
 * 0, or -EIO with "<what> failed (see <log>)". */
static int run_cmd(const char *cwd, const char *log, const char *what, const char *const *argv)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_pushv(&cp.args, (const char **)argv);
	cp.dir = cwd;
	cp.log = log;
	rc = child_process_run_ok(&cp, what);
	child_process_clear(&cp);
	return rc;
}

const char *const kernel_build_env[] = {
	"KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970",
	"KBUILD_BUILD_VERSION=1",
	"KBUILD_BUILD_USER=lace",
	"KBUILD_BUILD_HOST=lace",
	NULL,
};

/* make -C src O=dir <arch make vars> <kernel_build_env> [-jN] targets...
 * (command-line variables reach every sub-make and script's environment) */
static int run_make(const struct kernel_build *b, const char *dir, const char *log, const char *what,
		    const char *const *targets, int parallel)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_push(&cp.args, "make");
	strvec_pushf(&cp.args, "-C%s", b->src);
	strvec_pushf(&cp.args, "O=%s", dir);
	strvec_split(&cp.args, b->arch->make);
	strvec_pushv(&cp.args, (const char **)kernel_build_env);
	if (parallel)
		strvec_pushf(&cp.args, "-j%d", b->jobs);
	strvec_pushv(&cp.args, (const char **)targets);
	cp.log = log;
	rc = child_process_run_ok(&cp, what);
	child_process_clear(&cp);
	return rc;
}

/* --- the source ------------------------------------------------------- */

/* scripts/fetch-deb.sh, lace's one fetcher: beside kernel/ in the tree
 * and in share/lace/src alike */
static void fetcher_path(const struct kernel_build *b, struct strbuf *sb)
{
	strbuf_addf(sb, "%s/../scripts/fetch-deb.sh", b->cfg->dir);
}

/* The version the source package's pin stands for now (fetch-deb.sh
 * --resolve: the manifest's, or a successor LACE_ALLOW_NEWER=1 took). */
static int source_resolve(const struct kernel_build *b, char **version)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf fetch = STRBUF_INIT;
	struct strvec words = STRVEC_INIT;
	int rc;

	fetcher_path(b, &fetch);
	strvec_pushv(&cp.args, (const char *[]){ fetch.buf, "--resolve", b->cfg->package, NULL });
	cp.out_capture = 1;
	cp.err_capture = 1;
	rc = child_process_run_ok(&cp, "fetch-deb.sh --resolve");
	if (!rc) {
		strvec_split(&words, cp.out.buf);
		if (words.nr < 2)
			rc = lace_error_set(EINVAL, "%s --resolve %s: no version in '%s'", fetch.buf,
					    b->cfg->package, cp.out.buf);
		else
			*version = xstrdup(words.v[1]);
	}
	strvec_clear(&words);
	child_process_clear(&cp);
	strbuf_release(&fetch);
	return rc;
}

/* The .deb of the source package in cache/src: fetched and verified
 * against scripts/downloads.manifest by fetch-deb.sh (from apt's list, or
 * by its pool path when the list fails), or the verified one already
 * there.  What the fetcher said goes to src/fetch.log; its one line is
 * the error. */
static int source_deb(struct kernel_build *b, const char *srcroot, struct strbuf *deb)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf fetch = STRBUF_INIT, retry = STRBUF_INIT, log = STRBUF_INIT;
	int rc;

	fetcher_path(b, &fetch);
	strbuf_addf(&retry, "lace build kernel %s", b->arch->name);
	strbuf_addf(&log, "%s/fetch.log", srcroot);
	strvec_pushv(&cp.args, (const char *[]){ fetch.buf, "--retry", retry.buf, b->cfg->package,
						 srcroot, NULL });
	cp.out_capture = 1;
	cp.err_capture = 1;
	rc = child_process_run_ok(&cp, "fetching the kernel source");
	fs_write_file(log.buf, cp.err.buf, cp.err.len);
	strbuf_rtrim(&cp.out);
	if (!rc && !cp.out.len)
		rc = lace_error_set(ENOENT, "%s %s printed no .deb", fetch.buf, b->cfg->package);
	if (!rc) {
		/* DIR/package_VERSION_all.deb */
		const char *base = strrchr(cp.out.buf, '/'), *v, *u;

		base = base ? base + 1 : cp.out.buf;
		v = strchr(base, '_');
		v = v ? v + 1 : base;
		u = strchr(v, '_');
		free(b->version);
		b->version = u ? xstrndup(v, (size_t)(u - v)) : xstrdup(v);
		strbuf_add(deb, cp.out.buf, cp.out.len);
	}
	child_process_clear(&cp);
	strbuf_release(&fetch);
	strbuf_release(&retry);
	strbuf_release(&log);
	return rc;
}

/* Extract the tarball inside the .deb into a fresh folder, then rename it
 * into place, so a half-extracted tree never looks like a source. */
static int source_fetch(struct kernel_build *b)
{
	struct strbuf root = STRBUF_INIT, done = STRBUF_INIT, deb = STRBUF_INIT, tmp = STRBUF_INIT,
		      log = STRBUF_INIT, line = STRBUF_INIT;
	struct stat st;
	int rc;

	strbuf_addf(&root, "%s/src", b->cache);
	strbuf_addf(&done, "%s.done", b->src);
	if (!stat(done.buf, &st) && !stat(b->src, &st)) {
		FILE *f = fopen(done.buf, "r");
		char v[128] = "";
		if (f) {
			if (fscanf(f, "%127s", v) != 1)
				v[0] = 0;
			fclose(f);
		}
		b->version = xstrdup(v[0] ? v : "unknown");
		/* a source of another version than the pin's (or the successor
		 * LACE_ALLOW_NEWER=1 took) is never built from quietly */
		char *want = NULL;
		if ((rc = source_resolve(b, &want)))
			goto out;
		if (strcmp(want, b->version))
			rc = lace_error_set(EEXIST, "%s: holds %s %s, not the %s that scripts/downloads.manifest "
					    "stands for now: remove it and %s to fetch that one", b->src,
					    b->cfg->package, b->version, want, done.buf);
		free(want);
		goto out;
	}
	double t0 = phase_begin(b, "source: fetch and extract", "source");
	if ((rc = fs_mkdir_p(root.buf, 0755))) {
		rc = lace_error_set(-rc, "%s: cannot create: %s", root.buf, strerror(-rc));
		goto out;
	}
	if ((rc = source_deb(b, root.buf, &deb)))
		goto out;
	strbuf_addf(&tmp, "%s/extract.tmp", root.buf);
	strbuf_addf(&log, "%s/extract.log", root.buf);
	if ((rc = fs_remove_tree(tmp.buf)))
		goto out;
	if ((rc = fs_mkdir_p(tmp.buf, 0755))) {
		rc = lace_error_set(-rc, "%s: cannot create", tmp.buf);
		goto out;
	}
	const char *x[] = { "sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"./$2\" | tar -xJ -C \"$3\"",
			    "sh", deb.buf, b->cfg->tarball, tmp.buf, NULL };
	if ((rc = run_cmd(NULL, log.buf, "extracting the kernel source", x)))
		goto out;
	strbuf_addf(&line, "%s/%s", tmp.buf, b->cfg->srcdir);
	if (rename(line.buf, b->src)) {
		rc = lace_error_set(errno, "%s: not in %s (tarball layout?)", b->cfg->srcdir, deb.buf);
		goto out;
	}
	strbuf_reset(&line);
	strbuf_addf(&line, "%s\n", b->version);
	if ((rc = fs_write_file(done.buf, line.buf, line.len)))
		goto out;
	rmdir(tmp.buf);
	unlink(deb.buf); /* 139 MB, and everything needed is extracted now */
	b->t_source = phase_end(b, "source: fetch and extract", "source", t0);
out:
	strbuf_release(&root); strbuf_release(&done); strbuf_release(&deb);
	strbuf_release(&tmp); strbuf_release(&log); strbuf_release(&line);
	return rc;
}

/* --- patches on the shared source ------------------------------------- */

/* The files a unified diff changes ("+++ b/path"), relative to the tree. */
static int patch_files(const char *patch, struct strvec *files)
{
	FILE *f = fopen(patch, "r");
	char *line = NULL;
	size_t alloc = 0;

	if (!f)
		return lace_error_set(errno, "%s: %s", patch, strerror(errno));
	while (getline(&line, &alloc, f) > 0)
		if (!strncmp(line, "+++ ", 4)) {
			char *p = line + 4, *slash = strchr(p, '/');
			p = slash ? slash + 1 : p;
			p[strcspn(p, "\t\n")] = 0;
			if (strvec_find(files, p) < 0)
				strvec_push(files, p);
		}
	free(line);
	fclose(f);
	return files->nr ? 0 : lace_error_set(EINVAL, "%s: not a unified diff", patch);
}

/* What is applied now, so a crash in the middle is undone next time:
 * src.applied holds one "patch PATH" line per applied patch. */
struct applied {
	struct strvec patches;
};

static void applied_write(const struct kernel_build *b, const struct applied *a)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s.applied", b->src);
	f = fopen(p.buf, "w");
	for (size_t i = 0; f && i < a->patches.nr; i++)
		fprintf(f, "patch %s\n", a->patches.v[i]);
	if (f)
		fclose(f);
	strbuf_release(&p);
}

/* Reverse the patches (last first).  The files keep the time of the
 * revert, newer than anything built from the patched text, so the next
 * make of the build folder redoes exactly what the patches touched. */
static int patches_revert(const struct kernel_build *b, struct applied *a, const char *log)
{
	struct strbuf p = STRBUF_INIT;
	int rc = 0;

	for (size_t i = a->patches.nr; i-- > 0 && !rc;) {
		const char *argv[] = { "patch", "-R", "-p1", "-s", "--no-backup-if-mismatch", "-r", "-",
				       "-d", b->src, "-i", a->patches.v[i], NULL };
		rc = run_cmd(NULL, log, "reverting a patch on the kernel source", argv);
	}
	if (!rc) {
		strbuf_addf(&p, "%s.applied", b->src);
		unlink(p.buf);
	}
	strbuf_release(&p);
	return rc;
}

/* Undo what a crashed run left applied. */
static int patches_recover(const struct kernel_build *b, const char *log)
{
	struct strbuf p = STRBUF_INIT;
	struct applied a = { STRVEC_INIT };
	char *line = NULL;
	size_t alloc = 0;
	FILE *f;
	int rc = 0;

	strbuf_addf(&p, "%s.applied", b->src);
	f = fopen(p.buf, "r");
	if (f) {
		while (getline(&line, &alloc, f) > 0) {
			line[strcspn(line, "\n")] = 0;
			if (!strncmp(line, "patch ", 6))
				strvec_push(&a.patches, line + 6);
		}
		fclose(f);
		rc = patches_revert(b, &a, log);
	}
	free(line);
	strvec_clear(&a.patches);
	strbuf_release(&p);
	return rc;
}

/* Whether line is where pad point pt goes: it holds the anchor and is
 * no preprocessor line (the anchors are often macros, defined above) */
static bool pad_line(const char *line, const struct kernel_pad_point *pt)
{
	const char *t = line + strspn(line, " \t");

	return *t && *t != '#' && strstr(t, pt->anchor);
}

/* The patch of a variant laid out by a file (kernel_config_add_layout):
 * its lines before the first line of the arch's layout_file that holds
 * layout_anchor, as a one-hunk diff. */
static int layout_patch(const struct kernel_build *b, const struct kernel_variant *v, const char *out)
{
	const struct kernel_arch *a = b->arch;
	struct strbuf p = STRBUF_INIT, diff = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	char *line = NULL;
	size_t alloc = 0, at = SIZE_MAX, nadd = 0;
	FILE *f;
	int rc = 0;

	strbuf_addf(&p, "%s/%s", b->src, a->layout_file);
	if (!(f = fopen(p.buf, "r"))) {
		rc = lace_error_set(errno, "%s: %s", p.buf, strerror(errno));
		goto out;
	}
	while (getline(&line, &alloc, f) > 0)
		strvec_push(&lines, line);
	fclose(f);
	for (size_t i = 0; i < lines.nr && at == SIZE_MAX; i++)
		if (strstr(lines.v[i], a->layout_anchor))
			at = i;
	if (at == SIZE_MAX) {
		rc = lace_error_set(EINVAL, "%s: no line with '%s'", p.buf, a->layout_anchor);
		goto out;
	}
	for (const char *q = v->layout_lines; *q; q++)
		nadd += *q == '\n';
	size_t first = at < 3 ? 0 : at - 3, last = at + 3 < lines.nr ? at + 3 : lines.nr - 1;
	strbuf_addf(&diff, "--- a/%s\n+++ b/%s\n@@ -%zu,%zu +%zu,%zu @@\n", a->layout_file, a->layout_file,
		    first + 1, last - first + 1, first + 1, last - first + 1 + nadd);
	for (size_t i = first; i <= last; i++) {
		if (i == at)
			for (const char *q = v->layout_lines; *q;) {
				size_t l = strcspn(q, "\n");
				strbuf_addf(&diff, "+%.*s\n", (int)l, q);
				q += l + (q[l] == '\n');
			}
		strbuf_addf(&diff, " %s", lines.v[i]);
	}
	rc = fs_write_file(out, diff.buf, diff.len);
out:
	free(line);
	strvec_clear(&lines);
	strbuf_release(&p);
	strbuf_release(&diff);
	return rc;
}

/* The padding patch of a shuffled relink: one line after each pad point's
 * anchor in shuffle_file, written as a diff (one hunk from three lines
 * before the first anchor to three after the last, as diff -u would merge
 * them) so it goes through the same path as a variant's patches. */
static int pad_patch(const struct kernel_build *b, const struct kernel_variant *v, const char *out)
{
	const struct kernel_arch *a = b->arch;
	struct strbuf p = STRBUF_INIT, diff = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	size_t *at = xcalloc(a->npads, sizeof(*at)), next = 0, alloc = 0;
	char *line = NULL;
	FILE *f;
	int rc = 0;

	if (!a->shuffle_file || !a->npads || v->npad != a->npads) {
		rc = lace_error_set(EINVAL, "[arch %s] has no shuffle_file/shuffle_pad for --shuffle",
				    a->name);
		goto out;
	}
	strbuf_addf(&p, "%s/%s", b->src, a->shuffle_file);
	f = fopen(p.buf, "r");
	if (!f) {
		rc = lace_error_set(errno, "%s: %s", p.buf, strerror(errno));
		goto out;
	}
	while (getline(&line, &alloc, f) > 0)
		strvec_push(&lines, line);
	fclose(f);
	for (size_t i = 0; i < lines.nr && next < a->npads; i++)
		if (pad_line(lines.v[i], &a->pads[next]))
			at[next++] = i;
	if (next < a->npads) {
		rc = lace_error_set(EINVAL, "%s: no line with '%s' (after the pad points before it)", p.buf,
				    a->pads[next].anchor);
		goto out;
	}
	size_t first = at[0] < 2 ? 0 : at[0] - 2;
	size_t last = at[a->npads - 1] + 3 < lines.nr ? at[a->npads - 1] + 3 : lines.nr - 1;
	strbuf_addf(&diff, "--- a/%s\n+++ b/%s\n@@ -%zu,%zu +%zu,%zu @@\n", a->shuffle_file, a->shuffle_file,
		    first + 1, last - first + 1, first + 1, last - first + 1 + a->npads);
	next = 0;
	for (size_t i = first; i <= last; i++) {
		strbuf_addf(&diff, " %s", lines.v[i]);
		if (next < a->npads && i == at[next])
			strbuf_addf(&diff, "+\t\t. = . + %lu; /* lace --shuffle: seed %lu, %lu */\n",
				    v->pad[next++], v->seed, v->index);
	}
	f = fopen(out, "w");
	if (!f || fwrite(diff.buf, 1, diff.len, f) != diff.len)
		rc = lace_error_set(EIO, "%s: cannot write", out);
	if (f && fclose(f) && !rc)
		rc = lace_error_set(EIO, "%s: cannot write", out);
out:
	free(at);
	free(line);
	strvec_clear(&lines);
	strbuf_release(&p);
	strbuf_release(&diff);
	return rc;
}

/* --- the base build --------------------------------------------------- */

static int base_build(struct kernel_build *b)
{
	struct strbuf dir = STRBUF_INIT, cfg = STRBUF_INIT, log = STRBUF_INIT, merge = STRBUF_INIT;
	struct strvec frags = STRVEC_INIT, words = STRVEC_INIT;
	struct stat st;
	time_t newest = 0;
	int rc = 0;

	strbuf_addf(&dir, "%s/base", b->kdir);
	strbuf_addf(&cfg, "%s/.config", dir.buf);
	strbuf_addf(&log, "%s/base.log", b->kdir);
	strvec_split(&words, b->arch->config);
	for (size_t i = 0; i < words.nr; i++) {
		const char *f = strvec_pushf(&frags, "%s/%s", b->cfg->dir, words.v[i]);
		if (stat(f, &st)) {
			rc = lace_error_set(errno, "%s: %s", f, strerror(errno));
			goto out;
		}
		if (st.st_mtime > newest)
			newest = st.st_mtime;
	}
	/* configure once; a fragment newer than the config configures again */
	bool need = stat(cfg.buf, &st) || newest > st.st_mtime;
	if (need) {
		double t0 = phase_begin(b, "base: configure", "configure");
		if ((rc = fs_mkdir_p(dir.buf, 0755))) {
			rc = lace_error_set(-rc, "%s: cannot create", dir.buf);
			goto out;
		}
		const char *base[] = { b->arch->base, NULL };
		if ((rc = run_make(b, dir.buf, log.buf, "configuring the kernel", base, 0)))
			goto out;
		strbuf_addf(&merge, "%s/scripts/kconfig/merge_config.sh", b->src);
		struct strvec m = STRVEC_INIT;
		strvec_push(&m, merge.buf);
		strvec_push(&m, "-m");
		strvec_push(&m, "-O");
		strvec_push(&m, dir.buf);
		strvec_push(&m, cfg.buf);
		strvec_pushv(&m, frags.v);
		rc = run_cmd(b->src, log.buf, "merging the config fragments", m.v);
		strvec_clear(&m);
		if (rc)
			goto out;
		const char *olddef[] = { "olddefconfig", NULL };
		if ((rc = run_make(b, dir.buf, log.buf, "configuring the kernel", olddef, 0)))
			goto out;
		b->t_configure = phase_end(b, "base: configure", "configure", t0);
	}

	double t0 = phase_begin(b, "base: build", "base");
	const char *target[] = { b->arch->target, NULL };
	rc = run_make(b, dir.buf, log.buf, "building the base kernel", target, 1);
	if (!rc)
		b->t_base = phase_end(b, "base: build", "base", t0);
out:
	strbuf_release(&dir); strbuf_release(&cfg); strbuf_release(&log);
	strbuf_release(&merge);
	strvec_clear(&frags);
	strvec_clear(&words);
	return rc;
}

int kernel_build_start(struct kernel_build *b, const char *out)
{
	struct strbuf sb = STRBUF_INIT;
	char *real;
	int rc;

	if ((rc = paths_cache_dir(&b->cache)))
		return rc;
	strbuf_addf(&sb, "%s/src/%s", b->cache, b->cfg->srcdir);
	b->src = strbuf_detach(&sb, NULL);
	strbuf_addf(&sb, "%s/kbuild/%s", b->cache, b->arch->name);
	b->kdir = strbuf_detach(&sb, NULL);
	if ((rc = fs_mkdir_p(b->kdir, 0755)))
		return lace_error_set(-rc, "%s: cannot create: %s", b->kdir, strerror(-rc));
	if ((rc = fs_mkdir_p(out, 0755)))
		return lace_error_set(-rc, "%s: cannot create the output folder: %s", out, strerror(-rc));
	real = realpath(out, NULL);
	b->out = real ? real : xstrdup(out);
	/* one lace at a time on the source and its builds: a variant's
	 * patches are on the shared source while it builds, and every arch
	 * reads that source (include/asm-generic is shared) */
	strbuf_addf(&sb, "%s/src", b->cache);
	if ((rc = fs_mkdir_p(sb.buf, 0755))) {
		rc = lace_error_set(-rc, "%s: cannot create: %s", sb.buf, strerror(-rc));
		goto out;
	}
	strbuf_addf(&sb, "/%s.lock", b->cfg->srcdir);
	b->lockfd = open(sb.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lockfd < 0) {
		rc = lace_error_set(errno, "%s: %s", sb.buf, strerror(errno));
		goto out;
	}
	if (flock(b->lockfd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		if (b->progress)
			b->progress(b->progress_data, "waiting for another lace build --kernel", 0, 0);
		if (flock(b->lockfd, LOCK_EX)) {
			rc = lace_error_set(errno, "%s: cannot lock: %s", sb.buf, strerror(errno));
			goto out;
		}
		if (b->progress)
			b->progress(b->progress_data, "waiting for another lace build --kernel", 0, 1);
	}
	strbuf_reset(&sb);
	if ((rc = source_fetch(b)))
		goto out;
	strbuf_addf(&sb, "%s/patch.log", b->kdir);
	rc = patches_recover(b, sb.buf);
out:
	strbuf_release(&sb);
	return rc;
}

/* --- variants --------------------------------------------------------- */

int kernel_build_id(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -ENOENT;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	for (Elf_Scn *s = NULL; e && rc && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		/* elf_getdata() gives the notes in this machine's byte order */
		Elf_Data *d = elf_getdata(s, NULL);
		if (d && d->d_buf && elf_note_build_id(d->d_buf, d->d_size, hex, size))
			rc = 0;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static int collect(const struct kernel_build *b, const struct kernel_variant *v, const char *vdir,
		   const char *odir, const char *log, const struct strvec *patches, double seconds);

int kernel_build_variant(struct kernel_build *b, const struct kernel_variant *v, double *seconds)
{
	struct strbuf vdir = STRBUF_INIT, log = STRBUF_INIT, odir = STRBUF_INIT, tmp = STRBUF_INIT,
		      phase = STRBUF_INIT;
	struct applied a = { STRVEC_INIT };
	struct strvec patches = STRVEC_INIT, files = STRVEC_INIT;
	int rc = 0;
	bool plain = !v->patches.nr && !v->npad && !v->layout_lines;

	*seconds = 0;
	/* one build folder per arch, always: kbuild records absolute paths of
	 * the folder (objtool, the tools), so a copy or a move of it rebuilds
	 * everything; made again in place, a variant redoes only what its
	 * patches touch, and the next variant only what they touched */
	strbuf_addf(&vdir, "%s/base", b->kdir);
	strbuf_addf(&log, "%s/%s.log", b->kdir, v->name);
	strbuf_addf(&odir, "%s/%s-%s", b->out, b->arch->name, v->name);
	strbuf_addf(&phase, "%s: build", v->name);
	for (size_t i = 0; i < v->patches.nr; i++)
		strvec_pushf(&patches, "%s/%s", b->cfg->dir, v->patches.v[i]);
	if (v->npad) {
		strbuf_addf(&tmp, "%s/%s.pad.patch", b->kdir, v->name);
		if ((rc = pad_patch(b, v, tmp.buf)))
			goto out;
		strvec_push(&patches, tmp.buf);
	}
	if (v->layout_lines) {
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "%s/%s.layout.patch", b->kdir, v->name);
		if ((rc = layout_patch(b, v, tmp.buf)))
			goto out;
		strvec_push(&patches, tmp.buf);
	}
	for (size_t i = 0; i < patches.nr && !rc; i++)
		rc = patch_files(patches.v[i], &files);
	if (rc)
		goto out;
	/* the same inputs as the kernel already in OUT: nothing to do (a
	 * study run twice does not relink every variant again) */
	if (kernel_manifest_current(b, v, odir.buf, vdir.buf, &patches)) {
		b->up_to_date++;
		goto out;
	}
	/* the base is made once, by the first variant that is built: when
	 * every one is current, kbuild's own walk of an up-to-date tree
	 * (10-25 s an arch) is all a make would do */
	if (!b->base_made && (rc = base_build(b))) {
		b->base_failed = true;
		goto out;
	}
	b->base_made = true;
	double t0 = phase_begin(b, phase.buf, plain ? "baseline" : "variant");
	for (size_t i = 0; i < patches.nr && !rc; i++) {
		/* a dry run first: a patch that does not apply leaves no
		 * half-patched tree, no .rej and no .orig behind */
		const char *dry[] = { "patch", "-N", "-p1", "-s", "--dry-run", "--no-backup-if-mismatch",
				      "-r", "-", "-d", b->src, "-i", patches.v[i], NULL };
		const char *argv[] = { "patch", "-N", "-p1", "-s", "--no-backup-if-mismatch", "-r", "-",
				       "-d", b->src, "-i", patches.v[i], NULL };
		rc = run_cmd(NULL, log.buf, "applying a patch to the kernel source", dry);
		if (rc)
			break;
		strvec_push(&a.patches, patches.v[i]);
		applied_write(b, &a); /* before: a crash inside patch is undone too */
		rc = run_cmd(NULL, log.buf, "applying a patch to the kernel source", argv);
	}
	if (!rc) {
		const char *target[] = { b->arch->target, NULL };
		rc = run_make(b, vdir.buf, log.buf, "building the variant", target, 1);
	}
	/* the outputs are copied before the revert: the folder is the
	 * variant's until the next make */
	if (!rc) {
		*seconds = phase_end(b, phase.buf, plain ? "baseline" : "variant", t0);
		rc = collect(b, v, vdir.buf, odir.buf, log.buf, &patches, *seconds);
	}
	int rrc = patches_revert(b, &a, log.buf);
	rc = rc ? rc : rrc;
out:
	strvec_clear(&a.patches);
	strvec_clear(&patches);
	strvec_clear(&files);
	strbuf_release(&vdir); strbuf_release(&log); strbuf_release(&odir);
	strbuf_release(&tmp); strbuf_release(&phase);
	return rc;
}

/* The map says where each input section went, not how it is aligned:
 * that is in the objects, which are in vdir now (the next variant's build
 * may change them), so it is written beside the map copied to odir
 * (vmlinux.map.align, read by layout/linkmap.c). */
static int map_alignments(const char *map, const char *vdir, const char *odir)
{
	struct linkmap lm;
	struct strbuf out = STRBUF_INIT;
	int rc = linkmap_load(map, vdir, &lm);

	if (!rc) {
		strbuf_addf(&out, "%s/vmlinux.map.align", odir);
		rc = linkmap_write_align(&lm, out.buf);
		linkmap_free(&lm);
	}
	strbuf_release(&out);
	return rc;
}

/* Copy vmlinux, System.map, the image and the config to odir and write
 * the manifest. */
static int collect(const struct kernel_build *b, const struct kernel_variant *v, const char *vdir,
		   const char *odir, const char *log, const struct strvec *patches, double seconds)
{
	struct strbuf tmp = STRBUF_INIT;
	int rc;

	if ((rc = fs_mkdir_p(odir, 0755))) {
		rc = lace_error_set(-rc, "%s: cannot create", odir);
		goto out;
	}
	strbuf_addf(&tmp, "%s/%s", vdir, b->arch->image);
	struct strbuf vml = STRBUF_INIT, map = STRBUF_INIT, cfg = STRBUF_INIT, cfgout = STRBUF_INIT;
	strbuf_addf(&vml, "%s/vmlinux", vdir);
	strbuf_addf(&map, "%s/System.map", vdir);
	strbuf_addf(&cfg, "%s/.config", vdir);
	strbuf_addf(&cfgout, "%s/config", odir);
	/* vmlinux is the image on some arches: cp copies it once */
	const char *cp1[] = { "cp", "-f", vml.buf, map.buf, strcmp(tmp.buf, vml.buf) ? tmp.buf : NULL,
			      NULL, NULL };
	cp1[strcmp(tmp.buf, vml.buf) ? 5 : 4] = odir;
	const char *cp2[] = { "cp", "-f", cfg.buf, cfgout.buf, NULL };
	rc = run_cmd(NULL, log, "copying the outputs", cp1);
	if (!rc)
		rc = run_cmd(NULL, log, "copying the outputs", cp2);
	/* the link map (CONFIG_VMLINUX_MAP): where each input section went,
	 * which lace's virtual layouts lay out again */
	strbuf_reset(&map);
	strbuf_addf(&map, "%s/vmlinux.map", vdir);
	if (!rc && fs_is_file(map.buf)) {
		const char *cp3[] = { "cp", "-f", map.buf, odir, NULL };
		rc = run_cmd(NULL, log, "copying the outputs", cp3);
		if (!rc)
			rc = map_alignments(map.buf, vdir, odir);
	}
	strbuf_release(&vml); strbuf_release(&map); strbuf_release(&cfg); strbuf_release(&cfgout);
	if (!rc)
		rc = kernel_write_manifest(b, v, odir, vdir, patches, seconds);
out:
	strbuf_release(&tmp);
	return rc;
}

void kernel_build_release(struct kernel_build *b)
{
	if (b->lockfd > 0)
		close(b->lockfd); /* and the lock with it */
	b->lockfd = 0;
	free(b->cache);
	free(b->src);
	free(b->kdir);
	free(b->out);
	free(b->version);
	b->cache = b->src = b->kdir = b->out = b->version = NULL;
}
