/* image_load(): open an ELF with libelf and libbfd, check it is whole, then
 * fill the model step by step (sections, symbols, functions, regions,
 * geometry, jump tables, SDT probes, DWARF, branches). */
#include "layout/image_priv.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/disasm.h"
#include "layout/geometry.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"


#ifndef EF_PPC64_ABI
#define EF_PPC64_ABI 3
#endif

void image_warn(struct lace_image *img, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	size_t alloc = img->nwarnings;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(img->warnings, img->nwarnings + 1, alloc);
	img->warnings[img->nwarnings++] = strbuf_detach(&sb, NULL);
}

/* bfd reports some errors on stderr itself; lace prints one line of its
 * own, so keep bfd quiet. */
static void bfd_quiet(const char *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
}

static void libs_init_once(void)
{
	elf_version(EV_CURRENT);
	bfd_init();
	bfd_set_error_handler(bfd_quiet);
}

static void libs_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, libs_init_once);
}

static int file_open(struct lace_image *img, const char *path)
{
	struct image_priv *p = image_priv(img);
	struct stat st;

	if (stat(path, &st) < 0)
		return lace_error_set(errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return lace_error_set(EISDIR, "is a directory");
	if (!S_ISREG(st.st_mode))
		return lace_error_set(EINVAL, "not a regular file");
	if (st.st_size == 0)
		return lace_error_set(EINVAL, "empty file");
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		return lace_error_set(errno, "%s", strerror(errno));
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED)
		return lace_error_set(errno, "cannot map: %s", strerror(errno));
	p->map = m;
	p->map_len = (size_t)st.st_size;
	if (p->map_len < 4 || memcmp(p->map, ELFMAG, SELFMAG))
		return lace_error_set(EINVAL, "not an ELF file");
	return 0;
}

/* Everything later code reads must lie inside the file: check the headers
 * once here so a truncated file is an error, not a crash. */
static int elf_check(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	GElf_Ehdr eh;
	size_t shnum, shstrndx;

	size_t ehsize = p->map_len > EI_CLASS && p->map[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr)
										: sizeof(Elf64_Ehdr);
	if (p->map_len < ehsize)
		return lace_error_set(EINVAL, "truncated ELF: %zu bytes, shorter than the ELF header", p->map_len);
	p->elf = elf_begin(p->fd, ELF_C_READ_MMAP, NULL);
	if (!p->elf || elf_kind(p->elf) != ELF_K_ELF)
		return lace_error_set(EINVAL, "corrupt ELF header (%s)", elf_errmsg(-1));
	if (!gelf_getehdr(p->elf, &eh))
		return lace_error_set(EINVAL, "truncated or corrupt ELF header (%s)", elf_errmsg(-1));
	if (eh.e_type == ET_CORE)
		return lace_error_set(EINVAL, "a core dump, not an object or executable");
	/* the header's own count first: libelf reports a cut table as no table */
	if (eh.e_shoff > p->map_len ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > p->map_len)
		return lace_error_set(EINVAL, "truncated ELF: section headers lie past the end of the file");
	if (elf_getshdrnum(p->elf, &shnum) || elf_getshdrstrndx(p->elf, &shstrndx))
		return lace_error_set(EINVAL, "truncated or corrupt section headers (%s)", elf_errmsg(-1));
	if (!shnum)
		return lace_error_set(EINVAL, "no section headers");
	/* bfd only warns (on stderr, past its error handler) and names nothing */
	if (shstrndx >= shnum)
		return lace_error_set(EINVAL, "section name table index %zu is past the %zu section headers",
				      shstrndx, shnum);
	if (eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > p->map_len)
		return lace_error_set(EINVAL, "truncated ELF: section headers lie past the end of the file");
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(p->elf, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return lace_error_set(EINVAL, "corrupt section header %zu (%s)", i, elf_errmsg(-1));
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
			continue;
		if (sh.sh_offset > p->map_len || sh.sh_size > p->map_len - sh.sh_offset) {
			const char *n = elf_strptr(p->elf, shstrndx, sh.sh_name);
			return lace_error_set(EINVAL, "truncated ELF: section %s ends at %#llx, past the end of the file (%zu bytes)",
					      n ? n : "?", (unsigned long long)(sh.sh_offset + sh.sh_size), p->map_len);
		}
	}
	p->nelf_sections = shnum;
	p->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	p->elf64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	p->elf_machine = eh.e_machine;
	img->relocatable = eh.e_type == ET_REL;
	switch (eh.e_machine) {
	case EM_X86_64:
		img->arch = LACE_ARCH_X86_64;
		break;
	case EM_PPC64:
		img->arch = p->big_endian ? LACE_ARCH_PPC64 : LACE_ARCH_PPC64LE;
		/* e_flags ABI 0 (unspecified) is ELFv1 on big-endian, where
		 * old toolchains left it unset */
		p->ppc64_elfv1 = (eh.e_flags & EF_PPC64_ABI) == 1 ||
				 (p->big_endian && (eh.e_flags & EF_PPC64_ABI) == 0);
		break;
	default:
		img->arch = LACE_ARCH_OTHER;
		break;
	}
	return 0;
}

/* bfd 2.40 caches the warnings of bfd_check_format and prints them itself
 * straight to stderr (format.c print_warnmsg, past the error handler):
 * "BFD: warning: FILE has a corrupt ...".  Catch them in a memory stream
 * (the stderr variable is what bfd writes through; sanitizer reports go to
 * fd 2 directly and are not affected) and keep them as image warnings, so
 * lace's stderr stays `lace: ...` lines; on failure they are dropped and the
 * one-line error stands alone. */
