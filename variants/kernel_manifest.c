/* OUT/<arch>-<variant>/manifest.json of a kernel build, so a result can
 * name exactly which kernel it measured and how it was made. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json_schema.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "variants/kernel_build.h"

/* A relink's paddings: {"points": [{"after", "bytes"}...], "seed",
 * "index"}; null for other variants */
static json_t *padding_json(const struct kernel_build *b, const struct kernel_variant *v)
{
	if (!v->npad)
		return json_null();
	json_t *pts = json_array();
	for (size_t i = 0; i < v->npad; i++)
		json_array_append_new(pts, json_pack("{s:s, s:I}", "after",
						     i < b->arch->npads ? b->arch->pads[i].anchor : "",
						     "bytes", (json_int_t)v->pad[i]));
	return json_pack("{s:o, s:I, s:I, s:I}", "points", pts, "bytes",
			 (json_int_t)kernel_variant_pad_total(v), "seed", (json_int_t)v->seed, "index",
			 (json_int_t)v->index);
}

/* The KBUILD_BUILD_* settings every build runs with (kernel_build_env) */
static json_t *build_env_json(void)
{
	json_t *o = json_object();
	for (const char *const *e = kernel_build_env; *e; e++) {
		const char *eq = strchr(*e, '=');
		char *key = xstrndup(*e, eq ? (size_t)(eq - *e) : strlen(*e));
		json_object_set_new(o, key, json_string(eq ? eq + 1 : ""));
		free(key);
	}
	return o;
}

/* The first line of a file, or "" */
static json_t *first_line(const char *dir, const char *name)
{
	struct strbuf p = STRBUF_INIT;
	char buf[256] = "";
	FILE *f;

	strbuf_addf(&p, "%s/%s", dir, name);
	f = fopen(p.buf, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	strbuf_release(&p);
	return json_string(buf);
}

/* LINUX_COMPILER from include/generated/compile.h: the compiler and
 * linker the kernel itself records */
static json_t *compiler(const char *vdir)
{
	struct strbuf p = STRBUF_INIT;
	char line[512], *q;
	json_t *r = json_string("");
	FILE *f;

	strbuf_addf(&p, "%s/include/generated/compile.h", vdir);
	f = fopen(p.buf, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "#define LINUX_COMPILER \"", 24) && (q = strrchr(line, '"')) > line + 24) {
			*q = 0;
			json_decref(r);
			r = json_string(line + 24);
		}
	if (f)
		fclose(f);
	strbuf_release(&p);
	return r;
}

static json_t *hashed(const char *path, const char *name, int *rc)
{
	char hex[65];
	struct stat st;

	if (sha256_file_hex(path, hex) || stat(path, &st)) {
		*rc = lace_error_set(EIO, "%s: cannot read", path);
		return json_null();
	}
	return json_pack("{s:s, s:I, s:s}", "name", name, "size", (json_int_t)st.st_size, "sha256", hex);
}

