/* -o FILE for lace stat and lace ab (see report_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/report_file.h"
#include "util/error.h"

int report_file_open(struct report_file *r, const char *cmd, const char *path, bool append)
{
	if (!*path)
		return lace_usage_error(cmd, "-o needs a file name");
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return lace_usage_error(cmd, "-o %s: %s", path, strerror(errno));
	if (r->fd >= 0)
		close(r->fd);
	r->fd = fd;
	r->path = path;
	r->append = append;
	return 0;
}

FILE *report_file_begin(struct report_file *r, bool started_line)
{
	if (!r->path)
		return stdout;
	struct stat st;
	/* a regular file is emptied; a device or a pipe (-o /dev/stderr) is not */
	if (!r->append && !fstat(r->fd, &st) && S_ISREG(st.st_mode) && ftruncate(r->fd, 0))
		lace_warn(r->path, "cannot empty it: %s", strerror(errno));
	lseek(r->fd, 0, SEEK_END);
	r->f = fdopen(r->fd, "a");
	if (!r->f) {
		lace_warn(r->path, "%s; the report goes to stdout", strerror(errno));
		r->path = NULL;
		return stdout;
	}
	r->fd = -1; /* owned by r->f now */
	if (started_line) {
		time_t now = time(NULL);
		fprintf(r->f, "# started on %s\n", ctime(&now)); /* ctime ends in \n, as perf's line */
	}
	return r->f;
}

int report_file_finish(struct report_file *r, const char *cmd)
{
	int rc = 0;

	if (r->f) {
		bool bad = ferror(r->f);
		int err = fclose(r->f) ? errno : 0;
		if (bad || err) {
			fprintf(stderr, "lace: %s: writing %s: %s\n", cmd, r->path,
				err ? strerror(err) : "write error");
			rc = LACE_EXIT_FAIL;
		}
		r->f = NULL;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	return rc;
}
