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
	char *shuffle_after; /* ... after the line holding this text */
};

struct kernel_variant {
	char *arch;
	char *name;
	char *description;
	struct strvec patches; /* relative to kernel/ */
	unsigned long pad;     /* --shuffle: bytes of padding after shuffle_after */
	unsigned long seed;    /* --shuffle: the seed and index it came from */
	unsigned long index;
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
 * padding of a multiple of 16 bytes below 4 KiB drawn from relink i's
 * stream of seed (util/prng.h, as lace build --shuffle draws build i),
 * so every function after the head code moves to a new cache-line and page
 * offset, as Mytkowicz et al.'s link-order and environment changes do. */
void kernel_config_add_shuffled(struct kernel_config *c, const char *arch, unsigned long k,
				unsigned long seed);

#endif
