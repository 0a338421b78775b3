/* The guest's initramfs; see guest.h. */
#include "measure/qemu/guest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/qemu/cpio.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static void shell_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* argv[0] as the shell would find it; 0 or -ENOENT (message set) */
static int find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/')) {
		if (!realpath(name, out))
			return lace_error_set(errno, "%s: %s", name, strerror(errno));
		return 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, p, name);
		if (l && !access(buf, X_OK)) {
			snprintf(out, len, "%s", buf);
			return 0;
		}
		p += l + (e != NULL);
	}
	(void)len;
	return lace_error_set(ENOENT, "%s: command not found (the guest runs host programs)",
			      name);
}

/* every folder above path, once, before it */
static int add_parents(struct cpio *c, struct strvec *dirs, const char *path)
{
	char buf[PATH_MAX];

	for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(p - path - 1), path + 1);
		if (strvec_find(dirs, buf) >= 0)
			continue;
		strvec_push(dirs, buf);
		int err = cpio_add(c, buf, S_IFDIR | 0755, NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

static int add_host_file(struct cpio *c, struct strvec *dirs, struct strvec *files,
			 const char *path, unsigned mode)
{
	int err;

	if (strvec_find(files, path) >= 0)
		return 0;
	strvec_push(files, path);
	err = add_parents(c, dirs, path);
	return err ? err : cpio_add_file(c, path + 1, path, mode);
}

/* the shared libraries ldd names for prog (none for a static program) */
static int add_libraries(struct cpio *c, struct strvec *dirs, struct strvec *files,
			 const char *prog)
{
	struct strbuf cmd = STRBUF_INIT;
	char line[PATH_MAX + 128];
	FILE *p;
	int err = 0;

	strbuf_addstr(&cmd, "ldd ");
	shell_quote(&cmd, prog);
	strbuf_addstr(&cmd, " 2>/dev/null");
	p = popen(cmd.buf, "r");
	strbuf_release(&cmd);
	if (!p)
		return lace_error_set(errno, "ldd: %s", strerror(errno));
	while (!err && fgets(line, sizeof(line), p)) {
		/* "\tlibc.so.6 => /lib/.../libc.so.6 (0x...)" or "\t/lib64/ld-linux... (0x...)" */
		char *s = strstr(line, "=> ");
		char *lib = s ? s + 3 : line + strspn(line, " \t");
		char *end = strstr(lib, " (");

		if (*lib != '/' || !end)
			continue;
		*end = '\0';
		err = add_host_file(c, dirs, files, lib, 0755);
	}
	pclose(p);
	return err;
}

static int add_busybox(struct cpio *c, const char *busybox)
{
	struct strbuf cmd = STRBUF_INIT;
	char applet[128], name[192];
	FILE *p;
	int err = cpio_add_file(c, "lace/bin/busybox", busybox, 0755);

	strbuf_addstr(&cmd, "");
	shell_quote(&cmd, busybox);
	strbuf_addstr(&cmd, " --list 2>/dev/null");
	p = err ? NULL : popen(cmd.buf, "r");
	strbuf_release(&cmd);
	if (err)
		return err;
	if (!p)
		return lace_error_set(errno, "%s --list: %s", busybox, strerror(errno));
	while (!err && fgets(applet, sizeof(applet), p)) {
		applet[strcspn(applet, "\n")] = '\0';
		if (!*applet || strchr(applet, '/') || !strcmp(applet, "busybox"))
			continue;
		snprintf(name, sizeof(name), "lace/bin/%s", applet);
		err = cpio_add(c, name, S_IFLNK | 0777, "busybox", 7);
	}
	if (pclose(p) && !err)
		err = lace_error_set(ENOEXEC, "%s --list failed (not a busybox for this machine?)",
				     busybox);
	return err;
}

int guest_initramfs_build(const struct guest_spec *g, const char *out)
{
	struct strvec dirs = STRVEC_INIT, files = STRVEC_INIT;
	struct strbuf init = STRBUF_INIT;
	char prog[PATH_MAX];
	struct cpio c;
	int err;

	err = find_program(g->argv[0], prog, sizeof(prog));
	if (err)
		return err;
	err = cpio_open(&c, out);
	if (err)
		return err;
	static const char *const top[] = { "lace", "lace/bin", "proc", "sys", "dev", "tmp", NULL };
	for (size_t i = 0; !err && top[i]; i++) {
		strvec_push(&dirs, top[i]);
		err = cpio_add(&c, top[i], S_IFDIR | (strcmp(top[i], "tmp") ? 0755 : 01777),
			       NULL, 0);
	}
	if (!err)
		err = add_busybox(&c, g->busybox);
	if (!err)
		err = cpio_add_file(&c, "lace/bin/lace-guest-run", g->runner, 0755);
	if (!err)
		err = add_host_file(&c, &dirs, &files, prog, 0755);
	if (!err)
		err = add_libraries(&c, &dirs, &files, prog);

	/* errors of the guest's own setup go to the console (a file lace keeps) */
	strbuf_addf(&init,
		    "#!/lace/bin/sh\n"
		    "export PATH=/lace/bin HOME=/tmp\n"
		    "mount -t proc proc /proc\n"
		    "mount -t sysfs sysfs /sys\n"
		    "mount -t devtmpfs devtmpfs /dev\n"
		    /* no tmpfs on /tmp: the root is one already, and a
		     * workload copied from the host's /tmp lives there */
		    "cd /tmp\n"
		    "/lace/bin/lace-guest-run --exit-port %u ", g->loops);
	shell_quote(&init, prog);
	for (size_t i = 1; g->argv[i]; i++) {
		strbuf_addch(&init, ' ');
		shell_quote(&init, g->argv[i]);
	}
	strbuf_addstr(&init, "\necho \"lace-guest: no exit port, status $?\"\npoweroff -f\n");
	if (!err)
		err = cpio_add(&c, "init", S_IFREG | 0755, init.buf, init.len);
	strbuf_release(&init);
	strvec_clear(&dirs);
	strvec_clear(&files);
	if (err) {
		fclose(c.f);
		free(c.path);
		return err;
	}
	return cpio_close(&c);
}
