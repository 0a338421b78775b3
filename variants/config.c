/* The INI model of `lace build`; see config.h.  LACE_SRCDIR_DEFAULT and
 * LACE_PREFIX_DEFAULT come from variants/module.mk. */
#include "variants/config.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const struct variant *variants_config_variant(const struct variants_config *c, const char *name)
{
	for (size_t i = 0; i < c->nvariants; i++)
		if (!strcmp(c->variants[i].name, name))
			return &c->variants[i];
	return NULL;
}

struct program *variants_config_program(const struct variants_config *c, const char *name)
{
	for (size_t i = 0; i < c->nprogs; i++)
		if (!strcmp(c->progs[i].name, name))
			return &c->progs[i];
	return NULL;
}

static struct program *program_get(struct variants_config *c, const char *name)
{
	struct program *p = variants_config_program(c, name);

	if (p)
		return p;
	ALLOC_GROW(c->progs, c->nprogs + 1, c->aprogs);
	p = &c->progs[c->nprogs++];
	memset(p, 0, sizeof(*p));
	strvec_init(&p->srcs);
	p->name = xstrdup(name);
	return p;
}

static void set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

static int variants_ini(void *user, const char *section, const char *key, const char *value)
{
	struct variants_config *c = user;
	struct variant *v = (struct variant *)variants_config_variant(c, section);

	if (!v) {
		ALLOC_GROW(c->variants, c->nvariants + 1, c->avariants);
		v = &c->variants[c->nvariants++];
		memset(v, 0, sizeof(*v));
		v->name = xstrdup(section);
	}
	char **slot = !strcmp(key, "script") ? &v->script
		    : !strcmp(key, "cflags") ? &v->cflags
		    : !strcmp(key, "ldflags") ? &v->ldflags
		    : !strcmp(key, "description") ? &v->description : NULL;
	if (!slot)
		return 0; /* unknown key: inih reports the line */
	set_string(slot, value);
	return 1;
}

/* bench/workloads.conf: [generator], [common], one section per workload. */
static int workloads_ini(void *user, const char *section, const char *key, const char *value)
{
	struct variants_config *c = user;

	if (!strcmp(section, "generator")) {
		char **slot = !strcmp(key, "source") ? &c->gen_src
			    : !strcmp(key, "libs") ? &c->gen_libs
			    : !strcmp(key, "args") ? &c->gen_args : NULL;
		if (slot)
			set_string(slot, value);
		else if (!strcmp(key, "outputs"))
			strvec_split(&c->gen_outputs, value);
		return 1;
	}
	if (!strcmp(section, "common")) {
		if (!strcmp(key, "sources"))
			strvec_split(&c->common, value);
		else if (!strcmp(key, "libs"))
			strvec_split(&c->libs, value);
		/* `study` names probes/ hashmmu/ util/: always built here */
		return 1;
	}
	struct program *p = program_get(c, section);
	if (!strcmp(key, "sources"))
		strvec_split(&p->srcs, value);
	else if (!strcmp(key, "handlers"))
		p->handlers = !strcmp(value, "yes");
	return 1;
}

static int path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

int variants_find_srcdir(char **src)
{
	const char *cand[4] = { getenv("LACE_SRCDIR"), NULL, NULL, NULL };
	struct strbuf rel = STRBUF_INIT, probe = STRBUF_INIT;
	const char *exe = paths_exe_dir();
	int k = 1, rc = -ENOENT;

	/* an installed lace uses the sources installed with it, even when the
	 * tree it was built from still exists */
	if (exe) {
		strbuf_addf(&rel, "%s/../share/lace/src", exe);
		cand[k++] = rel.buf;
	}
#ifdef LACE_SRCDIR_DEFAULT
	cand[k++] = LACE_SRCDIR_DEFAULT;
#endif
#ifdef LACE_PREFIX_DEFAULT
	cand[k++] = LACE_PREFIX_DEFAULT "/share/lace/src";
#endif
	*src = NULL;
	for (int i = 0; i < k && !*src; i++) {
		if (!cand[i] || !*cand[i])
			continue;
		strbuf_reset(&probe);
		strbuf_addf(&probe, "%s/linker_scripts/variants.conf", cand[i]);
		if (path_exists(probe.buf) && (*src = realpath(cand[i], NULL)))
			rc = 0;
		else if (i == 0)
			break;
	}
	if (rc && cand[0] && *cand[0])
		lace_error_set(ENOENT, "LACE_SRCDIR=%s has no linker_scripts/variants.conf", cand[0]);
	else if (rc)
		lace_error_set(ENOENT, "cannot find the study sources (set LACE_SRCDIR)");
	strbuf_release(&rel);
	strbuf_release(&probe);
	return rc;
}

