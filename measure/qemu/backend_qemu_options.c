/* The qemu backend's options: its own table, which `lace stat --help` and
 * `lace ab --help` show under their own heading, and set_option(), which
 * also takes the model options both model hosts share (--cpu-profile,
 * --per-function, --top: listed in vg_backend_options[]). */
#include "measure/backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/qemu/backend_qemu_priv.h"
#include "measure/cpu_profile.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strvec.h"
#include "util/xalloc.h"

/* help lines wrap at 80 columns under the usage's help column (26) */
const struct lace_backend_option qemu_backend_options[] = {
	{ "kernel", 1, "FILE", "the kernel to boot (default: Debian's, from lace's\n"
			       "cache)" },
	{ "system-map", 1, "FILE", "the kernel's System.map" },
	{ "kernel-a", 1, "FILE", "lace ab: A's kernel (as --kernel)" },
	{ "kernel-b", 1, "FILE", "lace ab: B's kernel" },
	{ "system-map-a", 1, "FILE", "lace ab: A's System.map" },
	{ "system-map-b", 1, "FILE", "lace ab: B's System.map" },
	{ "qemu-loops", 1, "N", "runs of the workload per boot, in one window\n"
				"(default 1)" },
	{ "qemu-perturb", 1, "N", "boot k of the batch (of each side in lace ab) with\n"
				  "timing perturbation N+k-1 (a padded kernel command\n"
				  "line): the same code, another execution; 0, the\n"
				  "default, is none" },
	{ "qemu-no-plugin", 0, NULL, "boot without lace's TCG plugin: guest tracepoints\n"
				     "and elapsed only (its cost)" },
	{ "guest-arch", 1, "ARCH", "without --kernel: boot Debian's x86_64 (default)\n"
				   "or ppc64le kernel from the cache" },
	{ "path-length", 1, "FN,...", "calls and instructions per call (callees\n"
				      "included) of these kernel functions" },
	{ "kernel-page", 1, "SIZE", "the page size the model maps the kernel's text\n"
				    "with (default: the CPU profile's, 2M on x86-64;\n"
				    "4K: the ordinary pages)" },
	{ NULL, 0, NULL, NULL },
};

int qemu_set_option(struct lace_backend *be, const char *name, const char *value)
{
	struct qemu_priv *p = be->priv;

	static const struct { const char *name; int side; bool map; } files[] = {
		{ "kernel", 0, false }, { "kernel-a", 0, false }, { "kernel-b", 1, false },
		{ "system-map", 0, true }, { "system-map-a", 0, true }, { "system-map-b", 1, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct qemu_kernel *k = &p->k[files[i].side];
		char **slot = files[i].map ? &k->sysmap : &k->kernel;

		char abi[128];
		enum guest_arch arch;

		if (strcmp(name, files[i].name))
			continue;
		/* not ENOENT: that says "not this backend's option" */
		if (!value || (!fs_is_file(value) &&
			       (files[i].map || !qemu_debian_kernel_name(value, abi, sizeof(abi), &arch))))
			return lace_error_set(EINVAL, "%s: no such file (--%s)", value ? value : "", name);
		/* a file that is no kernel image is refused now, before
		 * anything boots (QEMU would try it and fail obscurely) */
		if (!files[i].map && fs_is_file(value) && guest_kernel_arch(value) < 0)
			return -ENOEXEC;
		free(*slot);
		*slot = xstrdup(value);
		return 0;
	}
	if (!strcmp(name, "qemu-loops")) {
		long v;
		int err = backend_option_long(name, value, 1, 1000000, &v);

		if (!err)
			p->loops = (unsigned)v;
		return err;
	}
	if (!strcmp(name, "qemu-perturb")) {
		long v;
		int err = backend_option_long(name, value, 0, QEMU_PERTURB_MAX, &v);

		if (!err)
			p->perturb = (unsigned)v;
		return err;
	}
	if (!strcmp(name, "cpu-profile")) {
		int err = sim_profiles_load(&p->ps, value ? value : "");

		if (!err)
			qemu_path_set(&p->profile_name, "%s", value);
		return err == -ENOENT ? -EINVAL : err;
	}
	if (!strcmp(name, "guest-arch")) {
		if (value && !strcmp(value, "x86_64"))
			p->arch = GUEST_X86_64;
		else if (value && !strcmp(value, "ppc64le"))
			p->arch = GUEST_PPC64LE;
		else
			return lace_error_set(EINVAL, "--guest-arch wants x86_64 or ppc64le, not '%s'",
					      value ? value : "");
		return 0;
	}
	if (!strcmp(name, "path-length")) {
		struct strvec v = STRVEC_INIT;

		if (value)
			for (const char *q = value; *q;) {
				size_t l = strcspn(q, ",");
				if (l)
					strvec_pushf(&v, "%.*s", (int)l, q);
				q += l + (q[l] == ',');
			}
		if (!v.nr) {
			strvec_clear(&v);
			return lace_error_set(EINVAL, "--path-length wants FUNCTION[,FUNCTION...]");
		}
		for (size_t i = 0; i < v.nr; i++)
			strvec_push(&p->paths, v.v[i]);
		strvec_clear(&v);
		return 0;
	}
	if (!strcmp(name, "kernel-page")) {
		struct sim_profile scratch;
		int err = sim_profile_load(p->profile_name ? p->profile_name : SIM_PROFILE_DEFAULT,
					   &scratch);

		/* checked now for its form; applied to the profile prepare loads */
		if (!err && (err = sim_profile_set_kernel_page(&scratch, value ? value : "")))
			return err;
		qemu_path_set(&p->kernel_page, "%s", value);
		return 0;
	}
	if (!strcmp(name, "qemu-no-plugin")) {
		p->no_plugin = true;
		return 0;
	}
	if (!strcmp(name, "per-function")) {
		p->per_function = true;
		return 0;
	}
	if (!strcmp(name, "top"))
		return backend_option_long(name, value, 1, 100000, &p->top);
	if (!strcmp(name, "record")) {   /* in the simulator's table: both hosts record */
		if (!value || !*value)
			return lace_error_set(EINVAL, "--record wants a file name");
		free(p->record);
		p->record = xstrdup(value);
		return 0;
	}
	return -ENOENT;
}
