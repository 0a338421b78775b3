/* Sections: names, flags and alignment from libbfd, matched to their ELF
 * section headers (libelf) so symbols can name them by index.  Relocatable
 * inputs get distinct addresses here, before anything reads contents. */
#include "layout/image_priv.h"

#include <bfd.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

/* bfd creates its sections in ELF header order (skipping symbol, string
 * and relocation tables), so a forward walk pairs them; the offset check
 * keeps same-named sections (COMDAT groups) apart. */
static int elf_index_of(struct image_priv *p, asection *s, size_t *from)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = pass ? 1 : *from; i < p->nelf_sections; i++) {
			Elf_Scn *scn = elf_getscn(p->elf, i);
			GElf_Shdr sh;
			size_t shstrndx;
			if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(p->elf, &shstrndx))
				continue;
			const char *n = elf_strptr(p->elf, shstrndx, sh.sh_name);
			if (!n || strcmp(n, s->name))
				continue;
			if (sh.sh_type != SHT_NOBITS && sh.sh_size && (file_ptr)sh.sh_offset != s->filepos)
				continue;
			*from = i + 1;
			return (int)i;
		}
	}
	return -1;
}

int sections_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);
	bfd *abfd = p->abfd;
	size_t n = bfd_count_sections(abfd), from = 1, alloc = 0;
	uint64_t cursor = 0;

	img->sections = xcalloc(n, sizeof(*img->sections));
	p->elf_to_sec = xmalloc(p->nelf_sections * sizeof(int));
	for (size_t i = 0; i < p->nelf_sections; i++)
		p->elf_to_sec[i] = -1;
	for (asection *s = abfd->sections; s; s = s->next) {
		struct lace_section *sec = &img->sections[img->nsections];
		flagword fl = bfd_section_flags(s);

		sec->name = xstrdup(s->name);
		sec->size = bfd_section_size(s);
		sec->flags = fl;
		sec->align_pow = s->alignment_power;
		sec->code = fl & SEC_CODE;
		sec->alloc = fl & SEC_ALLOC;
		sec->file_offset = (fl & SEC_HAS_CONTENTS) ? (uint64_t)s->filepos : 0;
		if (img->relocatable && sec->alloc) {
			/* lay allocated sections out one after another, each at its
			 * own alignment; empty ones still get a distinct address */
			uint64_t a = (uint64_t)1 << (sec->align_pow < 32 ? sec->align_pow : 32);
			cursor = (cursor + a - 1) & ~(a - 1);
			bfd_set_section_vma(s, cursor);
			cursor += sec->size ? sec->size : 1;
		}
		sec->addr = bfd_section_vma(s);
		sec->elf_index = elf_index_of(p, s, &from);
		if (sec->elf_index >= 0)
			p->elf_to_sec[sec->elf_index] = (int)img->nsections;
		if (sec->alloc)
			alloc++;
		img->nsections++;
	}
	p->reloc_data = xcalloc(img->nsections, sizeof(*p->reloc_data));
	p->reloc_tried = xcalloc(img->nsections, sizeof(*p->reloc_tried));
	(void)alloc;
	return 0;
}

int image_section_at(const struct lace_image *img, uint64_t addr)
{
	int best = -1;
	for (size_t i = 0; i < img->nsections; i++) {
		const struct lace_section *s = &img->sections[i];
		if (!s->alloc || addr < s->addr || addr - s->addr >= s->size)
			continue;
		/* prefer code over data when (broken) headers overlap */
		if (best < 0 || (s->code && !img->sections[best].code))
			best = (int)i;
	}
	return best;
}

static asection *bfd_section_nth(bfd *abfd, int idx)
{
	for (asection *s = abfd->sections; s; s = s->next)
		if (s->index == (unsigned)idx)
			return s;
	return NULL;
}

const uint8_t *image_section_data(struct lace_image *img, int idx, size_t *len)
{
	struct image_priv *p = image_priv(img);
	const struct lace_section *sec;

	*len = 0;
	if (!p || idx < 0 || (size_t)idx >= img->nsections)
		return NULL;
	sec = &img->sections[idx];
	if (!(sec->flags & SEC_HAS_CONTENTS) || !sec->size)
		return NULL;
	if (!img->relocatable || !(sec->flags & SEC_RELOC)) {
		/* linked files (and unrelocated sections): the bytes as mapped;
		 * the loader checked every section lies inside the file */
		if (sec->file_offset > p->map_len || sec->size > p->map_len - sec->file_offset)
			return NULL;
		*len = sec->size;
		return p->map + sec->file_offset;
	}
	if (!p->reloc_tried[idx]) {
		asection *s = bfd_section_nth(p->abfd, idx);
		p->reloc_tried[idx] = true;
		if (s) {
			if (!p->bfd_syms) {
				long n = bfd_get_symtab_upper_bound(p->abfd);
				if (n > 0) {
					p->bfd_syms = xmalloc((size_t)n);
					if (bfd_canonicalize_symtab(p->abfd, p->bfd_syms) < 0) {
						free(p->bfd_syms);
						p->bfd_syms = NULL;
					}
				}
			}
			p->reloc_data[idx] = bfd_simple_get_relocated_section_contents(p->abfd, s, NULL,
										       p->bfd_syms);
		}
	}
	if (!p->reloc_data[idx])
		return NULL;
	*len = sec->size;
	return p->reloc_data[idx];
}