int kernel_write_manifest(const struct kernel_build *b, const struct kernel_variant *v,
			  const char *odir, const char *vdir, const struct strvec *patches,
			  double seconds)
{
	json_t *m = json_schema_object("lace-kernel-manifest"), *pa = json_array(), *outs = json_array();
	struct strbuf p = STRBUF_INIT;
	char id[129];
	int rc = 0;

	json_object_set_new(m, "arch", json_string(b->arch->name));
	json_object_set_new(m, "variant", json_string(v->name));
	json_object_set_new(m, "description", json_string(v->description ? v->description : ""));
	json_object_set_new(m, "source", json_pack("{s:s, s:s}", "package", b->cfg->package,
						   "version", b->version ? b->version : ""));
	json_object_set_new(m, "release", first_line(vdir, "include/config/kernel.release"));
	json_object_set_new(m, "config_base", json_string(b->arch->base));
	json_t *frags = json_array();
	char *list = xstrdup(b->arch->config), *save = NULL;
	for (char *f = strtok_r(list, " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", b->cfg->dir, f);
		json_array_append_new(frags, hashed(p.buf, f, &rc));
	}
	free(list);
	json_object_set_new(m, "config_fragments", frags);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.config", vdir);
	json_object_set_new(m, "config", hashed(p.buf, "config", &rc));
	for (size_t i = 0; i < patches->nr; i++) {
		const char *name = patches->v[i];
		size_t dl = strlen(b->cfg->dir);
		if (!strncmp(name, b->cfg->dir, dl) && name[dl] == '/')
			name += dl + 1; /* kernel/-relative, as in kernel.conf */
		json_array_append_new(pa, hashed(patches->v[i], name, &rc));
	}
	json_object_set_new(m, "patches", pa);
	json_object_set_new(m, "padding", padding_json(b, v));
	json_object_set_new(m, "build_env", build_env_json());
	json_object_set_new(m, "compiler", compiler(vdir));
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/vmlinux", odir);
	json_object_set_new(m, "build_id", kernel_build_id(p.buf, id, sizeof(id)) ? json_null() : json_string(id));
	const char *image = strrchr(b->arch->image, '/');
	image = image ? image + 1 : b->arch->image;
	const char *names[] = { "vmlinux", "System.map", image, "config", "vmlinux.map" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (i == 2 && !strcmp(image, "vmlinux"))
			continue; /* the image is vmlinux itself (ppc64) */
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", odir, names[i]);
		if (i == 4 && !fs_is_file(p.buf))
			continue; /* the link map: with CONFIG_VMLINUX_MAP only */
		json_array_append_new(outs, hashed(p.buf, names[i], &rc));
	}
	json_object_set_new(m, "outputs", outs);
	json_object_set_new(m, "seconds", json_pack("{s:f, s:f, s:f, s:f}", "source", b->t_source,
						    "configure", b->t_configure, "base", b->t_base,
						    "variant", seconds));
	if (!rc) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/manifest.json", odir);
		if (json_dump_file(m, p.buf, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			rc = lace_error_set(EIO, "%s: cannot write", p.buf);
	}
	json_decref(m);
	strbuf_release(&p);
	return rc;
}

/* Whether odir holds this variant already: its manifest records the same
 * source, config fragments, resulting .config, patches and padding as
 * this build would use, and every output it lists is there unchanged. */
bool kernel_manifest_current(const struct kernel_build *b, const struct kernel_variant *v,
			     const char *odir, const char *vdir, const struct strvec *patches)
{
	struct strbuf p = STRBUF_INIT;
	json_error_t je;
	json_t *m, *o;
	size_t i;
	int rc = 0;
	bool same;

	strbuf_addf(&p, "%s/manifest.json", odir);
	m = json_load_file(p.buf, 0, &je);
	if (!m) {
		strbuf_release(&p);
		return false;
	}
	same = !strcmp(json_string_value(json_object_get(json_object_get(m, "source"), "version")) ?: "",
		       b->version ? b->version : "");
	char *list = xstrdup(b->arch->config), *save = NULL;
	json_t *frags = json_array();
	for (char *f = strtok_r(list, " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", b->cfg->dir, f);
		json_array_append_new(frags, hashed(p.buf, f, &rc));
	}
	free(list);
	same = same && json_equal(frags, json_object_get(m, "config_fragments"));
	json_decref(frags);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.config", vdir);
	o = hashed(p.buf, "config", &rc);
	same = same && json_equal(o, json_object_get(m, "config"));
	json_decref(o);
	json_t *pa = json_array();
	for (i = 0; i < patches->nr; i++) {
		const char *name = patches->v[i];
		size_t dl = strlen(b->cfg->dir);
		if (!strncmp(name, b->cfg->dir, dl) && name[dl] == '/')
			name += dl + 1;
		json_array_append_new(pa, hashed(patches->v[i], name, &rc));
	}
	same = same && json_equal(pa, json_object_get(m, "patches"));
	json_decref(pa);
	o = padding_json(b, v);
	same = same && json_equal(o, json_object_get(m, "padding"));
	json_decref(o);
	/* a kernel built before the build environment was fixed carries
	 * its own time and build number in its version string */
	o = build_env_json();
	same = same && json_equal(o, json_object_get(m, "build_env"));
	json_decref(o);
	json_array_foreach(json_object_get(m, "outputs"), i, o) {
		if (!same)
			break;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", odir, json_string_value(json_object_get(o, "name")) ?: "");
		json_t *now = hashed(p.buf, json_string_value(json_object_get(o, "name")) ?: "", &rc);
		same = json_equal(now, o);
		json_decref(now);
	}
	same = same && !rc && json_array_size(json_object_get(m, "outputs")) > 0;
	lace_error_clear();
	json_decref(m);
	strbuf_release(&p);
	return same;
}
