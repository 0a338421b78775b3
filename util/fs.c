#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int fs_write_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		return lace_error_set(errno, "%s: cannot create: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;

			close(fd);
			return lace_error_set(e, "%s: cannot write: %s", path, strerror(e));
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd))
		return lace_error_set(errno, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

static int mkdir_one(const char *dir, mode_t mode)
{
	struct stat st;

	if (!mkdir(dir, mode))
		return 0;
	int e = errno;
	/* EEXIST is fine only for a folder (or a link to one) */
	if (e == EEXIST && !stat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	if (e == EEXIST)
		e = ENOTDIR;
	return lace_error_set(e, "%s: cannot create folder: %s", dir, strerror(e));
}

int fs_mkdir_p(const char *dir, mode_t mode)
{
	char *d = xstrdup(dir);
	int rc = 0;

	for (char *p = d + 1; *p && !rc; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		rc = mkdir_one(d, mode);
		*p = '/';
	}
	if (!rc)
		rc = mkdir_one(d, mode);
	free(d);
	return rc;
}

bool fs_is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

bool fs_same_content(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	char ba[65536], bb[65536];

	while (same) {
		size_t na = fread(ba, 1, sizeof(ba), fa), nb = fread(bb, 1, sizeof(bb), fb);

		same = na == nb && !memcmp(ba, bb, na) && !ferror(fa) && !ferror(fb);
		if (na < sizeof(ba))
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

bool fs_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int fs_temp_dir(const char *name, char **out)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf sb = STRBUF_INIT;

	*out = NULL;
	strbuf_addf(&sb, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(sb.buf)) {
		int e = errno;
		int rc = lace_error_set(e, "%s: %s", sb.buf, strerror(e));

		strbuf_release(&sb);
		return rc;
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

/* nftw passes no user data: the first failure is kept here (one tree
 * removal at a time in a process; lace removes trees from one thread) */
static int remove_errno;
static char remove_failed[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT && !remove_errno) {
		remove_errno = errno;
		snprintf(remove_failed, sizeof(remove_failed), "%s", path);
	}
	return 0;
}

int fs_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : lace_error_set(errno, "%s: %s", path, strerror(errno));
	remove_errno = 0;
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) && !remove_errno) {
		remove_errno = errno;
		snprintf(remove_failed, sizeof(remove_failed), "%s", path);
	}
	if (remove_errno)
		return lace_error_set(remove_errno, "%s: cannot remove: %s", remove_failed,
				      strerror(remove_errno));
	return 0;
}
