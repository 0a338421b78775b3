/* The guest side of the qemu backend: run a command N times, each run
 * inside a measurement window (the marker instructions of
 * measure/qemu/tcg_core.h, which lace's TCG plugin recognises), so boot,
 * init and this program's own start never count.
 *
 *   lace-guest-run [--exit-port] [--trace SYS:NAME,...] LOOPS CMD [ARG...]
 *
 * One window holds LOOPS runs of CMD (vfork, exec, wait).  vfork, not
 * fork, and a stack touched before the window opens: no copy-on-write or
 * stack-growth fault then hits this program's user code inside the window,
 * so its share of instructions:u is a constant (a fault in the middle of a
 * translated block makes the plugin count the block's rest twice; with
 * fork the faults, and so the count, moved with the sizes of argv and
 * environ: doc/events.md).  The status is
 * the last failing run's (0 when all ran well); it is printed on the
 * console as "lace-guest: status N", and with --exit-port (x86 only) also
 * written to QEMU's isa-debug-exit port (0xf4), which ends QEMU at once
 * with exit code (status << 1) | 1.
 *
 * The runs have no address-space randomization (personality
 * ADDR_NO_RANDOMIZE, as setarch -R): where the stack lands would change
 * the program's own path from one execution to the next.
 *
 * --trace counts the guest kernel's tracepoints over the window by the
 * kernel's own means: a perf counter (inherited by the runs) when the
 * kernel has perf events, else the ftrace ring buffer (a large one,
 * counted line by line, an overrun reported rather than undercounted).
 * Each prints "lace-guest: event SYS:NAME COUNT". Enabling happens
 * outside the window: the window sees the tracepoint enabled.
 * Static: the guest has no libc. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <sys/io.h>
#endif

#include "util/elf_note.h"

/* the markers of tcg_core.h */
static inline void window_open(void)
{
#if defined(__powerpc64__)
	__asm__ volatile(".p2align 3\n\txori 0,0,0x4f43\n\txori 0,0,0x4f43" ::: "memory");
#else
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x4f, 0x43, 0x41, 0x4c" ::: "memory");
#endif
}

static inline void window_close(void)
{
#if defined(__powerpc64__)
	__asm__ volatile(".p2align 3\n\txori 0,0,0x4343\n\txori 0,0,0x4343" ::: "memory");
#else
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x41, 0x4c" ::: "memory");
#endif
}

#define TRACEFS "/sys/kernel/tracing"
#define MAX_TP 16

struct tp {
	char name[128];      /* SYS:NAME */
	char path[256];      /* TRACEFS/events/SYS/NAME */
	int fd;              /* perf counter, or -1: ftrace */
	long long count;
	const char *err;
};

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -1 : 0;
}

static long long read_ll(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? atoll(buf) : -1;
}

