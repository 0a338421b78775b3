/* DWARF (libdw): the declaring file:line of each function and how many
 * inlined instances its body holds.  One pass over every CU's DIE tree
 * (dwarf_nextcu), descending only into concrete subprograms: abstract
 * inline instances and types are stepped over whole, which keeps a 590 MB
 * vmlinux to seconds.  No per-function lookups. */
#include "layout/image_priv.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"

/* Relocatable files: libdw alone leaves their DWARF unrelocated (every
 * low_pc 0 plus a relocation), so they go through libdwfl, which applies the
 * relocations after laying the sections out its own way; addresses are then
 * moved section by section to where lace placed them. */
struct xlate {
	uint64_t start, end;
	int64_t delta;
};
static _Thread_local const struct xlate *xl;
static _Thread_local size_t nxl;

static uint64_t addr_map(uint64_t a)
{
	for (size_t i = 0; i < nxl; i++)
		if (a >= xl[i].start && a < xl[i].end)
			return a + (uint64_t)xl[i].delta;
	return nxl ? UINT64_MAX : a; /* outside every section: no function */
}

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
		lo = addr_map(lo);
		fi = image_func_at(img, lo);
		if (fi >= 0 && img->funcs[fi].addr == lo)
			func_set(img, fi, die, count_inlined(die, 0), true);
		return;
	}
	if (!dwarf_hasattr(die, DW_AT_ranges))
		return; /* a declaration or an abstract (inline-only) instance */
	/* hot/cold split functions: one DIE, a range per piece */
	bool have_entry = dwarf_entrypc(die, &entry) == 0;
	entry = addr_map(entry);
	unsigned inl = count_inlined(die, 0);
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool first = true;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		start = addr_map(start);
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

static void dwarf_walk(struct lace_image *img, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu))
			scope_walk(img, &cu, 0);
		off = next;
	}
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1; /* the DWARF is in the file itself or nowhere */
}

static int dwarf_load_relocatable(struct lace_image *img)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = no_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	struct image_priv *p = image_priv(img);
	Dwfl *dwfl = dwfl_begin(&cb);
	int fd = dup(p->fd);
	Dwarf_Addr bias;

	if (!dwfl || fd < 0) {
		if (fd >= 0)
			close(fd);
		dwfl_end(dwfl);
		image_warn(img, "DWARF unreadable: %s", dwfl_errmsg(-1));
		return 0;
	}
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "lace", img->path, fd);
	Dwarf *dw = NULL;
	Elf *e = NULL;
	if (mod && dwfl_report_end(dwfl, NULL, NULL) == 0) {
		dw = dwfl_module_getdwarf(mod, &bias);
		e = dwfl_module_getelf(mod, &bias);
	}
	if (!mod)
		close(fd);
	if (!dw || !e) {
		image_warn(img, "DWARF unreadable: %s", dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return 0;
	}
	struct xlate *t = xcalloc(p->nelf_sections, sizeof(*t));
	size_t n = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		size_t idx = elf_ndxscn(scn);
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || idx >= p->nelf_sections ||
		    p->elf_to_sec[idx] < 0 || n >= p->nelf_sections)
			continue;
		t[n].start = sh.sh_addr + bias;
		t[n].end = t[n].start + sh.sh_size;
		t[n].delta = (int64_t)(img->sections[p->elf_to_sec[idx]].addr - t[n].start);
		n++;
	}
	xl = t;
	nxl = n;
	dwarf_walk(img, dw);
	xl = NULL;
	nxl = 0;
	free(t);
	dwfl_end(dwfl);
	return 0;
}

int image_dwarf_load(struct lace_image *img)
{
	struct image_priv *p = image_priv(img);

	if (img->relocatable)
		return dwarf_load_relocatable(img);
	Dwarf *dw = dwarf_begin_elf(p->elf, DWARF_C_READ, NULL);
	if (!dw) {
		image_warn(img, "DWARF unreadable: %s", dwarf_errmsg(-1));
		return 0;
	}
	dwarf_walk(img, dw);
	dwarf_end(dw);
	return 0;
}