/* Every .c directly in src/dir, sorted, as "dir/name.c"; none when the
 * folder is missing. */
static void list_dir_c(struct strvec *l, const char *src, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent **ents;
	int n;

	strbuf_addf(&path, "%s/%s", src, dir);
	n = scandir(path.buf, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > 2 && !strcmp(ents[i]->d_name + len - 2, ".c"))
			strvec_pushf(l, "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	strbuf_release(&path);
}

int variant_name_ok(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int load_variants(struct variants_config *c, const char *path)
{
	int line = ini_parse(path, variants_ini, c);

	if (line < 0)
		return lace_error_set(ENOENT, "%s: cannot read", path);
	if (line)
		return lace_error_set(EINVAL, "%s:%d: bad line", path, line);
	for (size_t i = 0; i < c->nvariants; i++)
		if (!variant_name_ok(c->variants[i].name))
			return lace_error_set(EINVAL, "%s: variant name '%s' is not a plain file name",
					      path, c->variants[i].name);
	for (size_t i = 0; i < c->nvariants; i++)
		if (!c->variants[i].script)
			return lace_error_set(EINVAL, "%s: variant '%s' has no script", path,
					      c->variants[i].name);
	return 0;
}

static int load_workloads(struct variants_config *c, const char *path)
{
	int line;

	if (!path_exists(path))
		return 0;
	line = ini_parse(path, workloads_ini, c);
	if (line)
		return lace_error_set(EINVAL, "%s:%d: bad line", path, line);
	for (size_t i = 0; i < c->nprogs; i++)
		if (!variant_name_ok(c->progs[i].name))
			return lace_error_set(EINVAL, "bench/workloads.conf: program name '%s' is not a plain file name",
					      c->progs[i].name);
	return 0;
}

int variants_config_load(struct variants_config *c, const char *src)
{
	struct strbuf p = STRBUF_INIT;
	int rc;

	memset(c, 0, sizeof(*c));
	strvec_init(&c->common);
	strvec_init(&c->libs);
	strvec_init(&c->study);
	strvec_init(&c->gen_outputs);
	c->src = xstrdup(src);
	strbuf_addf(&p, "%s/linker_scripts/variants.conf", src);
	rc = load_variants(c, p.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/bench/workloads.conf", src);
	if (!rc)
		rc = load_workloads(c, p.buf);
	strbuf_release(&p);
	if (rc)
		return rc;
	/* the driver is always built: the layout and perf checks use it */
	struct program *d = program_get(c, "hashmmu-driver");
	if (!d->srcs.nr)
		strvec_push(&d->srcs, "hashmmu/driver/driver.c");
	list_dir_c(&c->study, src, "probes");
	list_dir_c(&c->study, src, "hashmmu");
	list_dir_c(&c->study, src, "util");
	return 0;
}

int variants_config_keep_programs(struct variants_config *c, const struct strvec *names)
{
	size_t k = 0;

	for (size_t i = 0; i < names->nr; i++)
		if (!variants_config_program(c, names->v[i]))
			return lace_error_set(EINVAL, "no program '%s' (the driver is hashmmu-driver; "
					      "workloads come from bench/workloads.conf)", names->v[i]);
	for (size_t i = 0; i < c->nprogs; i++) {
		if (strvec_find(names, c->progs[i].name) >= 0) {
			c->progs[k++] = c->progs[i];
		} else {
			free(c->progs[i].name);
			strvec_clear(&c->progs[i].srcs);
		}
	}
	c->nprogs = k;
	return 0;
}

void variants_config_release(struct variants_config *c)
{
	for (size_t i = 0; i < c->nvariants; i++) {
		struct variant *v = &c->variants[i];

		free(v->name);
		free(v->script);
		free(v->cflags);
		free(v->ldflags);
		free(v->description);
	}
	free(c->variants);
	for (size_t i = 0; i < c->nprogs; i++) {
		free(c->progs[i].name);
		strvec_clear(&c->progs[i].srcs);
	}
	free(c->progs);
	strvec_clear(&c->common);
	strvec_clear(&c->libs);
	strvec_clear(&c->study);
	strvec_clear(&c->gen_outputs);
	free(c->gen_src);
	free(c->gen_libs);
	free(c->gen_args);
	free(c->src);
	memset(c, 0, sizeof(*c));
}