static bool bfd_check_format_quietly(struct lace_image *img, bfd *abfd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *saved = stderr, *cap;

	fflush(stderr);
	cap = open_memstream(&text, &len);
	if (cap)
		stderr = cap;
	bool ok = bfd_check_format(abfd, bfd_object);
	if (!cap)
		return ok;
	stderr = saved;
	fclose(cap);
	/* first line "BFD: msg", then one message a line */
	char *line = text, *nl;
	for (; ok && line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "BFD: ", 5))
			line += 5;
		size_t pl = strlen(img->path); /* lace prints the path itself */
		if (!strncmp(line, img->path, pl) && !strncmp(line + pl, ": ", 2))
			line += pl + 2;
		if (*line)
			image_warn(img, "bfd: %s", line);
	}
	free(text);
	return ok;
}

static int bfd_open_image(struct lace_image *img, const char *path)
{
	struct image_priv *p = image_priv(img);
	int fd = dup(p->fd);

	if (fd < 0)
		return lace_error_set(errno, "%s", strerror(errno));
	p->abfd = bfd_fdopenr(path, NULL, fd);
	if (!p->abfd) {
		close(fd);
		return lace_error_set(EINVAL, "%s", bfd_errmsg(bfd_get_error()));
	}
	if (!bfd_check_format_quietly(img, p->abfd))
		return lace_error_set(EINVAL, "%s", bfd_errmsg(bfd_get_error()));
	img->arch_name = xstrdup(bfd_printable_name(p->abfd));
	return 0;
}

static bool has_section(const struct lace_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsections; i++)
		if (!strcmp(img->sections[i].name, name))
			return true;
	return false;
}

static void step(const struct lace_load_opts *opts, const char *what)
{
	if (opts && opts->progress)
		opts->progress(opts->progress_arg, what);
}

int image_load(const char *path, const struct lace_load_opts *opts, struct lace_image **out)
{
	struct lace_image *img = xcalloc(1, sizeof(*img));
	struct image_priv *p = xcalloc(1, sizeof(*p));
	struct lace_geometry def = LACE_GEOMETRY_DEFAULT;
	int err;

	*out = NULL;
	libs_init();
	lace_error_clear();
	img->priv = p;
	p->fd = -1;
	img->path = xstrdup(path);
	img->geom = opts ? opts->geom : def;
	if (!geom_valid(&img->geom)) {
		err = lace_error_set(EINVAL, "geometry must be powers of two with line <= page");
		goto fail;
	}
	if ((err = file_open(img, path)) || (err = elf_check(img)) || (err = bfd_open_image(img, path)))
		goto fail;
	step(opts, "symbols");
	if ((err = sections_load(img)) || (err = symbols_load(img)))
		goto fail;
	if (!img->has_symbols)
		image_warn(img, "no symbol table; sections only");
	functions_join_parents(img);
	regions_build(img);
	geometry_compute(img);
	if ((err = jump_tables_load(img)) || (err = sdt_probes_load(img)))
		goto fail;
	img->has_dwarf = has_section(img, ".debug_info");
	if (img->has_dwarf && (!opts || opts->dwarf) && img->has_symbols) {
		step(opts, "DWARF");
		if ((err = image_dwarf_load(img)))
			goto fail;
	}
	if (opts && opts->branches && img->has_symbols) {
		step(opts, "branches");
		if ((err = image_disassemble(img)))
			goto fail;
	}
	*out = img;
	return 0;
fail:
	image_free(img);
	return err < 0 ? err : -EINVAL;
}

void image_free(struct lace_image *img)
{
	if (!img)
		return;
	struct image_priv *p = image_priv(img);
	for (size_t i = 0; i < img->nsections; i++) {
		free(img->sections[i].name);
		if (p && p->reloc_data)
			free(p->reloc_data[i]);
	}
	for (size_t i = 0; i < img->nregions; i++) {
		free(img->regions[i].name);
		free(img->regions[i].start_symbol);
		free(img->regions[i].end_symbol);
	}
	for (size_t i = 0; i < img->nfuncs; i++) {
		struct lace_function *f = &img->funcs[i];
		free(f->name);
		free(f->base_name);
		free(f->file);
		free(f->src_file);
	}
	for (size_t i = 0; i < img->njumps; i++) {
		free(img->jumps[i].table);
		free(img->jumps[i].key_symbol);
	}
	for (size_t i = 0; i < img->nprobes; i++) {
		free(img->probes[i].provider);
		free(img->probes[i].name);
		free(img->probes[i].args);
	}
	for (size_t i = 0; i < img->nwarnings; i++)
		free(img->warnings[i]);
	free(img->warnings);
	free(img->sections);
	free(img->regions);
	free(img->funcs);
	free(img->branches);
	free(img->jumps);
	free(img->probes);
	free(img->text_syms);
	free(img->path);
	free(img->arch_name);
	if (p) {
		free(p->reloc_data);
		free(p->reloc_tried);
		free(p->elf_to_sec);
		free(p->syms);
		free(p->rmap);
		free(p->opd);
		free(p->bfd_syms);
		if (p->abfd)
			bfd_close(p->abfd);
		if (p->elf)
			elf_end(p->elf);
		if (p->map)
			munmap((void *)p->map, p->map_len);
		if (p->fd >= 0)
			close(p->fd);
		free(p);
	}
	free(img);
}

static int func_cmp_addr(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct lace_function *)elem)->addr;

	return a < b ? -1 : a > b;
}

int image_func_at(const struct lace_image *img, uint64_t addr)
{
	/* functions are sorted and disjoint: the last one starting at or
	 * before addr is the only candidate */
	size_t lo = bsearch_upper(&addr, img->funcs, img->nfuncs, sizeof(*img->funcs), func_cmp_addr);

	if (!lo)
		return -1;
	const struct lace_function *f = &img->funcs[lo - 1];
	return addr - f->addr < f->size ? (int)(lo - 1) : -1;
}
