/* lace build: compile the study code (probes/, hashmmu/, the workloads in
 * bench/) once per placement variant: a linker script from
 * linker_scripts/ plus compiler flags, both named in
 * linker_scripts/variants.conf.  Optionally K randomized-layout builds of
 * the baseline (--shuffle K --seed S): -ffunction-sections objects linked
 * with a generated script that orders every text input section in a seeded
 * permutation with seeded padding, to measure how much layout alone moves
 * the numbers.
 *
 * Each variant goes to OUT/<name>/: the programs, obj/, link.ld (shuffled
 * builds), build.log and manifest.json.  Builds are reproducible: fixed
 * paths via -ffile-prefix-map, a content-hash build-id (--build-id=sha1,
 * which perf needs to find SDT notes), no timestamps, so two
 * builds with the same seed are byte-identical wherever OUT is.
 *
 * Compilation runs gcc directly, up to -j N jobs at a time (fork/exec),
 * all variants' objects in one pool. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <ini.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/sha256.h"
#include "cli/command.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/json_schema.h"

#define CMD "build"

/* ---- string lists ---------------------------------------------------- */
struct strlist {
	char **v;
	size_t n, alloc;
};

static void sl_add(struct strlist *l, const char *s)
{
	ALLOC_GROW(l->v, l->n + 2, l->alloc);
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

static void sl_add_words(struct strlist *l, const char *s)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;

	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		sl_add(l, w);
	free(copy);
}

static void sl_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int sl_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* ---- configuration --------------------------------------------------- */
struct variant {
	char *name;
	char *script;       /* path relative to linker_scripts/, or absolute */
	char *cflags;
	char *ldflags;
	char *description;
	unsigned shuffle;   /* 1..K for baseline-shuffle-<i>, 0 otherwise */
	unsigned long long seed;
};

struct program {
	char *name;
	struct strlist srcs;  /* relative to the source root */
	int handlers;
};

struct build {
	char src[PATH_MAX];
	char out[PATH_MAX];
	const char *cc;
	struct variant *conf;     /* variants.conf, in file order */
	size_t nconf, aconf;
	struct variant *sel;      /* what this run builds */
	size_t nsel, asel;
	struct program *progs;
	size_t nprog, aprog;
	struct strlist common;    /* workloads' [common] sources */
	struct strlist libs;
	struct strlist study;     /* probes/ hashmmu/ util/ sources */
	char *gen_src, *gen_libs, *gen_args;
	struct strlist gen_outputs;
	char *extra_cflags;
	int jobs;
	char compiler[256];
	int tty;
};

static struct variant *conf_variant(struct build *b, const char *name)
{
	for (size_t i = 0; i < b->nconf; i++)
		if (!strcmp(b->conf[i].name, name))
			return &b->conf[i];
	return NULL;
}

static int variants_ini(void *user, const char *section, const char *key, const char *value)
{
	struct build *b = user;
	struct variant *v = conf_variant(b, section);

	if (!v) {
		ALLOC_GROW(b->conf, b->nconf + 1, b->aconf);
		v = &b->conf[b->nconf++];
		memset(v, 0, sizeof(*v));
		v->name = xstrdup(section);
	}
	char **slot = !strcmp(key, "script") ? &v->script
		    : !strcmp(key, "cflags") ? &v->cflags
		    : !strcmp(key, "ldflags") ? &v->ldflags
		    : !strcmp(key, "description") ? &v->description : NULL;
	if (!slot)
		return 0; /* unknown key: inih reports the line */
	free(*slot);
	*slot = xstrdup(value);
	return 1;
}

static struct program *conf_program_find(struct build *b, const char *name)
{
	for (size_t i = 0; i < b->nprog; i++)
		if (!strcmp(b->progs[i].name, name))
			return &b->progs[i];
	return NULL;
}

