/* Symbols from the ELF symbol table (libelf: bfd has no public st_size):
 * every named symbol for marker and key lookups, and the functions. */
#include "layout/image_priv.h"

#include <bfd.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

/* Boundary markers look like code symbols but have no size of their own:
 * __entry_text_start, __start___jump_table, _stext, _etext ... */
static bool is_marker_name(const char *n)
{
	size_t l = strlen(n);
#define ENDS(lit) (l >= sizeof(lit) - 1 && !strcmp(n + l - (sizeof(lit) - 1), lit))
	if (!strncmp(n, "__start_", 8) || !strncmp(n, "__stop_", 7))
		return true;
	if (ENDS("_text_start") || ENDS("_text_end"))
		return true;
#undef ENDS
	return !strcmp(n, "_stext") || !strcmp(n, "_etext") || !strcmp(n, "_text") ||
	       !strcmp(n, "_sinittext") || !strcmp(n, "_einittext");
}

struct cand {
	size_t sym;      /* index in p->syms */
	const char *file;
	int rank;        /* lower wins at the same address */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct image_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const struct image_symbol *cand_sym(const struct image_priv *p, const struct cand *c)
{
	return &p->syms[c->sym];
}

/* qsort_r: two images may load at once in threads (lace diff) */
static int cmp_cand(const void *a, const void *b, void *arg)
{
	const struct image_priv *p = arg;
	const struct cand *x = a, *y = b;
	const struct image_symbol *sx = cand_sym(p, x), *sy = cand_sym(p, y);
	if (sx->addr != sy->addr)
		return sx->addr < sy->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (sx->size != sy->size)
		return sx->size > sy->size ? -1 : 1;
	return strcmp(sx->name, sy->name);
}

static int rank_of(const struct image_symbol *s)
{
	int r = 0;
	if (s->type == STT_NOTYPE)
		r += 4; /* an asm label with a size loses to a real function */
	if (s->bind == STB_LOCAL)
		r += 2; /* of aliases, report the global name */
	if (s->name[0] == '_' || s->name[0] == '.')
		r += 1; /* memcpy before __memcpy; ppc64 ELFv1 foo before .foo */
	return r;
}

static int cmp_ordinal(const void *a, const void *b)
{
	const struct lace_function *x = *(struct lace_function *const *)a;
	const struct lace_function *y = *(struct lace_function *const *)b;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The symbol table to read: .symtab, else (a stripped shared library
 * still has its exported functions there; nm, and so bloat-o-meter, lists
 * none of them) .dynsym, with its SHT_SYMTAB_SHNDX extension if any.
 * NULL when the file has neither. */
static Elf_Scn *symtab_find(Elf *elf, GElf_Shdr *symsh, bool *dynamic, Elf_Data **xdata)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *dynscn = NULL;
	GElf_Shdr dynsh;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			*symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynscn = scn;
			dynsh = sh;
		}
	}
	*dynamic = !symscn && dynscn;
	if (*dynamic) {
		symscn = dynscn;
		*symsh = dynsh;
	}
	*xdata = NULL;
	if (!symscn)
		return NULL;
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == elf_ndxscn(symscn))
			*xdata = elf_getdata(scn, NULL);
	}
	return symscn;
}

/* Every named, defined symbol of the table into p->syms (files[] gets the
 * STT_FILE each local follows), and nm's t/T list into img->text_syms. */
