/* The file-kind seam (util/file_probe.h). */
#include "util/file_probe.h"

#include <errno.h>
#include <string.h>

#include "util/error.h"

static file_probe_fn *probe_fn;

void file_probe_set(file_probe_fn *fn)
{
	probe_fn = fn;
}

int file_probe(const char *path, struct file_facts *f)
{
	memset(f, 0, sizeof(*f));
	if (!probe_fn)
		return lace_error_set(ENOSYS, "%s: no file probe registered (cli/ registers layout's)", path);
	return probe_fn(path, f);
}