static struct program *conf_program(struct build *b, const char *name)
{
	for (size_t i = 0; i < b->nprog; i++)
		if (!strcmp(b->progs[i].name, name))
			return &b->progs[i];
	ALLOC_GROW(b->progs, b->nprog + 1, b->aprog);
	struct program *p = &b->progs[b->nprog++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	return p;
}

/* bench/workloads.conf: [generator], [common], one section per workload. */
static int workloads_ini(void *user, const char *section, const char *key, const char *value)
{
	struct build *b = user;

	if (!strcmp(section, "generator")) {
		char **slot = !strcmp(key, "source") ? &b->gen_src
			    : !strcmp(key, "libs") ? &b->gen_libs
			    : !strcmp(key, "args") ? &b->gen_args : NULL;
		if (slot) {
			free(*slot);
			*slot = xstrdup(value);
		} else if (!strcmp(key, "outputs")) {
			sl_add_words(&b->gen_outputs, value);
		}
		return 1;
	}
	if (!strcmp(section, "common")) {
		if (!strcmp(key, "sources"))
			sl_add_words(&b->common, value);
		else if (!strcmp(key, "libs"))
			sl_add_words(&b->libs, value);
		/* `study` names probes/ hashmmu/: always built here */
		return 1;
	}
	struct program *p = conf_program(b, section);
	if (!strcmp(key, "sources"))
		sl_add_words(&p->srcs, value);
	else if (!strcmp(key, "handlers"))
		p->handlers = !strcmp(value, "yes");
	return 1;
}

static int path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* Where the sources are: $LACE_SRCDIR, next to the executable once
 * installed (../share/lace/src), the tree lace was built from, $PREFIX/share. */
static int find_srcdir(struct build *b)
{
	const char *cand[4] = { getenv("LACE_SRCDIR"), NULL, NULL, NULL };
	char exe[PATH_MAX], rel[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int k = 1;

	/* an installed lace uses the sources installed with it, even when the
	 * tree it was built from still exists */
	if (n > 0) {
		exe[n] = 0;
		snprintf(rel, sizeof(rel), "%s/../share/lace/src", dirname(exe));
		cand[k++] = rel;
	}
#ifdef LACE_SRCDIR_DEFAULT
	cand[k++] = LACE_SRCDIR_DEFAULT;
#endif
#ifdef LACE_PREFIX_DEFAULT
	cand[k++] = LACE_PREFIX_DEFAULT "/share/lace/src";
#endif
	for (int i = 0; i < k; i++) {
		char probe[PATH_MAX + 64];

		if (!cand[i] || !*cand[i])
			continue;
		snprintf(probe, sizeof(probe), "%s/linker_scripts/variants.conf", cand[i]);
		if (path_exists(probe) && realpath(cand[i], b->src))
			return 0;
		if (i == 0)
			return lace_error_set(ENOENT, "LACE_SRCDIR=%s has no linker_scripts/variants.conf",
					      cand[i]);
	}
	return lace_error_set(ENOENT, "cannot find the study sources (set LACE_SRCDIR)");
}

static void list_dir_c(struct strlist *l, const char *src, const char *dir)
{
	char path[PATH_MAX + 64];
	struct dirent **ents;
	int n;

	snprintf(path, sizeof(path), "%s/%s", src, dir);
	n = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > 2 && !strcmp(ents[i]->d_name + len - 2, ".c")) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			sl_add(l, path);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* Variant and program names become file names: keep them plain. */
static int name_ok(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int load_config(struct build *b)
{
	struct strbuf p = STRBUF_INIT;
	int line;

	strbuf_addf(&p, "%s/linker_scripts/variants.conf", b->src);
	line = ini_parse(p.buf, variants_ini, b);
	if (line) {
		if (line < 0)
			lace_error_set(ENOENT, "%s: cannot read", p.buf);
		else
			lace_error_set(EINVAL, "%s:%d: bad line", p.buf, line);
		strbuf_release(&p);
		return -EINVAL;
	}
	for (size_t i = 0; i < b->nconf; i++)
		if (!name_ok(b->conf[i].name)) {
			lace_error_set(EINVAL, "%s: variant name '%s' is not a plain file name",
				       p.buf, b->conf[i].name);
			strbuf_release(&p);
			return -EINVAL;
		}
	for (size_t i = 0; i < b->nconf; i++)
		if (!b->conf[i].script) {
			lace_error_set(EINVAL, "%s: variant '%s' has no script", p.buf, b->conf[i].name);
			strbuf_release(&p);
			return -EINVAL;
		}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/bench/workloads.conf", b->src);
	if (path_exists(p.buf)) {
		line = ini_parse(p.buf, workloads_ini, b);
		if (line) {
			lace_error_set(EINVAL, "%s:%d: bad line", p.buf, line);
			strbuf_release(&p);
			return -EINVAL;
		}
	}
	strbuf_release(&p);
	for (size_t i = 0; i < b->nprog; i++)
		if (!name_ok(b->progs[i].name))
			return lace_error_set(EINVAL, "bench/workloads.conf: program name '%s' is not a plain file name",
					      b->progs[i].name);
	/* the driver is always built: the layout and perf checks use it */
	struct program *d = conf_program(b, "hashmmu-driver");
	if (!d->srcs.n)
		sl_add(&d->srcs, "hashmmu/driver/driver.c");
	list_dir_c(&b->study, b->src, "probes");
	list_dir_c(&b->study, b->src, "hashmmu");
	list_dir_c(&b->study, b->src, "util");
	return 0;
}

/* ---- jobs ------------------------------------------------------------ */
struct job {
	struct strlist argv;
	char *cwd;
	char *log;
	char *what;       /* for messages */
	pid_t pid;
	int status;
};

struct jobs {
	struct job *v;
	size_t n, alloc;
};

static struct job *job_new(struct jobs *js, const char *cwd, const char *log, const char *what)
{
	ALLOC_GROW(js->v, js->n + 1, js->alloc);
	struct job *j = &js->v[js->n++];
	memset(j, 0, sizeof(*j));
	j->cwd = xstrdup(cwd);
	j->log = xstrdup(log);
	j->what = xstrdup(what);
	return j;
}

static void jobs_free(struct jobs *js)
{
	for (size_t i = 0; i < js->n; i++) {
		sl_free(&js->v[i].argv);
		free(js->v[i].cwd);
		free(js->v[i].log);
		free(js->v[i].what);
	}
	free(js->v);
	memset(js, 0, sizeof(*js));
}

static pid_t job_start(struct job *j)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(j->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		if (chdir(j->cwd) == 0)
			execvp(j->argv.v[0], j->argv.v);
		_exit(127);
	}
	return pid;
}

/* Run all jobs, at most `par` at once; stop starting new ones after a
 * failure.  Returns the index of the first failed job or -1. */
static long jobs_run(struct jobs *js, int par, const char *phase, int tty)
{
	size_t next = 0, running = 0, done = 0;
	long failed = -1;

	while (done < next || (next < js->n && failed < 0)) {
		while (running < (size_t)par && next < js->n && failed < 0) {
			js->v[next].pid = job_start(&js->v[next]);
			if (js->v[next].pid < 0) {
				failed = (long)next;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		int status;
		pid_t pid = wait(&status);
		if (pid < 0)
			break;
		for (size_t i = 0; i < next; i++)
			if (js->v[i].pid == pid) {
				js->v[i].status = status;
				js->v[i].pid = 0;
				if ((!WIFEXITED(status) || WEXITSTATUS(status)) && failed < 0)
					failed = (long)i;
			}
		running--;
		done++;
		if (tty)
			fprintf(stderr, "\rlace build: %s %zu/%zu ", phase, done, js->n);
	}
	if (tty)
		fputc('\n', stderr);
	return failed;
}

static int jobs_check(struct jobs *js, int par, const char *phase, int tty)
{
	long f = jobs_run(js, par, phase, tty);

	if (f < 0)
		return 0;
	return lace_error_set(EIO, "%s failed (see %s)", js->v[f].what, js->v[f].log);
}

/* ---- helpers ---------------------------------------------------------- */
static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* "bench/hackbench.c" -> "bench_hackbench.o" */
static void obj_name(struct strbuf *sb, const char *rel)
{
	for (const char *p = rel; *p; p++)
		strbuf_addch(sb, *p == '/' ? '_' : *p);
	strbuf_setlen(sb, sb->len - 2);
	strbuf_addstr(sb, ".o");
}

static void compiler_version(struct build *b)
{
	char cmd[300];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", b->cc);
	snprintf(b->compiler, sizeof(b->compiler), "%s", b->cc);
	f = popen(cmd, "r");
	if (!f)
		return;
	if (fgets(b->compiler, sizeof(b->compiler), f))
		b->compiler[strcspn(b->compiler, "\n")] = 0;
	pclose(f);
}

static const char *variant_script(const struct build *b, const struct variant *v, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (v->script[0] == '/')
		strbuf_addstr(sb, v->script);
	else
		strbuf_addf(sb, "%s/linker_scripts/%s", b->src, v->script);
	return sb->buf;
}

/* The flags every variant shares.  -no-pie: the scripts are ld's script
 * for non-PIE executables.  The prefix maps keep paths out of the output,
 * so builds are byte-identical wherever they happen. */
static void common_cflags(const struct build *b, struct strlist *l)
{
	struct strbuf sb = STRBUF_INIT;

	sl_add_words(l, "-std=gnu11 -O2 -g -D_GNU_SOURCE -fno-pie -pthread");
	strbuf_addf(&sb, "-I%s", b->src);
	sl_add(l, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "-ffile-prefix-map=%s=/usr/src/lace", b->src);
	sl_add(l, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "-ffile-prefix-map=%s=.", b->out);
	sl_add(l, sb.buf);
	strbuf_release(&sb);
}

/* The sources of one program, in link order. */
static void program_sources(const struct build *b, const struct program *p, struct strlist *l)
{
	for (size_t i = 0; i < p->srcs.n; i++)
		sl_add(l, p->srcs.v[i]);
	if (strcmp(p->name, "hashmmu-driver"))
		for (size_t i = 0; i < b->common.n; i++)
			sl_add(l, b->common.v[i]);
	if (p->handlers)
		for (size_t i = 0; i < b->gen_outputs.n; i++) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, ".gen/%s", b->gen_outputs.v[i]);
			sl_add(l, sb.buf);
			strbuf_release(&sb);
		}
	for (size_t i = 0; i < b->study.n; i++)
		sl_add(l, b->study.v[i]);
}

static int any_handlers(const struct build *b)
{
	for (size_t i = 0; i < b->nprog; i++)
		if (b->progs[i].handlers)
			return 1;
	return 0;
}

/* ---- the generator (host tool, run once, shared by all variants) ----- */
static int run_generator(struct build *b)
{
	struct strbuf dir = STRBUF_INIT, log = STRBUF_INIT, s = STRBUF_INIT;
	struct jobs js = { 0 };
	struct job *j;
	int rc;

	if (!any_handlers(b))
		return 0;
	if (!b->gen_src || !b->gen_outputs.n)
		return lace_error_set(EINVAL, "bench/workloads.conf: handlers wanted but no [generator]");
	strbuf_addf(&dir, "%s/.gen", b->out);
	if ((rc = mkdir_p(dir.buf)))
		return lace_error_set(-rc, "%s: %s", dir.buf, strerror(-rc));
	strbuf_addf(&log, "%s/gen.log", dir.buf);
	unlink(log.buf);
	j = job_new(&js, dir.buf, log.buf, "building the handler generator");
	sl_add(&j->argv, b->cc);
	sl_add_words(&j->argv, "-std=gnu11 -O2 -o gen_handlers");
	strbuf_addf(&s, "-I%s", b->src);
	sl_add(&j->argv, s.buf);
	strbuf_reset(&s);
	strbuf_addf(&s, "%s/%s", b->src, b->gen_src);
	sl_add(&j->argv, s.buf);
	sl_add_words(&j->argv, b->gen_libs);
	rc = jobs_check(&js, 1, "generator", 0);
	jobs_free(&js);
	if (!rc) {
		j = job_new(&js, dir.buf, log.buf, "the handler generator");
		sl_add(&j->argv, "./gen_handlers");
		sl_add_words(&j->argv, "--out .");
		sl_add_words(&j->argv, b->gen_args);
		rc = jobs_check(&js, 1, "generator", 0);
		jobs_free(&js);
	}
	strbuf_release(&dir);
	strbuf_release(&log);
	strbuf_release(&s);
	return rc;
}

/* ---- shuffled layouts ------------------------------------------------ */
struct item {
	char *obj;   /* basename */
	char *sec;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int skip_section(const char *name)
{
	static const char *const early[] = { ".text.unlikely", ".text.startup", ".text.exit",
					     ".text.hot", ".text.sorted" };

	if (strcmp(name, ".text") && strcmp(name, ".entry.text") && strncmp(name, ".text.", 6))
		return 1;
	for (size_t i = 0; i < sizeof(early) / sizeof(early[0]); i++)
		if (!strncmp(name, early[i], strlen(early[i])))
			return 1; /* placed by an earlier statement of the script */
	return 0;
}

/* Every text input section of one object (libelf), in section order. */
static int object_sections(const char *path, const char *base, struct item **items, size_t *n,
			   size_t *alloc)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (fd < 0)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		if (e)
			elf_end(e);
		close(fd);
		return lace_error_set(EINVAL, "%s: not an ELF object", path);
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || skip_section(name))
			continue;
		ALLOC_GROW(*items, *n + 1, *alloc);
		(*items)[*n].obj = xstrdup(base);
		(*items)[*n].sec = xstrdup(name);
		(*n)++;
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* Write OUT/<variant>/link.ld: the baseline script with its @lace-shuffle@
 * line replaced by every text input section of the objects, in a seeded
 * order, each preceded by 0..112 bytes of seeded padding (16-byte steps,
 * so function alignment is kept while cache-line placement changes). */
static int write_shuffle_script(const struct build *b, const struct variant *v,
				const char *base_script, const struct strlist *objs,
				const char *objdir, const char *outpath)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, p = STRBUF_INIT;
	struct item *items = NULL;
	size_t n = 0, alloc = 0;
	uint64_t rng = v->seed * 0x2545f4914f6cdd1dULL + v->shuffle;
	const char *mark;
	int rc;

	(void)b;
	if (strbuf_read_file(&in, base_script) < 0) {
		rc = lace_error_set(errno, "%s: cannot read", base_script);
		goto out;
	}
	mark = strstr(in.buf, "/* @lace-shuffle@ */");
	if (!mark) {
		rc = lace_error_set(EINVAL, "%s: no @lace-shuffle@ line", base_script);
		goto out;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < objs->n; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", objdir, objs->v[i]);
		if ((rc = object_sections(p.buf, objs->v[i], &items, &n, &alloc)))
			goto out;
	}
	/* Fisher-Yates with splitmix64 */
	for (size_t i = n; i > 1; i--) {
		size_t k = (size_t)(splitmix64(&rng) % i);
		struct item t = items[i - 1];

		items[i - 1] = items[k];
		items[k] = t;
	}
	strbuf_add(&out, in.buf, (size_t)(mark - in.buf));
	strbuf_addf(&out, "/* lace build --shuffle: seed %llu, build %u, %zu input sections */\n",
		    v->seed, v->shuffle, n);
	for (size_t i = 0; i < n; i++) {
		unsigned pad = (unsigned)(splitmix64(&rng) % 8) * 16;

		strbuf_addf(&out, "    . = ALIGN(16); . += %u;\n    */%s(%s)\n", pad, items[i].obj,
			    items[i].sec);
	}
	strbuf_addstr(&out, mark + strlen("/* @lace-shuffle@ */"));
	FILE *f = fopen(outpath, "w");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len) {
		rc = lace_error_set(errno ? errno : EIO, "%s: cannot write", outpath);
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	rc = 0;
out:
	for (size_t i = 0; i < n; i++) {
		free(items[i].obj);
		free(items[i].sec);
	}
	free(items);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&p);
	return rc;
}

