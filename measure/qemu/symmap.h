/* A kernel's System.map (the `nm -n` text: "ADDR TYPE NAME" per line), for
 * naming the function an instruction belongs to.  Text, not ELF: measure/
 * never reads ELF.  Only code symbols (t, T, w, W) are kept; a function
 * runs from its address to the next kept symbol's. */
#ifndef LACE_QEMU_SYMMAP_H
#define LACE_QEMU_SYMMAP_H

#include <stddef.h>
#include <stdint.h>

struct symmap_sym {
	uint64_t addr;
	char *name;
};

struct symmap {
	struct symmap_sym *syms;   /* sorted by address */
	size_t n;
};

/* 0, or -errno with a message through lace_error_set(). */
int symmap_load(struct symmap *m, const char *path);
/* The same from text in memory (tests); text need not be terminated. */
int symmap_parse(struct symmap *m, const char *text, size_t len);
void symmap_free(struct symmap *m);
/* Index of the symbol addr falls in, or -1 (before the first, or at or
 * after the last symbol: the last has no known end). */
long symmap_lookup(const struct symmap *m, uint64_t addr);
/* Address of NAME, 0 when absent. */
uint64_t symmap_addr(const struct symmap *m, const char *name);

#endif
