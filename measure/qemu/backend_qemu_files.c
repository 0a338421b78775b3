/* Where a qemu batch's files come from: the kernel and System.map of each
 * side (a file, a Debian kernel name in lace's cache, or the one fetched
 * last), busybox, lace's TCG plugin and the guest runner of the guest's
 * architecture; see backend_qemu_priv.h. */
#include "measure/qemu/backend_qemu_priv.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/backend.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/model_results.h"
#include "util/array.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/fs.h"
#include "util/paths.h"

#define QEMU_PROG "qemu-system-x86_64"   /* what the backend needs at all */

static const char *const machine_x86[] = {
	"-M", "pc", "-cpu", "qemu64", "-m", "512",
	"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", NULL };
static const char *const machine_ppc[] = {
	/* TCG has none of the spectre workarounds the machine asks for by
	 * default: say so instead of four warnings per boot */
	"-M", "pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off",
	"-cpu", "POWER8", "-m", "1024", NULL };

const struct qemu_arch qemu_arches[] = {
	[GUEST_X86_64] = { "qemu-system-x86_64", "qemu-system-x86", "vmlinuz", "__switch_to_asm",
			   machine_x86, "console=ttyS0 quiet panic=-1 nokaslr random.trust_cpu=off",
			   "lace-guest-run" },
	[GUEST_PPC64LE] = { "qemu-system-ppc64", "qemu-system-ppc", "vmlinux", "_switch",
			    /* mitigations=off: TCG has no L1D-flush instruction, and
			     * the software fallback flushes would be 20% of the
			     * kernel's instructions (doc/events.md) */
			    machine_ppc, "console=hvc0 quiet panic=-1 random.trust_cpu=off mitigations=off",
			    "ppc64le/lace-guest-run" },
};

void qemu_path_set(char **slot, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*slot);
	*slot = strbuf_detach(&sb, NULL);
}


/* The folder of the plugin and the guest runner: $LACE_QEMU_DIR, else
 * <lace>/qemu (build tree) or <lace>/../lib/lace/qemu (installed). */
static bool tool_dir(char *out, size_t len)
{
	const char *env = getenv("LACE_QEMU_DIR");
	const char *exe = paths_exe_dir();
	char path[PATH_MAX];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
		return fs_is_file(path);
	}
	if (!exe)
		return false;
	snprintf(out, len, "%s/qemu", exe);
	snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
	if (fs_is_file(path))
		return true;
	snprintf(out, len, "%s/../lib/lace/qemu", exe);
	snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
	return fs_is_file(path);
}

/* what one boot may take: its guest's RAM (-m) and QEMU's own, which a
 * small guest of lace's measured at 210-250 MiB in all */
static unsigned long arch_run_mib(const struct qemu_arch *a)
{
	for (const char *const *m = a->machine; *m && m[1]; m++)
		if (!strcmp(*m, "-m"))
			return strtoul(m[1], NULL, 10) + 256;
	return 0;
}

unsigned long qemu_run_mib(int arch)
{
	unsigned long most = 0;

	for (size_t i = 0; i < ARRAY_SIZE(qemu_arches); i++) {
		unsigned long mib = arch_run_mib(&qemu_arches[i]);
		if ((arch < 0 || (size_t)arch == i) && mib > most)
			most = mib;
	}
	return most;
}

const char *qemu_backend_unavailable(void)
{
	char dir[PATH_MAX];

	if (paths_find_program(QEMU_PROG, NULL))
		return "--backend qemu needs " QEMU_PROG " (apt-get install qemu-system-x86)";
	if (!tool_dir(dir, sizeof(dir)))
		return "--backend qemu needs the TCG plugin liblace-tcg.so: run 'make'";
	return NULL;
}

/* ~/.cache/lace/guest/<arch>, as scripts/fetch-guest.sh fills it */
static int guest_cache(char *out, size_t len, enum guest_arch arch)
{
	char *cache;
	int err = paths_cache_dir(&cache);

	if (err)
		return err;
	snprintf(out, len, "%s/guest/%s", cache, guest_arch_name(arch));
	free(cache);
	return 0;
}