/* ---- one variant ----------------------------------------------------- */
/* Where a variant's objects live: one folder per distinct set of compile
 * flags, OUT/.obj-<hash>/obj, so variants that differ only in their linker
 * script (baseline, entry-out; the two -cold ones; all shuffled builds)
 * compile once.  OUT/<variant>/obj links to it. */
static void variant_objdir(const struct build *b, const struct variant *v, struct strbuf *sb)
{
	struct strlist flags = { 0 };
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	/* only what differs between variants: the common flags name OUT,
	 * and the folder name must not depend on where OUT is */
	sl_add_words(&flags, v->cflags);
	if (v->shuffle)
		sl_add(&flags, "-ffunction-sections");
	sl_add_words(&flags, b->extra_cflags);
	for (size_t i = 0; i < flags.n; i++)
		for (const char *p = flags.v[i]; ; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
			if (!*p)
				break;
		}
	sl_free(&flags);
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/.obj-%016llx/obj", b->out, (unsigned long long)h);
}

static void variant_dir(const struct build *b, const struct variant *v, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/%s", b->out, v->name);
}

static void variant_cflags(const struct build *b, const struct variant *v, struct strlist *l)
{
	common_cflags(b, l);
	sl_add_words(l, v->cflags);
	if (v->shuffle)
		sl_add(l, "-ffunction-sections");
	sl_add_words(l, b->extra_cflags);
}

