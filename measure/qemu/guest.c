/* The guest's initramfs; see guest.h. */
#include "measure/qemu/guest.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/qemu/cpio.h"
#include "util/error.h"
#include "util/file_probe.h"
#include "util/parse_num.h"
#include "util/paths.h"
#include "util/run_command.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

/* argv[0] as the shell would find it; 0 or -ENOENT (message set) */
static int guest_program_path(const char *name, char *out, size_t len)
{
	char *found;

	if (strchr(name, '/')) {
		if (!realpath(name, out))
			return lace_error_set(errno, "%s: %s", name, strerror(errno));
		return 0;
	}
	if (paths_find_program(name, &found))
		return lace_error_set(ENOENT, "%s: command not found (the guest runs host programs)",
				      name);
	snprintf(out, len, "%s", found);
	free(found);
	return 0;
}

/* every folder above path, once, before it */
static int add_parents(struct cpio *c, struct strvec *dirs, const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	int err = 0;

	for (const char *p = strchr(path + 1, '/'); p && !err; p = strchr(p + 1, '/')) {
		strbuf_reset(&dir);
		strbuf_add(&dir, path + 1, (size_t)(p - path - 1));
		if (strvec_find(dirs, dir.buf) >= 0)
			continue;
		strvec_push(dirs, dir.buf);
		err = cpio_add(c, dir.buf, S_IFDIR | 0755, NULL, 0);
	}
	strbuf_release(&dir);
	return err;
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
	struct child_process cp = CHILD_PROCESS_INIT;
	int err;

	strvec_pushv(&cp.args, (const char *[]){ "ldd", prog, NULL });
	cp.out_capture = 1;
	cp.err_null = 1;
	err = child_process_run(&cp);
	for (char *line = cp.out.buf, *nl; !err && *line; line = nl) {
		/* "\tlibc.so.6 => /lib/.../libc.so.6 (0x...)" or "\t/lib64/ld-linux... (0x...)" */
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		char *s = strstr(line, "=> ");
		char *lib = s ? s + 3 : line + strspn(line, " \t");
		char *end = strstr(lib, " (");

		if (*lib != '/' || !end)
			continue;
		*end = '\0';
		err = add_host_file(c, dirs, files, lib, 0755);
	}
	child_process_clear(&cp);
	return err;
}

/* busybox and the shell link; the other applets are linked at boot */
static int add_busybox(struct cpio *c, const char *busybox)
{
	int err = cpio_add_file(c, "lace/bin/busybox", busybox, 0755);

	return err ? err : cpio_add(c, "lace/bin/sh", S_IFLNK | 0777, "busybox", 7);
}

#define EM_X86_64_ 62
#define EM_PPC64_  21
#define ET_EXEC_   2

/* Whether a file is a kernel image or a program the guest runs is asked
 * of file_probe() (layout/ reads the ELF; this folder never does), so a
 * wrong file is refused before QEMU boots it. */
int guest_kernel_arch(const char *path)
{
	struct file_facts ef;

	if (file_probe(path, &ef))
		return -1;
	if (ef.kind == FILE_KIND_BZIMAGE)
		return GUEST_X86_64;
	if (ef.kind == FILE_KIND_ELF32) {
		lace_error_set(ENOEXEC, "%s: a 32-bit ELF: the qemu backend boots x86-64 bzImages and "
			       "ppc64le vmlinux files", path);
		return -1;
	}
	if (ef.kind != FILE_KIND_ELF64) {
		lace_error_set(ENOEXEC, "%s: not a kernel image: neither an x86 bzImage (no \"HdrS\" "
			       "boot header at 0x202) nor an ELF vmlinux", path);
		return -1;
	}
	if (ef.machine == EM_PPC64_ && !ef.big_endian) {
		if (ef.type == ET_EXEC_)
			return GUEST_PPC64LE;
		lace_error_set(ENOEXEC, "%s: a ppc64le ELF %s, not a kernel (a vmlinux is an executable)",
			       path, ef.type == 1 ? "object file" : ef.type == 3 ? "shared object" : "of another type");
		return -1;
	}
	if (ef.machine == EM_X86_64_) {
		lace_error_set(ENOEXEC, "%s: an x86-64 ELF, not a bootable image: QEMU boots an x86-64 "
			       "kernel from its bzImage (arch/x86/boot/bzImage)", path);
		return -1;
	}
	lace_error_set(ENOEXEC, "%s: an ELF kernel for machine %u%s: the qemu backend boots x86-64 "
		       "and ppc64le kernels", path, ef.machine, ef.big_endian ? " (big-endian)" : "");
	return -1;
}

const char *guest_arch_name(enum guest_arch arch)
{
	return arch == GUEST_PPC64LE ? "ppc64le" : "x86_64";
}

