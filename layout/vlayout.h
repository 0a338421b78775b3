/* Virtual layouts: other placements of one build's code, computed, not
 * linked (design.md, "Same execution"; issue 33).  A layout is where each
 * piece of code sits, and a replay carries a recorded execution to it by
 * piece and offset: no linker is needed to draw hundreds.
 *
 * The pieces ("units") and how they are laid out:
 *  - with the build's link map (layout/linkmap.h: `vmlinux.map` beside the
 *    ELF, the kernel's CONFIG_VMLINUX_MAP), a unit is an input section (an
 *    object's .text, .entry.text ...) with its real alignment, and a
 *    layout is made the way ld makes it: the output section's statements
 *    run again in order -- every input section aligned to its own
 *    alignment, every `. = ALIGN (n)` and symbol assignment where the
 *    script has it -- with the family's changes.  Laying the base out
 *    again reproduces its every address (checked when the base is built:
 *    a map that does not is refused);
 *  - without one, a unit is a sized function (with the bytes up to the
 *    next when the next one's alignment does not explain them: unsized
 *    code moves with the function before it), its alignment taken as the
 *    largest power of two dividing its address, at most 64 (a guess at
 *    the linker's), and a region that starts on a page boundary or more
 *    starts on the next such boundary, as a script's ALIGN puts it.
 *
 * Families (a draw is seeded and reproducible: draw k of seed s is the
 * same layout everywhere; draw 0 is the base):
 *  - function: the units that one statement places (map; ELF: one region)
 *    in another order, as another link order or patch would put them.
 *    The order is a sort by a hash of (seed, k, the unit's key), so two
 *    builds of the same code, laid out by the same draw, keep their
 *    common units in the same order relative to each other (pairing);
 *  - relink: pads at the pad points lace's relinks pad (`lace build
 *    --kernel --shuffle`: kernel.conf's shuffle_pad), UNIT * n bytes with
 *    n uniform in 0..MAX (the real relinks draw 1..MAX for the first pad,
 *    so that a relink is never baseline; here baseline, n = 0, is one of
 *    the family).  Given a relink's own pad vector, the layout is that
 *    relink (t_vlayout_relinks).  Map only. */
#ifndef LACE_LAYOUT_VLAYOUT_H
#define LACE_LAYOUT_VLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/image.h"
#include "layout/linkmap.h"
#include "util/strbuf.h"

struct vl_unit {
	char *key;          /* names the same code in another build */
	uint64_t addr, size, align;
	uint64_t own;       /* the code's own size: the input section's, or
			     * the function's (size: up to the next one) */
	long group;         /* units of one group may trade places; -1 none */
	bool inferred;      /* the alignment is a guess from the address */
	uint64_t order;     /* a hash its place in a draw is sorted by: the
			     * object's (map: an object's inputs move alike in
			     * every statement) or the owner function's */
};

enum vl_step_kind {
	VS_START,           /* an output section (map) or region (ELF) starts at v */
	VS_UNIT,            /* unit v */
	VS_ALIGN,           /* . = ALIGN (v) */
	VS_ADVANCE,         /* . += v */
	VS_SET,             /* . = v (an assignment lace cannot read: kept) */
	VS_PAD,             /* pad point v of the relink family */
};

struct vl_step {
	enum vl_step_kind kind;
	uint64_t v;
};

/* A pad point: where, and the pad's distribution: UNIT * n, n in 0..MAX.
 * where is "after:SECTION" (after the last input section named SECTION:
 * ".head.text") or "before:SYMBOL" (before the script assigns SYMBOL:
 * "__entry_text_start"). */
struct vl_pad {
	char *where;
	uint64_t unit, max;
};

struct vl_base {
	bool from_map;
	struct vl_unit *units;   /* base address order */
	size_t nunits;
	struct vl_step *steps;
	size_t nsteps;
	size_t ngroups;
	size_t inferred;         /* units whose alignment was inferred */
	struct vl_pad *pads;
	size_t npads;
	/* the symbols the script sets (map): names and base values */
	char **syms;
	uint64_t *sym_addr;
	size_t nsyms;
	/* the functions of the image, for maps and checks: each with its
	 * unit (or -1) */
	const struct lace_image *img;
	long *func_unit;
};

enum vl_family_kind { VL_FAMILY_FUNCTION, VL_FAMILY_RELINK };

struct vl_family {
	enum vl_family_kind kind;
	uint64_t seed;
	/* function family with a map: the input sections whose statements
	 * a draw reorders, comma-separated ("*" every one); NULL: every one
	 * but VL_PINNED's */
	const char *permute;
};