/* How to get a guest file PART (kernel, busybox) that is not in the cache:
 * the one line its last fetch failed with (scripts/fetch-guest.sh leaves
 * it in PART.fetch-error), else the command that fetches it. */
static const char *fetch_hint(struct strbuf *sb, const char *cache, enum guest_arch arch,
			      const char *part)
{
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_reset(sb);
	strbuf_addf(&path, "%s/%s.fetch-error", cache, part);
	if (strbuf_read_file(&line, path.buf) >= 0 && (strbuf_rtrim(&line), line.len))
		strbuf_addf(sb, "its last fetch failed: %s", line.buf);
	else
		strbuf_addf(sb, "scripts/fetch-guest.sh%s --part %s fetches it",
			    arch == GUEST_PPC64LE ? " --arch ppc64le" : "", part);
	strbuf_release(&path);
	strbuf_release(&line);
	return sb->buf;
}

/* --kernel linux-image-6.1.0-57-powerpc64le, or just its ABI: a Debian
 * kernel that scripts/fetch-guest.sh puts in the cache */
bool qemu_debian_kernel_name(const char *v, char *abi, size_t len, enum guest_arch *arch)
{
	const char *a = strncmp(v, "linux-image-", 12) ? v : v + 12;

	if (strchr(v, '/') || fs_is_file(v) || !isdigit((unsigned char)a[0]))
		return false;
	snprintf(abi, len, "%s", a);
	*arch = strstr(a, "powerpc64le") || strstr(a, "ppc64el") ? GUEST_PPC64LE : GUEST_X86_64;
	return true;
}

/* one side's kernel and map: given, or Debian's from the cache */
static int resolve_kernel(struct qemu_priv *p, struct qemu_kernel *k, const char *cache,
			  const char *cache_abi, const char *side)
{
	const struct qemu_arch *qa = &qemu_arches[p->arch];
	char abi[128];
	enum guest_arch named;
	struct symmap map;
	struct strbuf hint = STRBUF_INIT;
	int err;

	snprintf(abi, sizeof(abi), "%s", cache_abi);
	if (k->kernel && qemu_debian_kernel_name(k->kernel, abi, sizeof(abi), &named)) {
		qemu_path_set(&k->kernel_path, "%s/%s-%s", cache, qa->kernel_prefix, abi);
		if (!fs_is_file(k->kernel_path)) {
			err = lace_error_set(ENOENT, "--kernel%s %s: not in lace's cache (%s)", side,
					     k->kernel, fetch_hint(&hint, cache, p->arch, "kernel"));
			strbuf_release(&hint);
			return err;
		}
	} else if (k->kernel)
		qemu_path_set(&k->kernel_path, "%s", k->kernel);
	else
		qemu_path_set(&k->kernel_path, "%s/%s-%s", cache, qa->kernel_prefix, abi);
	if (k->sysmap)
		qemu_path_set(&k->map_path, "%s", k->sysmap);
	else
		qemu_path_set(&k->map_path, "%s/System.map-%s", cache, abi);
	if (!fs_is_file(k->kernel_path)) {
		err = lace_error_set(ENOENT, "%s: no kernel to boot (%s; or give --kernel%s)",
				     k->kernel_path, fetch_hint(&hint, cache, p->arch, "kernel"), side);
		strbuf_release(&hint);
		return err;
	}
	if (!fs_is_file(k->map_path))
		return lace_error_set(ENOENT, "%s: no System.map for the kernel (scripts/fetch-guest.sh, "
				      "or give --system-map%s)", k->map_path, side);
	err = symmap_load(&map, k->map_path);
	if (err)
		return err;
	k->switch_addr = symmap_addr(&map, qa->context_switch);
	/* the text the profile's kernel page size maps (x86-64 Linux: 2 MiB
	 * pages from _text to _etext, which the linker script aligns) */
	k->text_lo = symmap_addr(&map, "_text");
	if (!k->text_lo)
		k->text_lo = symmap_addr(&map, "_stext");
	k->text_hi = symmap_addr(&map, "_etext");
	/* the plugin corrects the blocks such exceptions leave midway */
	k->nexc = 0;
	for (size_t i = 0; i < map.n && k->nexc < 32; i++)
		if (tcg_exception_entry(p->arch == GUEST_PPC64LE ? TCG_ARCH_PPC64 : TCG_ARCH_X86_64,
					map.syms[i].name))
			k->exc_addr[k->nexc++] = map.syms[i].addr;
	for (size_t i = 0; i < p->paths.nr; i++)
		if (!symmap_addr(&map, p->paths.v[i]) && !err)
			err = lace_error_set(ENOENT, "--path-length %s: no such function in %s",
					     p->paths.v[i], k->map_path);
	symmap_free(&map);
	return err;
}

