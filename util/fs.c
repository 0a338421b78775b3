#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
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