static int tp_setup(struct tp *t, const char *spec)
{
	const char *colon = strchr(spec, ':');
	struct perf_event_attr a;
	char idpath[300];
	long long id;

	snprintf(t->name, sizeof(t->name), "%s", spec);
	t->fd = -1;
	if (!colon || strchr(spec, '/'))
		return t->err = "not SYS:NAME", -1;
	snprintf(t->path, sizeof(t->path), TRACEFS "/events/%.*s/%s", (int)(colon - spec), spec,
		 colon + 1);
	snprintf(idpath, sizeof(idpath), "%s/enable", t->path);
	if (access(idpath, W_OK))
		return t->err = "no such tracepoint in this kernel", -1;
	/* the id file exists only with perf events: without, ftrace counts */
	snprintf(idpath, sizeof(idpath), "%s/id", t->path);
	id = read_ll(idpath);
	if (id < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.disabled = 1;
	a.inherit = 1;
	t->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	return 0;
}

/* ftrace: a buffer for a few million events, emptied */
static int ftrace_prepare(void)
{
	if (write_file(TRACEFS "/buffer_size_kb", "131072") && write_file(TRACEFS "/buffer_size_kb", "16384"))
		return -1;
	return write_file(TRACEFS "/trace", "");
}

static void tp_enable(struct tp *t, int on)
{
	char p[300];

	if (t->fd >= 0) {
		ioctl(t->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
		return;
	}
	snprintf(p, sizeof(p), "%s/enable", t->path);
	if (write_file(p, on ? "1" : "0"))
		t->err = "cannot enable it in tracefs";
}

/* count the ftrace events of every tracepoint counted that way */
static void ftrace_count(struct tp *tps, int n)
{
	char line[1024], key[160];
	long long overrun = -1;
	FILE *f = fopen(TRACEFS "/per_cpu/cpu0/stats", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "overrun: ", 9))
			overrun = atoll(line + 9);
	if (f)
		fclose(f);
	f = fopen(TRACEFS "/trace", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (int i = 0; i < n; i++) {
			if (tps[i].fd >= 0 || tps[i].err)
				continue;
			snprintf(key, sizeof(key), " %s: ", strchr(tps[i].name, ':') + 1);
			if (strstr(line, key))
				tps[i].count++;
		}
	}
	if (f)
		fclose(f);
	for (int i = 0; i < n; i++)
		if (tps[i].fd < 0 && !tps[i].err && (!f || overrun != 0))
			tps[i].err = !f ? "cannot read the trace" : "the trace buffer overflowed";
}

/* "lace-guest: kernel RELEASE BUILD-ID": which kernel this was, for the
 * results file (the build-id from the kernel's own notes, whatever file
 * format it was booted from) */
static void report_kernel(void)
{
	unsigned char notes[4096];
	char id[2 * 64 + 1] = "-";
	struct utsname u;
	ssize_t n = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY);

	if (fd >= 0) {
		n = read(fd, notes, sizeof(notes));
		close(fd);
	}
	if (n <= 0 || !elf_note_build_id(notes, (size_t)n, id, sizeof(id)))
		strcpy(id, "-");
	if (!uname(&u))
		printf("lace-guest: kernel %s %s\n", u.release, id);
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
	struct tp tps[MAX_TP];
	int loops, rc = 0, port = 0, ntp = 0, ftrace = 0;

	for (;;) {
		if (argc > 1 && !strcmp(argv[1], "--exit-port")) {
			port = 1;
			argv++;
			argc--;
		} else if (argc > 2 && !strcmp(argv[1], "--trace")) {
			char *s = argv[2], *tok;

			mkdir(TRACEFS, 0755);
			mount("tracefs", TRACEFS, "tracefs", 0, NULL);
			for (tok = strtok(s, ","); tok && ntp < MAX_TP; tok = strtok(NULL, ",")) {
				memset(&tps[ntp], 0, sizeof(tps[ntp]));
				if (!tp_setup(&tps[ntp], tok) && tps[ntp].fd < 0)
					ftrace = 1;
				ntp++;
			}
			argv += 2;
			argc -= 2;
		} else {
			break;
		}
	}
	if (argc < 3 || (loops = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: lace-guest-run [--exit-port] [--trace SYS:NAME,...] LOOPS CMD [ARG...]\n");
		return 2;
	}
	/* The workload's stack, mmap base and vDSO where they were in every
	 * other boot (setarch -R): with randomization, a perturbed boot's
	 * entropy moved the stack, and a string of argv or environ that
	 * landed in a page's last 48 bytes sent glibc's strlen down its
	 * page-cross path, 16 more user instructions in 1 boot of 40.  A
	 * perturbation is to change timing, not the program's path. */
	personality(ADDR_NO_RANDOMIZE);
	/* before the tracepoints are on: its faults are not the workload's */
	touch_stack();
	if (ftrace && ftrace_prepare())
		for (int i = 0; i < ntp; i++)
			if (tps[i].fd < 0 && !tps[i].err)
				tps[i].err = "cannot set up the trace buffer";
	for (int i = 0; i < ntp; i++)
		if (!tps[i].err)
			tp_enable(&tps[i], 1);
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
	for (int i = 0; i < ntp; i++)
		if (!tps[i].err)
			tp_enable(&tps[i], 0);
	if (ftrace)
		ftrace_count(tps, ntp);
	for (int i = 0; i < ntp; i++) {
		if (!tps[i].err && tps[i].fd >= 0 &&
		    read(tps[i].fd, &tps[i].count, sizeof(tps[i].count)) != sizeof(tps[i].count))
			tps[i].err = "cannot read the perf counter";
		if (tps[i].err)
			printf("lace-guest: event %s error %s\n", tps[i].name, tps[i].err);
		else
			printf("lace-guest: event %s %lld\n", tps[i].name, tps[i].count);
	}
	if (rc)
		fprintf(stderr, "lace-guest-run: %s: status %d\n", argv[2], rc);
	report_kernel();
	printf("lace-guest: status %d\n", rc);
	fflush(stdout);
#if defined(__x86_64__)
	if (port && !ioperm(0xf4, 1, 1))
		outb((unsigned char)(rc > 127 ? 127 : rc), 0xf4);
#else
	(void)port;
#endif
	return rc;
}
