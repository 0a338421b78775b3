/* The guest of the qemu backend: an initramfs lace builds itself from
 * Debian's busybox-static of the guest's architecture (the shell and
 * tools, installed as links by busybox itself at boot: the host cannot
 * run a foreign busybox to list them), lace's window runner
 * (lace-guest-run, built for that architecture), the workload and an
 * init script that mounts /proc, /sys and /dev, runs the workload LOOPS
 * times in one measurement window, prints its status on the console and
 * powers off (x86: the isa-debug-exit port ends QEMU with the status at
 * once).  An x86-64 workload is a host program, copied with the shared
 * libraries `ldd` names, at the same paths; a ppc64le one must be static.
 * Only the ELF header is read here (the machine and whether there is an
 * interpreter). */
#ifndef LACE_QEMU_GUEST_H
#define LACE_QEMU_GUEST_H

#include <stdbool.h>
#include <stddef.h>

enum guest_arch {
	GUEST_X86_64 = 0,
	GUEST_PPC64LE,
};

struct guest_spec {
	enum guest_arch arch;
	const char *busybox;     /* host path of a static busybox for the guest */
	const char *runner;      /* host path of lace-guest-run */
	char *const *argv;       /* the workload; argv[0] looked up in PATH */
	unsigned loops;          /* runs of the workload per window */
	const char *trace;       /* SYS:NAME,... counted in the guest, or NULL */
};

/* The architecture of a kernel to boot: an x86 bzImage (vmlinuz: the boot
 * header's "HdrS" at 0x202) is GUEST_X86_64, a little-endian ppc64 ELF
 * executable (vmlinux) GUEST_PPC64LE.  -1 with the message set (naming
 * path and what it is instead) when path cannot be read or is neither:
 * any other file, an x86-64 ELF (QEMU boots the bzImage), an object
 * file, an ELF of another machine. */
int guest_kernel_arch(const char *path);
/* "x86_64" / "ppc64le": the cache folder and the user's word. */
const char *guest_arch_name(enum guest_arch arch);

/* Where the guest's busybox links its applets.  A workload named
 * GUEST_APPLET_DIR/NAME (/lace/bin/sh, /lace/bin/true) runs that applet:
 * nothing is copied from the host, so a ppc64le guest can run a shell. */
#define GUEST_APPLET_DIR "/lace/bin"
bool guest_is_applet(const char *argv0);

/* Write the initramfs (uncompressed newc cpio) to out.  0 or -errno with
 * the message set. */
int guest_initramfs_build(const struct guest_spec *g, const char *out);

/* What the guest printed on its console about the window: the
 * workload's status and the tracepoint counts, in the order of
 * guest_spec.trace ("lace-guest: status N", "lace-guest: event SYS:NAME
 * COUNT" or "... error WHY"), and which kernel ran ("lace-guest: kernel
 * RELEASE BUILD-ID"). */
#define GUEST_MAX_TRACE 16
struct guest_report {
	bool has_status;
	int status;
	char release[96];        /* uname -r in the guest, "" if not said */
	char build_id[132];      /* the kernel's GNU build-id (hex), "" if none */
	size_t nevents;
	struct {
		bool ok;
		unsigned long long count;
		char why[96];
	} ev[GUEST_MAX_TRACE];
};

/* Read the console file; a missing file or line leaves the fields unset. */
void guest_report_read(const char *console, struct guest_report *r);

/* The status QEMU exits with when the guest reports workload status st
 * through isa-debug-exit ((st << 1) | 1), and back: -1 when code is not
 * such a report (QEMU failed, or the guest powered off without one). */
static inline int guest_status_from_exit(int code)
{
	return code & 1 ? code >> 1 : -1;
}

#endif
