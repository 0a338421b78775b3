/* What kind of file a path holds, for code that must not read ELF itself.
 *
 * measure/ never reads ELF (scripts/check-layering.sh), yet the qemu
 * backend must refuse a file that is no kernel image, or a program its
 * guest cannot run, before anything boots.  It asks file_probe(); the
 * reading is layout/'s (layout_file_probe(), on libelf), which cli/
 * registers at start (file_probe_set()).  util/ holds only the seam: the
 * facts and the registered function. */
#ifndef LACE_UTIL_FILE_PROBE_H
#define LACE_UTIL_FILE_PROBE_H

#include <stdbool.h>

enum file_kind {
	FILE_KIND_OTHER = 0,   /* none of these */
	FILE_KIND_ELF64,       /* a 64-bit ELF: machine, type, endianness, interp */
	FILE_KIND_ELF32,       /* a 32-bit ELF */
	FILE_KIND_BZIMAGE,     /* an x86 boot image: the setup header's "HdrS" */
};

struct file_facts {
	enum file_kind kind;
	unsigned machine;      /* e_machine (ELF) */
	unsigned type;         /* e_type: ET_EXEC 2, ET_DYN 3, ET_REL 1 */
	bool big_endian;
	bool interp;           /* a PT_INTERP program header: dynamically linked */
};

/* 0 with *f filled, or -errno with the message set (lace_error_set). */
typedef int file_probe_fn(const char *path, struct file_facts *f);

void file_probe_set(file_probe_fn *fn);
/* The registered probe's answer; -ENOSYS (message set) when none is. */
int file_probe(const char *path, struct file_facts *f);

#endif
