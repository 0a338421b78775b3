/* The guest side of the qemu backend: run a command N times, each run
 * inside a measurement window (the marker instructions of
 * measure/qemu/tcg_core.h, which lace's TCG plugin recognises), so boot,
 * init and this program's own start never count.
 *
 *   lace-guest-run LOOPS CMD [ARG...]
 *
 * One window holds LOOPS runs of CMD (fork, exec, wait).  Prints the exit
 * status of each run that failed on stderr and exits with the last failing
 * status (0 when all ran well).  Static: the guest has no libc. */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	int loops, rc = 0;

	if (argc < 3 || (loops = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: lace-guest-run LOOPS CMD [ARG...]\n");
		return 2;
	}
	window_open();
	for (int i = 0; i < loops; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0) {
			execvp(argv[2], argv + 2);
			_exit(127);
		}
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
	return rc;
}
