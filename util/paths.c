#include "util/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char exe_path[PATH_MAX], exe_dir[PATH_MAX];

static int exe_read(void)
{
	ssize_t n;
	char *slash;

	if (exe_path[0])
		return 0;
	n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (n <= 0) {
		exe_path[0] = '\0';
		return -1;
	}
	exe_path[n] = '\0';
	memcpy(exe_dir, exe_path, (size_t)n + 1);
	slash = strrchr(exe_dir, '/');
	if (slash)
		*slash = '\0';
	return 0;
}

const char *paths_exe(void)
{
	return exe_read() ? NULL : exe_path;
}

const char *paths_exe_dir(void)
{
	return exe_read() ? NULL : exe_dir;
}

static const char *env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int paths_cache_dir(char **out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *v;

	*out = NULL;
	if ((v = env_set("LACE_CACHE")))
		strbuf_addstr(&sb, v);
	else if ((v = env_set("XDG_CACHE_HOME")))
		strbuf_addf(&sb, "%s/lace", v);
	else if ((v = env_set("HOME")))
		strbuf_addf(&sb, "%s/.cache/lace", v);
	else
		return lace_error_set(ENOENT, "no cache folder: set LACE_CACHE, XDG_CACHE_HOME or HOME");
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

int paths_find_program(const char *prog, char **out)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	if (out)
		*out = NULL;
	if (strchr(prog, '/')) {
		if (access(prog, X_OK))
			return lace_error_set(ENOENT, "%s: command not found", prog);
		if (out)
			*out = xstrdup(prog);
		return 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t l = strcspn(p, ":");

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.*s/%s", (int)l, p, prog);
		if (l && !access(sb.buf, X_OK)) {
			if (out)
				*out = strbuf_detach(&sb, NULL);
			strbuf_release(&sb);
			return 0;
		}
		p += l + (p[l] == ':');
	}
	strbuf_release(&sb);
	return lace_error_set(ENOENT, "%s: command not found", prog);
}
