/* The function table `lace replay` maps addresses with (layout/symkeys.h):
 * one key per function that names the same code in another build, and
 * the GNU build-id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/image.h"
#include "layout/symkeys.h"
#include "util/elf_note.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The GNU build-id note of img as hex into hex ("" when none): in
 * .note.gnu.build-id, or among the kernel's .notes (util/elf_note.h reads
 * them in this machine's byte order: the little-endian x86-64 and ppc64le
 * images lace replays) */
static void note_build_id(struct lace_image *img, char *hex, size_t len)
{
	hex[0] = 0;
	for (size_t i = 0; i < img->nsections; i++) {
		const uint8_t *d;
		size_t n;

		if (strcmp(img->sections[i].name, ".note.gnu.build-id") &&
		    strcmp(img->sections[i].name, ".notes"))
			continue;
		d = image_section_data(img, (int)i, &n);
		if (d && elf_note_build_id(d, n, hex, len))
			return;
		hex[0] = 0;
	}
}

static int key_cmp(const void *a, const void *b)
{
	const struct symkey *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

int symkeys_load(const char *path, struct symkeys *t)
{
	struct lace_load_opts lo = { .geom = LACE_GEOMETRY_DEFAULT };
	struct lace_image *img;
	struct strbuf sb = STRBUF_INIT;
	int err = image_load(path, &lo, &img);

	memset(t, 0, sizeof(*t));
	if (err) {
		char why[256];
		snprintf(why, sizeof(why), "%s", lace_error_msg());
		return lace_error_set(err, "%s: %s", path, why);
	}
	note_build_id(img, t->build_id, sizeof(t->build_id));
	t->v = xcalloc(img->nfuncs, sizeof(*t->v));
	for (size_t i = 0; i < img->nfuncs; i++) {
		const struct lace_function *f = &img->funcs[i];
		if (!f->size)
			continue;
		strbuf_reset(&sb);
		strbuf_addstr(&sb, f->name);
		if (!f->global)   /* a local: the same name may be in other files */
			strbuf_addf(&sb, "@%s#%u", f->file ? f->file : "", f->static_ordinal);
		t->v[t->n].key = xstrdup(sb.buf);
		t->v[t->n].name = xstrdup(f->name);
		t->v[t->n].addr = f->addr;
		t->v[t->n].size = f->size;
		t->n++;
	}
	qsort(t->v, t->n, sizeof(*t->v), key_cmp);
	strbuf_release(&sb);
	image_free(img);
	return 0;
}

void symkeys_free(struct symkeys *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].key);
		free(t->v[i].name);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int symkeys_build_id(const char *path, char *hex, size_t len)
{
	struct lace_load_opts lo = { .geom = LACE_GEOMETRY_DEFAULT };
	struct lace_image *img;
	int err = image_load(path, &lo, &img);

	if (err) {
		char why[256];
		snprintf(why, sizeof(why), "%s", lace_error_msg());
		return lace_error_set(err, "%s: %s", path, why);
	}
	note_build_id(img, hex, len);
	image_free(img);
	return 0;
}

char *symkeys_build_of(const char *path)
{
	struct symkeys k;
	struct strbuf sb = STRBUF_INIT;
	const char *slash = strrchr(path, '/');

	if (!fs_is_file(path)) {
		lace_error_set(ENOENT, "%s: no such file", path);
		return NULL;
	}
	if (!symkeys_load(path, &k)) {
		size_t n = k.n;

		symkeys_free(&k);
		if (n)
			return xstrdup(path);
	}
	strbuf_addf(&sb, "%.*svmlinux", slash ? (int)(slash - path + 1) : 0, path);
	if (!fs_is_file(sb.buf)) {
		lace_error_set(ENOENT, "%s: no ELF with symbols, and no vmlinux beside it (%s)", path,
			       sb.buf);
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}
