/* The guest side of the qemu backend: run a command N times, each run
 * inside a measurement window (the marker instructions of
 * measure/qemu/tcg_core.h, which lace's TCG plugin recognises), so boot,
 * init and this program's own start never count.
 *
 *   lace-guest-run [--exit-port] LOOPS CMD [ARG...]
 *
 * One window holds LOOPS runs of CMD (vfork, exec, wait).  vfork, not
 * fork, and a stack touched before the window opens: no copy-on-write or
 * stack-growth fault then hits this program's user code inside the window,
 * so its share of instructions:u is a constant (a fault in the middle of a
 * translated block makes the plugin count the block's rest twice; with
 * fork the faults, and so the count, moved with the sizes of argv and
 * environ: doc/events.md).  The status is the last failing run's (0 when
 * all ran well).  With --exit-port it is written to QEMU's isa-debug-exit
 * port (0xf4), which ends QEMU at once with exit code (status << 1) | 1:
 * the host learns how the workload ended, and no shutdown runs.  Static: the guest has no libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/wait.h>
#include <unistd.h>

/* the bytes of tcg_mark_open_x86 / tcg_mark_close_x86 */
static inline void window_open(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x4f, 0x43, 0x41, 0x4c" ::: "memory");
}

static inline void window_close(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x41, 0x4c" ::: "memory");
}

/* fault in the stack the vfork child and waitpid will use */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 0;
}

/* vfork and exec CMD: the child borrows this stack until it execs */
static pid_t __attribute__((noinline)) spawn(char **cmd)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int loops, rc = 0, port = 0;

	if (argc > 1 && !strcmp(argv[1], "--exit-port")) {
		port = 1;
		argv++;
		argc--;
	}
	if (argc < 3 || (loops = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: lace-guest-run [--exit-port] LOOPS CMD [ARG...]\n");
		return 2;
	}
	touch_stack();
	window_open();
	for (int i = 0; i < loops; i++) {
		int st;
		pid_t pid = spawn(argv + 2);

		if (pid < 0 || waitpid(pid, &st, 0) < 0) {
			rc = 126;
			break;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	window_close();
	if (rc)
		fprintf(stderr, "lace-guest-run: %s: status %d\n", argv[2], rc);
	if (port && !ioperm(0xf4, 1, 1))
		outb((unsigned char)(rc > 127 ? 127 : rc), 0xf4);
	return rc;
}