static int queue_compiles(struct build *b, struct variant *v, struct jobs *js,
			  struct strlist *seen_objdirs)
{
	struct strbuf objdir = STRBUF_INIT, vdir = STRBUF_INIT, log = STRBUF_INIT;
	struct strbuf o = STRBUF_INIT, s = STRBUF_INIT;
	struct strlist srcs = { 0 }, flags = { 0 };
	int rc;

	variant_objdir(b, v, &objdir);
	variant_dir(b, v, &vdir);
	if ((rc = mkdir_p(vdir.buf)) || (rc = mkdir_p(objdir.buf))) {
		rc = lace_error_set(-rc, "%s: %s", objdir.buf, strerror(-rc));
		goto out;
	}
	strbuf_addf(&log, "%s/build.log", vdir.buf);
	unlink(log.buf);
	strbuf_reset(&o);
	strbuf_addf(&o, "%s/obj", vdir.buf);
	unlink(o.buf);
	strbuf_reset(&s);
	strbuf_addf(&s, "../%s", objdir.buf + strlen(b->out) + 1);
	/* relative, so the output folder can move */
	if (symlink(s.buf, o.buf) && errno != EEXIST) {
		rc = lace_error_set(errno, "%s: cannot link the objects: %s", o.buf, strerror(errno));
		goto out;
	}
	if (sl_has(seen_objdirs, objdir.buf)) {
		rc = 0; /* an earlier variant with the same flags compiles them */
		goto out;
	}
	sl_add(seen_objdirs, objdir.buf);
	for (size_t i = 0; i < b->nprog; i++)
		program_sources(b, &b->progs[i], &srcs);
	variant_cflags(b, v, &flags);
	struct strlist done = { 0 };
	for (size_t i = 0; i < srcs.n; i++) {
		if (sl_has(&done, srcs.v[i]))
			continue;
		sl_add(&done, srcs.v[i]);
		strbuf_reset(&o);
		strbuf_addf(&o, "obj/");
		obj_name(&o, srcs.v[i]);
		strbuf_reset(&s);
		if (!strncmp(srcs.v[i], ".gen/", 5))
			strbuf_addf(&s, "%s/%s", b->out, srcs.v[i]);
		else
			strbuf_addf(&s, "%s/%s", b->src, srcs.v[i]);
		struct strbuf what = STRBUF_INIT;
		strbuf_addf(&what, "%s: compiling %s", v->name, srcs.v[i]);
		/* run in the object dir's parent so DW_AT_comp_dir is under OUT */
		strbuf_setlen(&objdir, objdir.len - 4);
		struct job *j = job_new(js, objdir.buf, log.buf, what.buf);
		strbuf_addstr(&objdir, "/obj");
		strbuf_release(&what);
		sl_add(&j->argv, b->cc);
		for (size_t k = 0; k < flags.n; k++)
			sl_add(&j->argv, flags.v[k]);
		sl_add(&j->argv, "-c");
		sl_add(&j->argv, "-o");
		sl_add(&j->argv, o.buf);
		sl_add(&j->argv, s.buf);
	}
	sl_free(&done);
	rc = 0;
out:
	sl_free(&srcs);
	sl_free(&flags);
	strbuf_release(&objdir);
	strbuf_release(&vdir);
	strbuf_release(&log);
	strbuf_release(&o);
	strbuf_release(&s);
	return rc;
}

