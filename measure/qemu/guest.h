/* The guest of the qemu backend: an initramfs lace builds itself from
 * Debian's busybox-static (the shell and tools), lace's window runner
 * (build/qemu/lace-guest-run), the workload (a host program, copied with
 * the shared libraries `ldd` names, at the same paths) and an init script
 * that mounts /proc, /sys and /dev, runs the workload LOOPS times in
 * one measurement window and ends QEMU with the workload's status (the
 * isa-debug-exit port).  Nothing here reads ELF: ldd does. */
#ifndef LACE_QEMU_GUEST_H
#define LACE_QEMU_GUEST_H

struct guest_spec {
	const char *busybox;     /* host path of a static busybox for the guest */
	const char *runner;      /* host path of lace-guest-run */
	char *const *argv;       /* the workload; argv[0] looked up in PATH */
	unsigned loops;          /* runs of the workload per window */
};

/* Write the initramfs (uncompressed newc cpio) to out.  0 or -errno with
 * the message set. */
int guest_initramfs_build(const struct guest_spec *g, const char *out);

/* The status QEMU exits with when the guest reports workload status st
 * through isa-debug-exit ((st << 1) | 1), and back: -1 when code is not
 * such a report (QEMU failed, or the guest powered off without one). */
static inline int guest_status_from_exit(int code)
{
	return code & 1 ? code >> 1 : -1;
}

#endif
