/* paths: where lace's own files are, found one way each.
 *
 * The running binary and its folder (the build tree or an installed
 * prefix: the tools, plugins and sources lace ships sit beside it), the
 * cache folder every cached download and build shares, and a program
 * looked up in PATH as execvp would.  Errors follow util/error.h. */
#ifndef LACE_PATHS_H
#define LACE_PATHS_H

/* The running binary (/proc/self/exe), read once; NULL when unknown. */
const char *paths_exe(void);
/* Its folder, read once; NULL when unknown. */
const char *paths_exe_dir(void);

/* lace's cache folder, in this order: $LACE_CACHE, $XDG_CACHE_HOME/lace,
 * $HOME/.cache/lace (each only when set and not empty).  The folder is
 * named, not created.  0 with *out malloc'd, or -ENOENT with a message
 * naming the three variables when none is set: a cache under / or /tmp by
 * accident would be shared with whoever else lands there. */
int paths_cache_dir(char **out);

/* prog as execvp would find it: itself when it holds a '/', else the
 * first folder of $PATH (default /usr/bin:/bin) where it is executable.
 * 0 with *out malloc'd (out may be NULL: only whether it is there), or
 * -ENOENT with "PROG: command not found". */
int paths_find_program(const char *prog, char **out);

#endif
