/* The qemu backend's private state, shared by backend_qemu.c (the runs)
 * and backend_qemu_files.c (which kernel, map, busybox, plugin and guest
 * runner a batch uses).  Not an interface: only these files include it. */
#ifndef LACE_MEASURE_BACKEND_QEMU_PRIV_H
#define LACE_MEASURE_BACKEND_QEMU_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/backend.h"
#include "measure/qemu/guest.h"
#include "measure/cpu_profile.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* what differs between the guest architectures */
struct qemu_arch {
	const char *prog, *package;
	const char *kernel_prefix;     /* Debian's kernel file in the cache */
	const char *context_switch;    /* where the guest changes address space */
	const char *const *machine;    /* QEMU's machine arguments */
	const char *append;            /* the kernel command line */
	const char *runner;            /* lace-guest-run, relative to the tool folder */
};

/* one side's kernel: lace stat has one, lace ab one per side */
struct qemu_kernel {
	char *kernel, *sysmap;         /* --kernel[-a/-b], --system-map[-a/-b] */
	char *kernel_path, *map_path;  /* resolved: the files booted and read */
	uint64_t switch_addr;
	uint64_t text_lo, text_hi;     /* the kernel image's text (_text/_stext, _etext) */
	uint64_t exc_addr[32];         /* synchronous exception entries (tcg_exception_entry) */
	size_t nexc;
};

struct qemu_priv {
	struct qemu_kernel k[2];       /* [0]: lace stat, and A; [1]: B */
	enum guest_arch arch;          /* from the kernel, or --guest-arch */
	struct strvec paths;           /* --path-length */
	struct strbuf trace;           /* the tracepoints asked for, SYS:NAME,... */
	int *trace_idx;                /* per event: which of them, or -1 */
	struct strvec trace_names;     /* their names */
	unsigned trace_warned;         /* bit t: said why t was not counted */
	char initrd_sha256[2][65];     /* and its SHA-256: every input of the guest's user
					* space (busybox, lace-guest-run, the workload and
					* its libraries, /init) in one identity, for the
					* results (the archive is byte-reproducible) */
	char *initrd_for[2];           /* the argv side A's / B's initramfs was built for
					* (lace stat: A's); by the side that runs, not the
					* kernel: with one kernel A and B still differ */
	unsigned console_kept;         /* failed runs whose console was kept */
	unsigned loops;                /* --qemu-loops */
	unsigned perturb;              /* --qemu-perturb: the first boot's of each side, 0: none */
	bool per_function;
	bool no_plugin;                /* --qemu-no-plugin: QEMU alone (make bench) */
	char *record;                  /* --record FILE */
	long top;
	char *profile_name;            /* --cpu-profile (NAME[,NAME...]), or NULL */
	char *kernel_page;             /* --kernel-page, or NULL */
	struct sim_profiles ps;        /* --cpu-profile's (the guest's kind's default) */
	char *busybox;
	char *plugin, *runner;
	char *dir;                     /* this batch's temporary folder */
	int *event_idx;
	int *event_prof;               /* per event: the profile counting it (spec->profile) */
	bool *excl_user, *excl_kernel;  /* per event: perf's :k / :u */
	size_t nevents;
	char describe[320];
	char qemu_version[128];        /* for the results file */
};

/* The largest --qemu-perturb: perturbation k pads the kernel command
 * line with k characters, and the line has room for about 2 KiB (x86's
 * COMMAND_LINE_SIZE is 2048, ppc64's 2048 too). */
#define QEMU_PERTURB_MAX 1024

/* by enum guest_arch */
extern const struct qemu_arch qemu_arches[];

/* --kernel linux-image-6.1.0-57-powerpc64le (or the ABI alone): *abi and
 * *arch; false when v is a file or no such name */
bool qemu_debian_kernel_name(const char *v, char *abi, size_t len, enum guest_arch *arch);
/* Every file of the batch: the kernels and maps of both sides (given, or
 * Debian's from the cache), busybox, the plugin, the guest runner, the
 * context-switch addresses; checks --path-length's functions.  0 or
 * -errno with the message set. */
int qemu_resolve_files(struct qemu_priv *p);
/* *slot freed and set to the formatted string (paths of any length: no
 * PATH_MAX buffer, no clamp). */
void qemu_path_set(char **slot, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The backend's set_option (backend_qemu_options.c). */
int qemu_set_option(struct lace_backend *be, const char *name, const char *value);

#endif