/* Statements whose order the build itself fixes: Linux links its head
 * objects first (startup_64 at _text is where the decompressor jumps;
 * ppc64's head_64.o holds the fixed-address exception vectors), so no
 * link order moves them. */
#define VL_PINNED ".head.text"

/* "function" or "relink"; 0 or -EINVAL with the message set. */
int vl_family_parse(const char *s, enum vl_family_kind *out);
/* The relink family's pad points: "POINT:UNIT:MAX[,...]" (POINT as in
 * struct vl_pad); 0 or -EINVAL with the message set. */
int vl_pads_parse(const char *spec, struct vl_pad **out, size_t *n);
void vl_pads_free(struct vl_pad *p, size_t n);

/* The units of img and the program that lays them out: from lm (a link
 * map of this very build: one that does not reproduce img is refused)
 * or, lm NULL, from img's functions.  pads (may be NULL): the relink
 * family's points, which must all be found in lm.  img must outlive b.
 * 0, or -errno with the message set. */
int vl_base_build(struct vl_base *b, const struct lace_image *img, const struct linkmap *lm,
		  const struct vl_pad *pads, size_t npads);
void vl_base_free(struct vl_base *b);

/* Draw k (0: the base) of family f into addr[nunits] and, when sym is
 * not NULL, the script's symbols into sym[nsyms]; with pads (the relink
 * family: one value per pad point, in bytes), that pad vector instead of
 * a drawn one.  0, or -EINVAL with the message set (a family the base
 * cannot draw: relink without a map or pad points). */
int vl_draw(const struct vl_base *b, const struct vl_family *f, unsigned k,
	    const uint64_t *pads, uint64_t *addr, uint64_t *sym);
/* The pad vector draw k of the relink family uses (npads values). */
void vl_draw_pads(const struct vl_base *b, uint64_t seed, unsigned k, uint64_t *pads);

/* Where an address of the base goes in a layout (its unit's move);
 * addresses outside every unit stay. */
uint64_t vl_carry(const struct vl_base *b, const uint64_t *addr, uint64_t a);

/* The units with code, at the base's addresses (addr NULL) or a
 * layout's, sorted by address: what `lace replay` carries executions by
 * (a piece is carried exactly when both builds give it the same own
 * size; its bytes up to extent move with it).  out holds nunits; returns
 * how many were written.  Keys point into b. */
struct vl_piece {
	const char *key;
	uint64_t addr, own, extent;
};
size_t vl_pieces(const struct vl_base *b, const uint64_t *addr, struct vl_piece *out);

/* The layout as a System.map (`nm -n`: "ADDR TYPE NAME", by address):
 * every symbol of the image, the script's where the layout sets them
 * (sym: vl_draw's; NULL: moved with their unit), the others inside a unit
 * moved with it. */
void vl_system_map(const struct vl_base *b, const uint64_t *addr, const uint64_t *sym,
		   struct strbuf *out);

/* An edit of a base: units taken out of their places and laid out, in
 * order, before the first unit of their group (as a linker script's
 * statements before the one that matched them would put them), each
 * after `. = ALIGN (align)` and a pad that puts the byte at its `offset`
 * on that boundary: with align 4096, a hot function of each unit at one
 * offset modulo 4 KiB, all in one L1i set (the positive control of a
 * verdict); with 2 MiB, each on a large page of its own.  A file of
 * lines "edit ALIGN" then "KEY OFFSET" (a unit's key, the offset of the
 * byte in it).  An edit applies to every draw the same way. */
struct vl_edit {
	uint64_t align;
	size_t n;
	char **keys;
	uint64_t *offsets;
};

/* 0 or -EINVAL with the message set ("PATH: line N: ..."). */
int vl_edit_load(const char *path, struct vl_edit *e);
void vl_edit_free(struct vl_edit *e);
/* A copy of src with the edit made (src stays as it is); 0, or -EINVAL
 * when a key is not a unit of src, or two units of the edit are not of
 * one group. */
int vl_base_edited(const struct vl_base *src, const struct vl_edit *e, struct vl_base *out);

/* The layout's order, for a linker script that makes it for real: per
 * group of units (a statement of the map), in order of address, one line
 * "GROUP<TAB>OBJECT<TAB>SECTION<TAB>0xADDRESS" (map), or
 * "GROUP<TAB>FUNCTION<TAB>-<TAB>0xADDRESS" (functions), after a
 * "# lace-vlayout-order 1" line. */
void vl_order(const struct vl_base *b, const uint64_t *addr, struct strbuf *out);

#endif
