/* DWARF (libdw): the declaring file:line of each function and how many
 * inlined instances its body holds.  One pass over every CU's DIE tree
 * (dwarf_nextcu), descending only into concrete subprograms: abstract
 * inline instances and types are stepped over whole, which keeps a 590 MB
 * vmlinux to seconds.  No per-function lookups. */
#include "layout/image_priv.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

/* Inlined instances under die: inlined subroutines, at any depth, through
 * lexical blocks and other inlined subroutines. */
static unsigned count_inlined(Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	unsigned n = 0;

	if (depth > 64 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_inlined_subroutine)
			n += 1 + count_inlined(&c, depth + 1);
		else if (tag == DW_TAG_lexical_block)
			n += count_inlined(&c, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

static void func_set(struct lace_image *img, int fi, Dwarf_Die *die, unsigned inlined, bool entry)
{
	struct lace_function *f = &img->funcs[fi];
	if (f->src_file && !entry)
		return;
	const char *file = dwarf_decl_file(die);
	int line = 0;
	if (!file)
		return; /* assembler DWARF: ranges but no declaration */
	dwarf_decl_line(die, &line);
	free(f->src_file);
	f->src_file = xstrdup(file);
	f->src_line = line > 0 ? (unsigned)line : 0;
	if (entry)
		f->inlined = inlined;
}

static void subprogram_read(struct lace_image *img, Dwarf_Die *die)
{
	Dwarf_Addr lo, entry;
	int fi;

	if (dwarf_lowpc(die, &lo) == 0) {
		fi = image_func_at(img, lo);
		if (fi >= 0 && img->funcs[fi].addr == lo)
			func_set(img, fi, die, count_inlined(die, 0), true);
		return;
	}
	if (!dwarf_hasattr(die, DW_AT_ranges))
		return; /* a declaration or an abstract (inline-only) instance */
	/* hot/cold split functions: one DIE, a range per piece */
	bool have_entry = dwarf_entrypc(die, &entry) == 0;
	unsigned inl = count_inlined(die, 0);
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool first = true;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		fi = image_func_at(img, start);
		if (fi < 0 || img->funcs[fi].addr != start)
			continue;
		bool is_entry = have_entry ? start == entry : first;
		func_set(img, fi, die, inl, is_entry);
		first = false;
	}
}

static void scope_walk(struct lace_image *img, Dwarf_Die *scope, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(scope, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			subprogram_read(img, &c);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
			scope_walk(img, &c, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

int dwarf_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);

	if (img->relocatable) {
		/* libdw leaves .o/.ko DWARF unrelocated: every address would be
		 * section-relative and match the wrong function */
		image_warn(img, "DWARF of relocatable files is not read (addresses are unrelocated)");
		return 0;
	}
	Dwarf *dw = dwarf_begin_elf(p->elf, DWARF_C_READ, NULL);
	if (!dw) {
		image_warn(img, "DWARF unreadable: %s", dwarf_errmsg(-1));
		return 0;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			scope_walk(img, &cu, 0);
		off = next;
	}
	dwarf_end(dw);
	return 0;
}