int qemu_resolve_files(struct qemu_priv *p)
{
	char cache[PATH_MAX], abi[128] = "", tools[PATH_MAX];
	struct strbuf sb = STRBUF_INIT, abi_file = STRBUF_INIT;
	const struct qemu_arch *qa;
	bool two = p->k[1].kernel || p->k[1].sysmap;
	int err;

	for (int i = 0; i < 2; i++) {
		char name_abi[128];
		enum guest_arch named;
		int a;

		if (!p->k[i].kernel)
			continue;
		if (qemu_debian_kernel_name(p->k[i].kernel, name_abi, sizeof(name_abi), &named))
			a = (int)named;
		else
			a = guest_kernel_arch(p->k[i].kernel);
		if (a < 0)
			return -ENOEXEC;
		if (i == 1 && p->k[0].kernel && (enum guest_arch)a != p->arch)
			return lace_error_set(EINVAL, "--kernel-a boots %s, --kernel-b %s: A and B "
					      "must be kernels of one architecture",
					      guest_arch_name(p->arch), guest_arch_name((enum guest_arch)a));
		p->arch = (enum guest_arch)a;
	}
	qa = &qemu_arches[p->arch];
	if (paths_find_program(qa->prog, NULL))
		return lace_error_set(ENOENT, "a %s guest needs %s (apt-get install %s)",
				      guest_arch_name(p->arch), qa->prog, qa->package);
	err = guest_cache(cache, sizeof(cache), p->arch);
	if (err)
		return err;
	strbuf_addf(&abi_file, "%s/kernel.abi", cache);
	if (!strbuf_read_file(&sb, abi_file.buf)) {
		strbuf_rtrim(&sb);
		snprintf(abi, sizeof(abi), "%s", sb.buf);
	}
	strbuf_release(&sb);
	strbuf_release(&abi_file);
	err = resolve_kernel(p, &p->k[0], cache, abi, two ? "-a" : "");
	if (!err && two)
		err = resolve_kernel(p, &p->k[1], cache, abi, "-b");
	if (err)
		return err;
	qemu_path_set(&p->busybox, "%s/busybox", cache);
	if (!fs_is_file(p->busybox)) {
		struct strbuf hint = STRBUF_INIT;

		err = lace_error_set(ENOENT, "%s: no busybox for the guest (%s)", p->busybox,
				     fetch_hint(&hint, cache, p->arch, "busybox"));
		strbuf_release(&hint);
		return err;
	}
	if (!tool_dir(tools, sizeof(tools)))
		return lace_error_set(ENOENT, "%s", qemu_backend_unavailable());
	qemu_path_set(&p->plugin, "%s/liblace-tcg.so", tools);
	qemu_path_set(&p->runner, "%s/%s", tools, qa->runner);
	if (!fs_is_file(p->runner))
		return lace_error_set(ENOENT, "%s: no guest runner for %s (make builds it when "
				      "powerpc64le-linux-gnu-gcc is installed: 'make setup-kernel')",
				      p->runner, guest_arch_name(p->arch));
	return 0;
}
