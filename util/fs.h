/* fs: the file-system helpers every module uses, one way each.
 *
 * Errors follow util/error.h: a negative errno is returned and a one-line
 * message naming the path is recorded with lace_error_set(); nothing is
 * printed.  Reading a whole file is strbuf_read_file() (util/strbuf.h). */
#ifndef LACE_FS_H
#define LACE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Create or empty path and write len bytes of data to it; a short write or
 * a failing close (a full disk shows there) is an error.  0 or -errno with
 * "PATH: reason". */
int fs_write_file(const char *path, const void *data, size_t len);
/* mkdir -p: create dir and its missing parents with mode (less the umask);
 * a folder that exists already is fine.  0 or -errno with "DIR: reason"
 * naming the first folder that could not be made. */
int fs_mkdir_p(const char *dir, mode_t mode);

/* Whether path is a regular file (or a link to one). */
bool fs_is_file(const char *path);
/* Whether two paths hold the same bytes (false when either cannot be
 * read). */
bool fs_same_content(const char *a, const char *b);
/* Whether path is a folder (or a link to one). */
bool fs_is_dir(const char *path);
/* A new private folder $TMPDIR/NAME.XXXXXX (/tmp when TMPDIR is unset or
 * empty).  0 with *out malloc'd, or -errno with "FOLDER: reason". */
int fs_temp_dir(const char *name, char **out);
/* rm -r: remove path and, for a folder, everything under it, not
 * following links.  0 (also when path is gone already) or -errno with
 * "PATH: reason" naming the first thing that could not be removed. */
int fs_remove_tree(const char *path);

#endif