static int queue_links(struct build *b, struct variant *v, struct jobs *js)
{
	struct strbuf objdir = STRBUF_INIT, vdir = STRBUF_INIT, log = STRBUF_INIT;
	struct strbuf script = STRBUF_INIT, s = STRBUF_INIT;
	int rc = 0;

	variant_objdir(b, v, &objdir);
	variant_dir(b, v, &vdir);
	strbuf_addf(&log, "%s/build.log", vdir.buf);
	variant_script(b, v, &script);
	if (v->shuffle) {
		struct strlist objs = { 0 }, srcs = { 0 };
		struct strbuf ld = STRBUF_INIT;

		for (size_t i = 0; i < b->nprog; i++)
			program_sources(b, &b->progs[i], &srcs);
		for (size_t i = 0; i < srcs.n; i++) {
			strbuf_reset(&s);
			obj_name(&s, srcs.v[i]);
			if (!sl_has(&objs, s.buf))
				sl_add(&objs, s.buf);
		}
		strbuf_addf(&ld, "%s/link.ld", vdir.buf);
		rc = write_shuffle_script(b, v, script.buf, &objs, objdir.buf, ld.buf);
		strbuf_reset(&script);
		strbuf_addstr(&script, ld.buf);
		strbuf_release(&ld);
		sl_free(&objs);
		sl_free(&srcs);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < b->nprog; i++) {
		struct strlist srcs = { 0 }, seen = { 0 };
		struct strbuf what = STRBUF_INIT;

		program_sources(b, &b->progs[i], &srcs);
		strbuf_addf(&what, "%s: linking %s", v->name, b->progs[i].name);
		struct job *j = job_new(js, vdir.buf, log.buf, what.buf);
		strbuf_release(&what);
		sl_add(&j->argv, b->cc);
		sl_add_words(&j->argv, "-no-pie -pthread -Wl,--build-id=sha1");
		strbuf_reset(&s);
		strbuf_addf(&s, "-Wl,-T,%s", script.buf);
		sl_add(&j->argv, s.buf);
		sl_add_words(&j->argv, v->ldflags);
		sl_add(&j->argv, "-o");
		sl_add(&j->argv, b->progs[i].name);
		for (size_t k = 0; k < srcs.n; k++) {
			strbuf_reset(&s);
			strbuf_addf(&s, "%s/", objdir.buf);
			obj_name(&s, srcs.v[k]);
			if (sl_has(&seen, s.buf))
				continue;
			sl_add(&seen, s.buf);
			sl_add(&j->argv, s.buf);
		}
		sl_add_words(&j->argv, "-lm");
		for (size_t k = 0; k < b->libs.n; k++)
			sl_add(&j->argv, b->libs.v[k]);
		sl_free(&srcs);
		sl_free(&seen);
	}
out:
	strbuf_release(&objdir);
	strbuf_release(&vdir);
	strbuf_release(&log);
	strbuf_release(&script);
	strbuf_release(&s);
	return rc;
}

