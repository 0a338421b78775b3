/* The model of `lace build --kernel`: kernel/kernel.conf (INI, inih) —
 * where the source comes from, one [arch NAME] section per build
 * configuration, one [NAME VARIANT] section per placement variant. */
#ifndef LACE_VARIANTS_KERNEL_CONFIG_H
#define LACE_VARIANTS_KERNEL_CONFIG_H

#include <stddef.h>

#include "util/strvec.h"

struct kernel_arch {
	char *name;
	char *make;          /* make variables: "ARCH=x86_64", "CROSS_COMPILE=..." */
	char *base;          /* the config target it starts from ("tinyconfig") */
	char *config;        /* fragments merged on top, in order, relative to
			      * kernel/, separated by spaces */
	char *target;        /* make target ("bzImage", "vmlinux") */
	char *image;         /* the bootable image, relative to the build folder */
	char *shuffle_file;  /* --shuffle: the linker script source to pad */
	struct kernel_pad_point *pads; /* ... at these points, in file order */
	size_t npads, apads;
	/* --layout: the statements that place the main text's input
	 * sections, one per input section, go into layout_file before the
	 * line holding layout_anchor (the main text's own statement) */
	char *layout_file, *layout_anchor;
	char *virtual_pads;  /* the relink family's pad points in the link map
			      * (lace replay --pad-points) */
};

/* One place a relink pads (kernel.conf "shuffle_pad = ANCHOR UNIT MAX"):
 * after the first line of shuffle_file that holds anchor and is no
 * preprocessor line, unit * n bytes, n drawn from 0..max (1..max for the
 * first point, so that every relink moves the code after it). */
struct kernel_pad_point {
	char *anchor;
	unsigned long unit, max;
};

struct kernel_variant {
	char *arch;
	char *name;
	char *description;
	struct strvec patches; /* relative to kernel/ */
	unsigned long *pad;    /* --shuffle: bytes of padding at each of the
				* arch's pad points (NULL: not a relink) */
	size_t npad;
	unsigned long seed;    /* --shuffle: the seed and index it came from */
	unsigned long index;
	char *layout_lines;    /* --edit/--order: what goes before the arch's
				* layout_anchor (NULL: nothing) */
};

struct kernel_config {
	char *dir;              /* the kernel/ folder, a real path */
	char *package, *tarball, *srcdir;  /* [source] */
	struct kernel_arch *arches;
	size_t narches, aarches;
	struct kernel_variant *variants;
	size_t nvariants, avariants;
};

/* Read src/kernel/kernel.conf.  0 or -EINVAL ("kernel.conf:12: ...");
 * release c either way. */
int kernel_config_load(struct kernel_config *c, const char *src);
void kernel_config_release(struct kernel_config *c);

const struct kernel_arch *kernel_config_arch(const struct kernel_config *c, const char *name);
/* The variant VARIANT of arch, or NULL. */
struct kernel_variant *kernel_config_variant(const struct kernel_config *c, const char *arch,
					     const char *name);
/* Add K randomized relinks of arch's baseline ("baseline-shuffle-1".. K):
 * at each of the arch's pad points a padding drawn from relink i's stream
 * of seed (util/prng.h, as lace build --shuffle draws build i), so that the relinks move what the placement variants move (the
 * text after the head code, the entry text, the start of rodata and data)
 * to new cache-line and page offsets, as Mytkowicz et al.'s link-order and
 * environment changes do.  No two relinks get the same paddings: 0, or
 * -EINVAL when the arch has no pad points or fewer distinct paddings than
 * K. */
int kernel_config_add_shuffled(struct kernel_config *c, const char *arch, unsigned long k,
			       unsigned long seed);
/* The total padding of a relink, in bytes (0 for other variants). */
unsigned long kernel_variant_pad_total(const struct kernel_variant *v);
/* A variant of arch's baseline, "baseline-NAME", laid out by the file
 * at path (NAME: its name less .edit or .order): an edit (lace replay
 * --edit: units moved before the main text, each aligned and padded) or
 * an order (lace replay --write-maps' NAME.order: the main text's input
 * sections in a virtual layout's order), made for real by statements in
 * the arch's layout_file.  0, or -EINVAL with the message set. */
int kernel_config_add_layout(struct kernel_config *c, const char *arch, const char *path);

#endif
