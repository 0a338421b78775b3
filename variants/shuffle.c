#include "variants/shuffle.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/prng.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct item {
	char *obj;   /* basename */
	char *sec;
};

struct items {
	struct item *v;
	size_t n, alloc;
};

static int skip_section(const char *name)
{
	static const char *const early[] = { ".text.unlikely", ".text.startup", ".text.exit",
					     ".text.hot", ".text.sorted" };

	if (strcmp(name, ".text") && strcmp(name, ".entry.text") && strncmp(name, ".text.", 6))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(early); i++)
		if (!strncmp(name, early[i], strlen(early[i])))
			return 1; /* placed by an earlier statement of the script */
	return 0;
}

/* Every text input section of one object (libelf), in section order. */
static int object_sections(const char *path, const char *base, struct items *it)
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
		ALLOC_GROW(it->v, it->n + 1, it->alloc);
		it->v[it->n].obj = xstrdup(base);
		it->v[it->n].sec = xstrdup(name);
		it->n++;
	}
	elf_end(e);
	close(fd);
	return 0;
}

int shuffle_write_script(const char *base_script, const struct strvec *objs,
			 const char *objdir, unsigned long long seed, unsigned index,
			 const char *outpath)
{
	static const char marker[] = "/* @lace-shuffle@ */";
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, p = STRBUF_INIT;
	struct items it = { 0 };
	struct prng rng;
	const char *mark;
	int rc = 0;

	if (strbuf_read_file(&in, base_script) < 0) {
		rc = lace_error_set(errno, "%s: cannot read", base_script);
		goto out;
	}
	mark = strstr(in.buf, marker);
	if (!mark) {
		rc = lace_error_set(EINVAL, "%s: no @lace-shuffle@ line", base_script);
		goto out;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < objs->nr && !rc; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", objdir, objs->v[i]);
		rc = object_sections(p.buf, objs->v[i], &it);
	}
	if (rc)
		goto out;
	/* Fisher-Yates on build index's stream of the seed (util/prng.h) */
	prng_init(&rng, seed, index);
	for (size_t i = it.n; i > 1; i--) {
		size_t k = (size_t)(prng_next(&rng) % i);
		struct item t = it.v[i - 1];

		it.v[i - 1] = it.v[k];
		it.v[k] = t;
	}
	strbuf_add(&out, in.buf, (size_t)(mark - in.buf));
	strbuf_addf(&out, "/* lace build --shuffle: seed %llu, build %u, %zu input sections */\n",
		    seed, index, it.n);
	for (size_t i = 0; i < it.n; i++) {
		unsigned pad = (unsigned)(prng_next(&rng) % 8) * 16;

		strbuf_addf(&out, "    . = ALIGN(16); . += %u;\n    */%s(%s)\n", pad, it.v[i].obj,
			    it.v[i].sec);
	}
	strbuf_addstr(&out, mark + strlen(marker));
	rc = fs_write_file(outpath, out.buf, out.len);
out:
	for (size_t i = 0; i < it.n; i++) {
		free(it.v[i].obj);
		free(it.v[i].sec);
	}
	free(it.v);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&p);
	return rc;
}
