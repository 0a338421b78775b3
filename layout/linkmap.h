/* A GNU ld link map (`ld -Map`, the kernel's CONFIG_VMLINUX_MAP
 * vmlinux.map): each output section's statements in the order the linker
 * ran them -- the input sections it placed (file, address, size), the
 * assignments to the location counter (`. = ALIGN (0x200000)`, a pad
 * `. = (. + 0xaf0)`) and the symbols it set -- which is what lace needs to
 * lay the same input sections out again the way a linker would
 * (layout/vlayout.h).  The map does not say how each input section is
 * aligned: that comes from the objects (sh_addralign of the section),
 * read when they are where the map says (relative to the map's folder or
 * an object root), or from a PATH.align file that `lace build kernel`
 * writes beside the map while the objects are there
 * (linkmap_write_align()).  An input section whose alignment is not known
 * keeps align 0.
 *
 * The map is text: a line that is not understood is skipped, never an
 * error, except that a file with no "Linker script and memory map" part
 * is not a link map. */
#ifndef LACE_LAYOUT_LINKMAP_H
#define LACE_LAYOUT_LINKMAP_H

#include <stddef.h>
#include <stdint.h>

enum linkmap_kind {
	LM_STATEMENT,   /* an input-section statement: `*(.text .text.fixup)` */
	LM_INPUT,       /* an input section the linker placed */
	LM_ALIGN,       /* . = ALIGN (size) */
	LM_ADVANCE,     /* . = (. + size) */
	LM_SET,         /* . = something else: the value it gave (addr) */
	LM_SYMBOL,      /* NAME = . (or any assignment to a symbol) */
};

struct linkmap_item {
	enum linkmap_kind kind;
	char *text;       /* LM_INPUT: the section's name; LM_STATEMENT: the
			   * statement as printed; LM_SYMBOL: the symbol */
	char *object;     /* LM_INPUT: the file as the map names it */
	uint64_t addr;    /* where it went (LM_SET, LM_SYMBOL: the value) */
	uint64_t size;    /* LM_INPUT: bytes; LM_ALIGN: the alignment;
			   * LM_ADVANCE: bytes */
	uint64_t align;   /* LM_INPUT: its alignment, 0 = not known */
	long group;       /* LM_INPUT: the LM_STATEMENT item that matched it */
};

struct linkmap_osec {
	char *name;
	uint64_t addr, size;
	size_t first, n;  /* its items */
};

struct linkmap {
	struct linkmap_osec *osecs;
	size_t nosecs;
	struct linkmap_item *items;
	size_t nitems;
	size_t unaligned;   /* input sections (of non-zero size) without a known alignment */
};

/* Parse the map at path; then the alignments: PATH.align when it is
 * there, else the objects, relative to objroot (NULL: the map's folder).
 * 0, or -errno with "PATH: reason" set. */
int linkmap_load(const char *path, const char *objroot, struct linkmap *lm);
void linkmap_free(struct linkmap *lm);
/* The output section of that name, or -1. */
long linkmap_osec(const struct linkmap *lm, const char *name);
/* The alignments of every input section, one "object<TAB>section<TAB>size
 * <TAB>align" line each, for PATH.align; 0 or -errno with the message. */
int linkmap_write_align(const struct linkmap *lm, const char *path);

#endif
