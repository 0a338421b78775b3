/* A writer of the cpio "newc" format, the one the Linux kernel unpacks as
 * an initramfs (Documentation/driver-api/early-userspace/buffer-format.rst):
 * lace builds its guests' initramfs itself, with no cpio program needed.
 * Entries are written in the order given: a folder before what it holds. */
#ifndef LACE_QEMU_CPIO_H
#define LACE_QEMU_CPIO_H

#include <stddef.h>
#include <stdio.h>

struct cpio {
	FILE *f;
	unsigned ino;
	char *path;
};

/* 0 or -errno (message set). */
int cpio_open(struct cpio *c, const char *path);
/* One entry: mode holds the type (S_IFREG, S_IFDIR, S_IFLNK) and the
 * permissions; a symlink's data is its target.  name has no leading '/'. */
int cpio_add(struct cpio *c, const char *name, unsigned mode, const void *data, size_t len);
/* A regular file with the contents of host_path (followed if a link). */
int cpio_add_file(struct cpio *c, const char *name, const char *host_path, unsigned mode);
/* The trailer, then close; 0 or -errno (message set). */
int cpio_close(struct cpio *c);

#endif