static void symtab_read(struct lace_image *img, Elf_Data *data, Elf_Data *xdata,
			const GElf_Shdr *symsh, bool dynamic, const char **files)
{
	struct image_priv *p = image_priv(img);
	size_t n = symsh->sh_size / symsh->sh_entsize;
	const char *cur_file = NULL;
	size_t text_alloc = 0;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
			continue;
		unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		const char *name = elf_strptr(p->elf, symsh->sh_link, sym.st_name);
		if (type == STT_FILE) {
			cur_file = name && *name ? name : NULL;
			continue;
		}
		if (!name || !*name || type == STT_SECTION || sym.st_shndx == SHN_UNDEF)
			continue;
		if (type == STT_TLS || sym.st_shndx == SHN_COMMON)
			continue;
		size_t shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		int sec = -1;
		uint64_t addr = sym.st_value;
		if (sym.st_shndx != SHN_ABS && shndx < p->nelf_sections)
			sec = p->elf_to_sec[shndx];
		if (img->relocatable) {
			if (sec < 0)
				continue; /* absolute or unknown: no place in our layout */
			addr += img->sections[sec].addr;
		}
		/* ppc64 ELFv1: foo names its descriptor; the function is the
		 * code the descriptor points at (objdump's synthetic .foo).
		 * nm still calls foo data (D), and so does the t/T list. */
		int nm_sec = sec;
		if (p->ppc64_elfv1 && type == STT_FUNC && sec >= 0) {
			uint64_t code;
			int csec;
			if (ppc64_opd_entry(img, shndx, sym.st_value, &code, &csec)) {
				addr = code;
				sec = csec;
			}
		}
		/* nm's t/T: sized, defined in a code section, global or local
		 * (weak is W, ifunc i, unique u, absolute A) */
		if (!dynamic && sym.st_size && nm_sec >= 0 && img->sections[nm_sec].code && sym.st_shndx != SHN_ABS &&
		    (bind == STB_GLOBAL || bind == STB_LOCAL) && type != STT_GNU_IFUNC) {
			ALLOC_GROW(img->text_syms, img->ntext_syms + 1, text_alloc);
			img->text_syms[img->ntext_syms++] = (struct lace_text_symbol){ name, sym.st_size };
		}
		struct image_symbol *s = &p->syms[p->nsyms];
		s->name = name;
		s->addr = addr;
		s->size = sym.st_size;
		s->type = (unsigned char)type;
		s->bind = (unsigned char)bind;
		s->section = sec;
		/* STT_FILE names the file of the locals after it; globals are
		 * listed after every local */
		files[p->nsyms] = bind == STB_LOCAL ? cur_file : NULL;
		p->nsyms++;
	}
}

/* Sort the symbols by address, carrying their file along, and place the
 * ones without a section by address. */
static void syms_sort(struct lace_image *img, const char **files)
{
	struct image_priv *p = image_priv(img);
	struct { struct image_symbol s; const char *f; } *tmp = xmalloc(p->nsyms * sizeof(*tmp));

	for (size_t i = 0; i < p->nsyms; i++) {
		tmp[i].s = p->syms[i];
		tmp[i].f = files[i];
	}
	qsort(tmp, p->nsyms, sizeof(*tmp), cmp_sym); /* s is the first member */
	for (size_t i = 0; i < p->nsyms; i++) {
		p->syms[i] = tmp[i].s;
		files[i] = tmp[i].f;
	}
	free(tmp);
	for (size_t i = 0; i < p->nsyms; i++) {
		struct image_symbol *s = &p->syms[i];
		if (s->section < 0)
			s->section = image_section_at(img, s->addr);
	}
}

/* A separate debug file (objcopy --only-keep-debug, Debian -dbgsym):
 * every code section is NOBITS, yet its symbols are exact; there, and
 * only there, a function needs no bytes. */
static bool image_debug_only(const struct lace_image *img)
{
	bool debug_only = false;

	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *sec = &img->sections[i];
		if (!sec->code || !sec->alloc || !sec->size)
			continue;
		if (sec->flags & SEC_HAS_CONTENTS)
			return false;
		debug_only = true;
	}
	return debug_only;
}

/* The functions: sized code symbols that are not markers, one per address
 * (the best-ranked alias), none inside another. */
