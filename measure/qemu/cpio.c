/* cpio newc writer; see cpio.h. */
#include "measure/qemu/cpio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int cpio_open(struct cpio *c, const char *path)
{
	c->f = fopen(path, "wb");
	if (!c->f)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	c->ino = 1;
	c->path = xstrdup(path);
	return 0;
}

static void pad4(FILE *f, size_t n)
{
	static const char zero[4];

	if (n % 4)
		fwrite(zero, 1, 4 - n % 4, f);
}

int cpio_add(struct cpio *c, const char *name, unsigned mode, const void *data, size_t len)
{
	size_t nlen = strlen(name) + 1;

	/* fixed mtime and owner: the same inputs give the same archive */
	fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", c->ino++,
		mode, 0u, 0u, (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, len, 0u, 0u, 0u, 0u, nlen,
		0u);
	fwrite(name, 1, nlen, c->f);
	pad4(c->f, 110 + nlen);
	if (len)
		fwrite(data, 1, len, c->f);
	pad4(c->f, len);
	return ferror(c->f) ? lace_error_set(EIO, "%s: write error", c->path) : 0;
}

int cpio_add_file(struct cpio *c, const char *name, const char *host_path, unsigned mode)
{
	struct strbuf sb = STRBUF_INIT;
	int err = strbuf_read_file(&sb, host_path);

	if (err) {
		strbuf_release(&sb);
		return lace_error_set(-err, "%s: %s", host_path, strerror(-err));
	}
	err = cpio_add(c, name, S_IFREG | mode, sb.buf, sb.len);
	strbuf_release(&sb);
	return err;
}

int cpio_close(struct cpio *c)
{
	int err = cpio_add(c, "TRAILER!!!", 0, NULL, 0);

	if (fclose(c->f) && !err)
		err = lace_error_set(errno, "%s: %s", c->path, strerror(errno));
	free(c->path);
	c->f = NULL;
	c->path = NULL;
	return err;
}
