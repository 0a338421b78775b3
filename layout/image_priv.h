/* Loader internals shared by the layout/ files that build a lace_image.
 * Not for other modules: they use layout/image.h. */
#ifndef LACE_LAYOUT_IMAGE_PRIV_H
#define LACE_LAYOUT_IMAGE_PRIV_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/image.h"
#include "util/bsearch.h"

struct bfd;
struct bfd_symbol;

/* Every named symbol (not only functions): markers, keys, objects.  Sorted by
 * address, so marker lookups and key-symbol names are binary searches. */
struct image_symbol {
	const char *name;  /* points into the ELF string table (lives with elf) */
	uint64_t addr;
	uint64_t size;
	unsigned char type, bind;
	int section;       /* index into img->sections, -1 when none */
};

struct image_priv {
	struct bfd *abfd;
	struct bfd_symbol **bfd_syms; /* canonical symbols, for ET_REL relocation */
	Elf *elf;
	int fd;
	const uint8_t *map;     /* the whole file, read-only */
	size_t map_len;
	bool big_endian;
	bool elf64;
	unsigned elf_machine;
	uint8_t **reloc_data;   /* per section, lazily relocated contents (ET_REL) */
	bool *reloc_tried;
	int *elf_to_sec;        /* ELF section index -> img->sections index or -1 */
	size_t nelf_sections;
	struct image_symbol *syms; size_t nsyms;
	/* ppc64 ELFv1 (ppc64_opd.c): function symbols name .opd descriptors */
	bool ppc64_elfv1;
	size_t opd_index;       /* ELF index of .opd, 0 when none */
	GElf_Shdr opd_sh;
	struct opd_entry { uint64_t off, code; int sec; } *opd; /* ET_REL, by off */
	size_t nopd;
	/* disjoint address intervals, sorted, each with its innermost region */
	struct region_span { uint64_t start, end; int region; } *rmap;
	size_t nrmap;
};

static inline struct image_priv *image_priv(const struct lace_image *img)
{
	return (struct image_priv *)img->priv;
}

/* bsearch_cmp_fn (util/bsearch.h) of an address key against a symbol */
static inline int image_symbol_cmp_addr(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct image_symbol *)elem)->addr;

	return a < b ? -1 : a > b;
}

/* Index of the first symbol at or after addr (upper: after addr), or nsyms. */
static inline size_t image_syms_lower(const struct image_priv *p, uint64_t addr)
{
	return bsearch_lower(&addr, p->syms, p->nsyms, sizeof(*p->syms), image_symbol_cmp_addr);
}

static inline size_t image_syms_upper(const struct image_priv *p, uint64_t addr)
{
	return bsearch_upper(&addr, p->syms, p->nsyms, sizeof(*p->syms), image_symbol_cmp_addr);
}

/* Each step fills part of the model; they run in this order. */
int sections_load(struct lace_image *img);          /* sections.c (libbfd + libelf) */
int symbols_load(struct lace_image *img);           /* symbols.c (libelf): syms, funcs */
void functions_join_parents(struct lace_image *img);/* names.c */
void regions_build(struct lace_image *img);         /* regions.c */
void geometry_compute(struct lace_image *img);      /* geometry.c */
int jump_tables_load(struct lace_image *img);       /* jumptable.c */
int sdt_probes_load(struct lace_image *img);        /* sdt.c */
int image_dwarf_load(struct lace_image *img);       /* dwarf.c (libdw) */
/* ppc64_opd.c: find .opd (and for ET_REL read .rela.opd), once, before the
 * symbols; then the code entry and its section of the descriptor a symbol
 * (ELF section shndx, st_value) names, or false when it names none. */
void ppc64_opd_load(struct lace_image *img);
bool ppc64_opd_entry(struct lace_image *img, size_t shndx, uint64_t value, uint64_t *code, int *sec);

void image_warn(struct lace_image *img, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Section of img holding addr (allocated sections only), or -1. */
int image_section_at(const struct lace_image *img, uint64_t addr);
/* Symbol exactly at addr, preferring a global and non-marker name, or NULL. */
const struct image_symbol *image_symbol_at(const struct lace_image *img, uint64_t addr);
/* Symbol by name (first one), or NULL; linear, for the few marker lookups. */
const struct image_symbol *image_symbol_find(const struct lace_image *img, const char *name);

#endif
