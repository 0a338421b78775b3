/* ppc64 ELFv1: a function symbol (foo) names a 24-byte descriptor in the
 * .opd data section, not code; the descriptor's first doubleword is the
 * code entry.  In a linked file that word is in .opd's bytes; in a
 * relocatable object it is 0 and an R_PPC64_ADDR64 relocation in .rela.opd
 * (usually against .text's section symbol, plus an addend) gives it, as
 * binutils' ppc64_elf_get_synthetic_symtab reads it for objdump.  GCC's
 * `.size foo, .-.L.foo` makes st_size the code's size, so the descriptor
 * symbol moved to its entry is the whole function. */
#include "layout/image_priv.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#ifndef R_PPC64_ADDR64
#define R_PPC64_ADDR64 38
#endif

static uint64_t rd64(const uint8_t *b, bool be)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[be ? i : 7 - i] << (8 * (be ? 7 - i : i));
	return v;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct opd_entry *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_entry_key(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, o = ((const struct opd_entry *)elem)->off;
	return k < o ? -1 : k > o;
}

/* ET_REL: one entry per R_PPC64_ADDR64 of .rela.opd, offset -> entry */
static void opd_read_relocations(struct lace_image *img, size_t opd_index)
{
	struct image_priv *p = image_priv(img);
	Elf_Scn *scn = NULL;
	size_t alloc = 0;

	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh, symsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != opd_index)
			continue;
		Elf_Scn *symscn = elf_getscn(p->elf, sh.sh_link);
		Elf_Data *rd = elf_getdata(scn, NULL), *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!rd || !sd || !gelf_getshdr(symscn, &symsh) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;
			if (!gelf_getrela(rd, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_PPC64_ADDR64 ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
				continue;
			/* the target's section, where lace placed it */
			if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
			    s.st_shndx >= p->nelf_sections || p->elf_to_sec[s.st_shndx] < 0)
				continue;
			int sec = p->elf_to_sec[s.st_shndx];
			ALLOC_GROW(p->opd, p->nopd + 1, alloc);
			p->opd[p->nopd++] = (struct opd_entry){
				r.r_offset, img->sections[sec].addr + s.st_value + (uint64_t)r.r_addend, sec };
		}
	}
	qsort(p->opd, p->nopd, sizeof(*p->opd), cmp_entry);
}

void ppc64_opd_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	p->opd_index = 0;
	if (elf_getshdrstrndx(p->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(p->elf, shstrndx, sh.sh_name)) && !strcmp(n, ".opd")) {
			p->opd_index = elf_ndxscn(scn);
			p->opd_sh = sh;
			break;
		}
	}
	if (!p->opd_index)
		return;
	if (img->relocatable)
		opd_read_relocations(img, p->opd_index);
	else if (p->opd_sh.sh_type != SHT_PROGBITS)
		image_warn(img, "ppc64 ELFv1: .opd has no contents (a separate debug file?): "
			   "function descriptors cannot be followed to their code");
}

bool ppc64_opd_entry(struct lace_image *img, size_t shndx, uint64_t value, uint64_t *code, int *sec)
{
	struct image_priv *p = image_priv(img);
	const GElf_Shdr *sh = &p->opd_sh;

	if (!p->opd_index || shndx != p->opd_index)
		return false;
	if (img->relocatable) {
		size_t i = bsearch_lower(&value, p->opd, p->nopd, sizeof(*p->opd), cmp_entry_key);
		if (i == p->nopd || p->opd[i].off != value)
			return false;
		*code = p->opd[i].code;
		*sec = p->opd[i].sec;
		return true;
	}
	/* linked: st_value is the descriptor's address inside .opd */
	if (sh->sh_type != SHT_PROGBITS || value < sh->sh_addr || value - sh->sh_addr > sh->sh_size ||
	    sh->sh_size - (value - sh->sh_addr) < 8 || sh->sh_offset > p->map_len ||
	    sh->sh_size > p->map_len - sh->sh_offset)
		return false;
	*code = rd64(p->map + sh->sh_offset + (value - sh->sh_addr), p->big_endian);
	*sec = image_section_at(img, *code);
	return *sec >= 0;
}