/* a ppc64le guest runs static ppc64le programs only (no libraries to copy) */
static int check_program(const struct guest_spec *g, const char *prog)
{
	struct file_facts ef;

	if (g->arch != GUEST_PPC64LE)
		return 0;
	int err = file_probe(prog, &ef);

	if (err)
		return err;
	if (ef.kind != FILE_KIND_ELF64 || ef.machine != EM_PPC64_ || ef.big_endian)
		return lace_error_set(ENOEXEC, "%s: not a ppc64le program: a ppc64le guest runs "
				      "ppc64le programs (powerpc64le-linux-gnu-gcc -static)", prog);
	if (ef.interp)
		return lace_error_set(ENOEXEC, "%s: dynamically linked: a ppc64le guest has no "
				      "libraries (build it with -static)", prog);
	return 0;
}

bool guest_is_applet(const char *argv0)
{
	static const char dir[] = GUEST_APPLET_DIR "/";

	return !strncmp(argv0, dir, sizeof(dir) - 1) && argv0[sizeof(dir) - 1] &&
	       !strchr(argv0 + sizeof(dir) - 1, '/');
}

int guest_initramfs_build(const struct guest_spec *g, const char *out)
{
	struct strvec dirs = STRVEC_INIT, files = STRVEC_INIT;
	struct strbuf init = STRBUF_INIT;
	char prog[PATH_MAX];
	struct cpio c;
	int err;

	/* /lace/bin/NAME is an applet of the guest's own busybox (a shell
	 * loop on a ppc64le guest, which cannot run the host's shell): there
	 * is nothing to copy */
	bool applet = guest_is_applet(g->argv[0]);

	if (applet) {
		snprintf(prog, sizeof(prog), "%s", g->argv[0]);
		err = 0;
	} else {
		err = guest_program_path(g->argv[0], prog, sizeof(prog));
		if (!err)
			err = check_program(g, prog);
	}
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
	if (!err && !applet)
		err = add_host_file(&c, &dirs, &files, prog, 0755);
	if (!err && !applet && g->arch == GUEST_X86_64)
		err = add_libraries(&c, &dirs, &files, prog);

	/* errors of the guest's own setup go to the console (a file lace keeps) */
	strbuf_addf(&init,
		    "#!/lace/bin/sh\n"
		    "/lace/bin/busybox --install -s /lace/bin\n"
		    "export PATH=/lace/bin HOME=/tmp\n"
		    "mount -t proc proc /proc\n"
		    "mount -t sysfs sysfs /sys\n"
		    "mount -t devtmpfs devtmpfs /dev\n"
		    /* no tmpfs on /tmp: the root is one already, and a
		     * workload copied from the host's /tmp lives there */
		    "cd /tmp\n"
		    "/lace/bin/lace-guest-run%s ", g->arch == GUEST_X86_64 ? " --exit-port" : "");
	if (g->trace) {
		strbuf_addstr(&init, "--trace ");
		strbuf_add_sq(&init, g->trace);
		strbuf_addch(&init, ' ');
	}
	strbuf_addf(&init, "%u ", g->loops);
	strbuf_add_sq(&init, prog);
	for (size_t i = 1; g->argv[i]; i++) {
		strbuf_addch(&init, ' ');
		strbuf_add_sq(&init, g->argv[i]);
	}
	strbuf_addstr(&init, "\npoweroff -f\n");
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

void guest_report_read(const char *console, struct guest_report *r)
{
	FILE *f = fopen(console, "r");
	char line[512];

	memset(r, 0, sizeof(*r));
	while (f && fgets(line, sizeof(line), f)) {
		char *s = strstr(line, "lace-guest: "), name[160], rest[128];
		uint64_t n;
		int st;

		if (!s)
			continue;
		s += 12;
		s[strcspn(s, "\r\n")] = '\0';
		if (sscanf(s, "kernel %95s %131s", r->release, r->build_id) == 2) {
			if (!strcmp(r->build_id, "-"))
				r->build_id[0] = '\0';
		} else if (sscanf(s, "status %d", &st) == 1) {
			r->has_status = true;
			r->status = st;
		} else if (r->nevents < GUEST_MAX_TRACE &&
			   sscanf(s, "event %159s %127[^\n]", name, rest) == 2) {
			n = 0;
			r->ev[r->nevents].ok = !parse_u64(rest, &n);
			r->ev[r->nevents].count = n;
			if (!r->ev[r->nevents].ok)
				snprintf(r->ev[r->nevents].why, sizeof(r->ev[0].why), "%.95s",
					 strncmp(rest, "error ", 6) ? rest : rest + 6);
			r->nevents++;
		}
	}
	if (f)
		fclose(f);
}