static void funcs_build(struct lace_image *img, const char **files, bool debug_only)
{
	struct image_priv *p = image_priv(img);
	struct cand *c = xmalloc(p->nsyms * sizeof(*c));
	size_t nc = 0;

	for (size_t i = 0; i < p->nsyms; i++) {
		const struct image_symbol *s = &p->syms[i];
		if (!s->size || s->section < 0 || !img->sections[s->section].code)
			continue;
		/* a size past its section's end, or code with no bytes in the
		 * file (NOBITS, any size), is corrupt: not a function to place;
		 * later steps enumerate a function's lines and pages */
		const struct lace_section *sec = &img->sections[s->section];
		if ((!(sec->flags & SEC_HAS_CONTENTS) && !debug_only) || s->addr < sec->addr ||
		    s->size > sec->addr + sec->size - s->addr)
			continue;
		if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC && s->type != STT_NOTYPE)
			continue;
		if (is_marker_name(s->name))
			continue;
		c[nc].sym = i;
		c[nc].file = files[i];
		c[nc].rank = rank_of(s);
		nc++;
	}
	qsort_r(c, nc, sizeof(*c), cmp_cand, p);
	img->funcs = xcalloc(nc, sizeof(*img->funcs));
	uint64_t prev_end = 0;
	int prev_sec = -1;
	for (size_t i = 0; i < nc; i++) {
		const struct image_symbol *s = cand_sym(p, &c[i]);
		/* one function per address (aliases share it), none inside
		 * another: the array stays sorted and disjoint for lookups */
		if (img->nfuncs && s->section == prev_sec && s->addr < prev_end)
			continue;
		struct lace_function *f = &img->funcs[img->nfuncs++];
		f->name = xstrdup(s->name);
		f->addr = s->addr;
		f->size = s->size;
		f->section = s->section;
		f->region = -1;
		f->global = s->bind != STB_LOCAL;
		f->file = c[i].file ? xstrdup(c[i].file) : NULL;
		f->parent = -1;
		prev_end = s->addr + s->size;
		prev_sec = s->section;
	}
	free(c);
}

/* n-th local of the same name in the same file, in address order: how
 * lace diff tells two `static int helper()` apart. */
static void funcs_number_statics(struct lace_image *img)
{
	struct lace_function **v = xmalloc(img->nfuncs * sizeof(*v));

	for (size_t i = 0; i < img->nfuncs; i++)
		v[i] = &img->funcs[i];
	qsort(v, img->nfuncs, sizeof(*v), cmp_ordinal);
	for (size_t i = 0; i < img->nfuncs; i++) {
		bool same = i && !strcmp(v[i - 1]->name, v[i]->name) &&
			    !strcmp(v[i - 1]->file ? v[i - 1]->file : "", v[i]->file ? v[i]->file : "");
		v[i]->static_ordinal = same ? v[i - 1]->static_ordinal + 1 : 0;
	}
	free(v);
}

int symbols_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	Elf_Data *xdata;
	GElf_Shdr symsh;
	bool dynamic;
	Elf_Scn *symscn = symtab_find(p->elf, &symsh, &dynamic, &xdata);

	if (!symscn)
		return 0;
	if (p->ppc64_elfv1)
		ppc64_opd_load(img);
	Elf_Data *data = elf_getdata(symscn, NULL);
	if (!data || !symsh.sh_entsize)
		return lace_error_set(EINVAL, "unreadable symbol table: %s", elf_errmsg(-1));
	size_t n = symsh.sh_size / symsh.sh_entsize;
	const char **files = xcalloc(n, sizeof(*files));

	img->has_symbols = true;
	p->syms = xcalloc(n, sizeof(*p->syms));
	symtab_read(img, data, xdata, &symsh, dynamic, files);
	syms_sort(img, files);
	bool debug_only = image_debug_only(img);
	if (debug_only)
		image_warn(img, "code sections have no contents (a separate debug file, objcopy "
			   "--only-keep-debug): functions from the symbol table; no branches or jump sites");
	funcs_build(img, files, debug_only);
	free(files);
	funcs_number_statics(img);
	/* .dynsym of a stripped program often defines no function at all:
	 * then it is a file without symbols, as before */
	if (dynamic && img->nfuncs)
		image_warn(img, "no symbol table (stripped): functions from .dynsym, exported ones only");
	else if (dynamic)
		img->has_symbols = false;
	return 0;
}

const struct image_symbol *image_symbol_at(const struct lace_image *img, uint64_t addr)
{
	const struct image_priv *p = image_priv(img);
	size_t lo = image_syms_lower(p, addr);
	const struct image_symbol *best = NULL;
	for (size_t i = lo; i < p->nsyms && p->syms[i].addr == addr; i++) {
		const struct image_symbol *s = &p->syms[i];
		if (!best || (is_marker_name(best->name) && !is_marker_name(s->name)) ||
		    (best->bind == STB_LOCAL && s->bind != STB_LOCAL && !is_marker_name(s->name)))
			best = s;
	}
	return best;
}

const struct image_symbol *image_symbol_find(const struct lace_image *img, const char *name)
{
	const struct image_priv *p = image_priv(img);
	for (size_t i = 0; i < p->nsyms; i++)
		if (!strcmp(p->syms[i].name, name))
			return &p->syms[i];
	return NULL;
}
