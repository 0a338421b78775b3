/* Functions of one build as `lace replay` carries addresses between
 * builds: a key that names the same function in another build of the same
 * code (the symbol name; for a local, name@file#ordinal), its address and
 * size, sorted by address (the largest first at one address). */
#ifndef LACE_LAYOUT_SYMKEYS_H
#define LACE_LAYOUT_SYMKEYS_H

#include <stddef.h>
#include <stdint.h>

struct symkey {
	char *key;
	char *name;
	uint64_t addr, size;
};

struct symkeys {
	struct symkey *v;
	size_t n;
	char build_id[81];   /* lowercase hex, "" when the ELF has none */
};

/* 0, or -errno with "PATH: reason" set. */
int symkeys_load(const char *path, struct symkeys *t);
void symkeys_free(struct symkeys *t);
/* The build whose functions a file's addresses are: path itself when it
 * is an ELF with symbols, else the vmlinux beside it (a kernel's boot
 * image, bzImage, is made from it).  A malloc'd path, or NULL with
 * "PATH: ..." set. */
char *symkeys_build_of(const char *path);
/* The GNU build-id of an ELF as lowercase hex ("" when none); 0 or -errno
 * (record_file.h's record_build_id_reader). */
int symkeys_build_id(const char *path, char *hex, size_t len);

#endif