static int write_manifest(struct build *b, struct variant *v)
{
	struct strbuf vdir = STRBUF_INIT, p = STRBUF_INIT, script = STRBUF_INIT;
	struct strlist flags = { 0 };
	json_t *m = json_schema_object("lace-build-manifest"), *outs = json_array(), *cf = json_array();
	char hex[65];
	int rc = 0;

	variant_dir(b, v, &vdir);
	/* only what differs between variants: the common flags name OUT,
	 * and the folder name must not depend on where OUT is */
	sl_add_words(&flags, v->cflags);
	if (v->shuffle)
		sl_add(&flags, "-ffunction-sections");
	sl_add_words(&flags, b->extra_cflags);
	for (size_t i = 0; i < flags.n; i++)
		json_array_append_new(cf, json_string(flags.v[i]));
	variant_script(b, v, &script);
	json_object_set_new(m, "variant", json_string(v->name));
	json_object_set_new(m, "description", json_string(v->description ? v->description : ""));
	if (v->shuffle) {
		json_object_set_new(m, "script", json_string("link.ld"));
		json_object_set_new(m, "script_base", json_string(v->script));
		strbuf_addf(&p, "%s/link.ld", vdir.buf);
		json_object_set_new(m, "shuffle", json_pack("{s:I, s:I}", "seed", (json_int_t)v->seed,
							    "index", (json_int_t)v->shuffle));
	} else {
		json_object_set_new(m, "script", json_string(v->script));
		strbuf_addstr(&p, script.buf);
		json_object_set_new(m, "shuffle", json_null());
	}
	if ((rc = sha256_file_hex(p.buf, hex)) == 0)
		json_object_set_new(m, "script_sha256", json_string(hex));
	json_object_set_new(m, "cflags", cf);
	json_object_set_new(m, "ldflags", json_string(v->ldflags ? v->ldflags : ""));
	json_object_set_new(m, "compiler", json_string(b->compiler));
	for (size_t i = 0; i < b->nprog && !rc; i++) {
		struct stat st;

		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", vdir.buf, b->progs[i].name);
		if ((rc = sha256_file_hex(p.buf, hex)) || stat(p.buf, &st)) {
			rc = lace_error_set(rc ? -rc : errno, "%s: cannot read", p.buf);
			break;
		}
		json_array_append_new(outs, json_pack("{s:s, s:I, s:s}", "name", b->progs[i].name,
						      "size", (json_int_t)st.st_size, "sha256", hex));
	}
	json_object_set_new(m, "outputs", outs);
	if (!rc) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/manifest.json", vdir.buf);
		if (json_dump_file(m, p.buf, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			rc = lace_error_set(EIO, "%s: cannot write", p.buf);
	}
	json_decref(m);
	sl_free(&flags);
	strbuf_release(&vdir);
	strbuf_release(&p);
	strbuf_release(&script);
	return rc;
}

/* ---- the command ----------------------------------------------------- */
static void select_variant(struct build *b, const struct variant *v)
{
	ALLOC_GROW(b->sel, b->nsel + 1, b->asel);
	b->sel[b->nsel++] = *v;
}

static bool conf_owns(const struct build *b, const char *s)
{
	for (size_t i = 0; i < b->nconf; i++)
		if (s == b->conf[i].name || s == b->conf[i].script || s == b->conf[i].cflags ||
		    s == b->conf[i].ldflags || s == b->conf[i].description)
			return true;
	return false;
}

static void program_release(struct program *p)
{
	free(p->name);
	sl_free(&p->srcs);
}

/* Free everything a run loaded.  Selected variants are copies of
 * variants.conf entries sharing its strings, except the names and
 * scripts made here for --shuffle and --ldscript. */
static void build_release(struct build *b)
{
	for (size_t i = 0; i < b->nsel; i++) {
		if (!conf_owns(b, b->sel[i].name))
			free(b->sel[i].name);
		if (!conf_owns(b, b->sel[i].script))
			free(b->sel[i].script);
	}
	free(b->sel);
	for (size_t i = 0; i < b->nconf; i++) {
		free(b->conf[i].name);
		free(b->conf[i].script);
		free(b->conf[i].cflags);
		free(b->conf[i].ldflags);
		free(b->conf[i].description);
	}
	free(b->conf);
	for (size_t i = 0; i < b->nprog; i++)
		program_release(&b->progs[i]);
	free(b->progs);
	sl_free(&b->common);
	sl_free(&b->libs);
	sl_free(&b->study);
	sl_free(&b->gen_outputs);
	free(b->gen_src);
	free(b->gen_libs);
	free(b->gen_args);
}

static int list_variants(const struct build *b)
{
	for (size_t i = 0; i < b->nconf; i++)
		printf("%-16s %-22s %s\n", b->conf[i].name, b->conf[i].script,
		       b->conf[i].description ? b->conf[i].description : "");
	return 0;
}

static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > max || *s == '-')
		return -1;
	*out = v;
	return 0;
}

static int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "all", no_argument, NULL, 'a' },
		{ "shuffle", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "ldscript", required_argument, NULL, 'T' },
		{ "cflags", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "program", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct build b;
	struct strlist names = { 0 }, programs = { 0 };
	unsigned long shuffle = 0, seed = 1, jobs = 0;
	const char *out = "build/variants", *ldscript = NULL;
	int all = 0, list = 0, have_seed = 0, rc = LACE_EXIT_OK, c;
	struct jobs js = { 0 };

	memset(&b, 0, sizeof(b));
	while ((c = getopt_long(argc, argv, ":v:ak:s:T:c:o:j:lp:", opts, NULL)) != -1) {
		switch (c) {
		case 'v': {
			char *save = NULL, *copy = xstrdup(optarg);

			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
				sl_add(&names, t);
			free(copy);
			break;
		}
		case 'p': {
			char *save = NULL, *copy = xstrdup(optarg);

			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
				sl_add(&programs, t);
			free(copy);
			break;
		}
		case 'a':
			all = 1;
			break;
		case 'k':
			if (parse_count(optarg, 1000, &shuffle) || !shuffle)
				{
					rc = lace_usage_error(CMD, "--shuffle takes a count from 1 to 1000, not '%s'", optarg);
					goto out;
				}
			break;
		case 's':
			if (parse_count(optarg, ULONG_MAX, &seed))
				{
					rc = lace_usage_error(CMD, "--seed takes a non-negative integer, not '%s'", optarg);
					goto out;
				}
			have_seed = 1;
			break;
		case 'T':
			ldscript = optarg;
			break;
		case 'c':
			b.extra_cflags = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			if (parse_count(optarg, 256, &jobs) || !jobs)
				{
					rc = lace_usage_error(CMD, "-j takes a count from 1 to 256, not '%s'", optarg);
					goto out;
				}
			break;
		case 'l':
			list = 1;
			break;
		default:
			{
				rc = lace_bad_option(CMD, c, argv);
				goto out;
			}
		}
	}
	if (optind < argc)
		{
			rc = lace_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
			goto out;
		}
	if (have_seed && !shuffle)
		{
			rc = lace_usage_error(CMD, "--seed needs --shuffle");
			goto out;
		}
	if (all && names.n)
		{
			rc = lace_usage_error(CMD, "--all and --variant exclude each other");
			goto out;
		}

	if (find_srcdir(&b) || load_config(&b)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	if (list) {
		rc = list_variants(&b);
		goto out;
	}
	if (programs.n) {
		size_t k = 0;

		for (size_t i = 0; i < programs.n; i++)
			if (!conf_program_find(&b, programs.v[i])) {
				rc = lace_usage_error(CMD, "no program '%s' (the driver is hashmmu-driver; "
						      "workloads come from bench/workloads.conf)",
						      programs.v[i]);
				goto out;
			}
		for (size_t i = 0; i < b.nprog; i++) {
			if (sl_has(&programs, b.progs[i].name))
				b.progs[k++] = b.progs[i];
			else
				program_release(&b.progs[i]);
		}
		b.nprog = k;
	}
	b.cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "gcc";
	b.jobs = jobs ? (int)jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b.jobs < 1)
		b.jobs = 1;
	b.tty = isatty(2);

	/* what to build: named variants, else all (unless only shuffled or a
	 * custom script were asked for) */
	if (!names.n && !ldscript && (all || !shuffle))
		for (size_t i = 0; i < b.nconf; i++)
			select_variant(&b, &b.conf[i]);
	for (size_t i = 0; i < names.n; i++) {
		struct variant *v = conf_variant(&b, names.v[i]);

		if (!v) {
			struct strbuf known = STRBUF_INIT;

			for (size_t k = 0; k < b.nconf; k++)
				strbuf_addf(&known, "%s%s", k ? ", " : "", b.conf[k].name);
			rc = lace_usage_error(CMD, "no variant '%s' (known: %s)", names.v[i], known.buf);
			strbuf_release(&known);
			goto out;
		}
		select_variant(&b, v);
	}
	if (ldscript) {
		char abs[PATH_MAX];
		struct variant v = { 0 };
		struct variant *base = conf_variant(&b, "baseline");
		char *bn = xstrdup(ldscript), *dot;

		if (!realpath(ldscript, abs)) {
			lace_err(ldscript, "%s", strerror(errno));
			free(bn);
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		v.name = xstrdup(basename(bn));
		if ((dot = strrchr(v.name, '.')) && dot != v.name)
			*dot = 0;
		if (!name_ok(v.name)) {
			rc = lace_usage_error(CMD, "--ldscript %s: '%s' is not a usable variant name",
					      ldscript, v.name);
			free(bn);
			goto out;
		}
		v.script = xstrdup(abs);
		v.cflags = base && base->cflags ? base->cflags : "";
		v.description = "custom linker script (--ldscript) with the baseline's flags";
		free(bn);
		select_variant(&b, &v);
	}
	if (shuffle) {
		struct variant *base = conf_variant(&b, "baseline");

		if (!base) {
			lace_err(CMD, "variants.conf has no baseline to shuffle");
			rc = LACE_EXIT_USAGE;
			goto out;
		}
		for (unsigned long i = 1; i <= shuffle; i++) {
			struct variant v = *base;
			struct strbuf n = STRBUF_INIT;

			strbuf_addf(&n, "baseline-shuffle-%lu", i);
			v.name = strbuf_detach(&n, NULL);
			v.shuffle = (unsigned)i;
			v.seed = seed;
			v.description = "baseline with a seeded order and padding of its text input sections";
			select_variant(&b, &v);
		}
	}

	if (mkdir_p(out) || !realpath(out, b.out)) {
		lace_err(out, "cannot create the output folder: %s", strerror(errno));
		rc = LACE_EXIT_USAGE;
		goto out;
	}
	compiler_version(&b);
	if (run_generator(&b)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_FAIL;
		goto out;
	}
	struct strlist seen = { 0 };
	for (size_t i = 0; i < b.nsel && !rc; i++)
		if (queue_compiles(&b, &b.sel[i], &js, &seen)) {
			lace_err(CMD, "%s", lace_error_msg());
			rc = LACE_EXIT_FAIL;
		}
	sl_free(&seen);
	if (!rc && jobs_check(&js, b.jobs, "compiling", b.tty)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_FAIL;
	}
	jobs_free(&js);
	for (size_t i = 0; i < b.nsel && !rc; i++)
		if (queue_links(&b, &b.sel[i], &js)) {
			lace_err(CMD, "%s", lace_error_msg());
			rc = LACE_EXIT_FAIL;
		}
	if (!rc && jobs_check(&js, b.jobs, "linking", b.tty)) {
		lace_err(CMD, "%s", lace_error_msg());
		rc = LACE_EXIT_FAIL;
	}
	jobs_free(&js);
	for (size_t i = 0; i < b.nsel && !rc; i++) {
		if (write_manifest(&b, &b.sel[i])) {
			lace_err(CMD, "%s", lace_error_msg());
			rc = LACE_EXIT_FAIL;
		} else {
			printf("%s/%s\n", b.out, b.sel[i].name);
		}
	}
out:
	build_release(&b);
	sl_free(&names);
	sl_free(&programs);
	return rc;
}

LACE_COMMAND(build, .name = "build",
	     .summary = "build the study code once per layout variant",
	     .usage = "usage: lace build [--variant NAME[,NAME]... | --all] [--shuffle K [--seed S]]\n"
		      "                  [--ldscript FILE] [--cflags STR] [--out DIR] [-j N]\n"
		      "                  [--program NAME[,NAME]...] [--list]\n"
		      "\n"
		      "Compile probes/, hashmmu/ and the workloads of bench/workloads.conf once per\n"
		      "placement variant of linker_scripts/variants.conf, into DIR/<variant>/ with a\n"
		      "manifest.json (variant, script, flags, compiler, sha256 of each output).\n"
		      "\n"
		      "  -v, --variant NAME   build this variant (repeatable, or comma-separated)\n"
		      "  -a, --all            build every variant (the default without --shuffle)\n"
		      "  -k, --shuffle K      also build K randomized layouts of baseline,\n"
		      "                       DIR/baseline-shuffle-<1..K>\n"
		      "  -s, --seed S         seed of the randomized layouts (default 1)\n"
		      "  -T, --ldscript FILE  build one more variant with this linker script and\n"
		      "                       the baseline's flags, named after FILE\n"
		      "  -c, --cflags STR     extra compiler flags for every variant\n"
		      "  -o, --out DIR        output folder (default build/variants)\n"
		      "  -j, --jobs N         parallel compiler jobs (default: online CPUs)\n"
		      "  -p, --program NAME   build only these programs (hashmmu-driver or a\n"
		      "                       workload of bench/workloads.conf); default all\n"
		      "  -l, --list           list the variants and exit\n"
		      "\n"
		      "Sources: $LACE_SRCDIR, else the tree lace was built from, else\n"
		      "<prefix>/share/lace/src.  Compiler: $CC, else gcc.\n",
	     .run = cmd_build, .order = 60);
