/* The launcher of lace's Valgrind tool: what valgrind's own launcher
 * (coregrind/launcher-linux.c) does for a tool installed next to it, without
 * VALGRIND_LIB.
 *
 * Why: valgrind's launcher finds a tool outside /usr/libexec/valgrind only
 * through VALGRIND_LIB, and the core hands that variable on to the client.
 * One more environment variable changes what the client's start-up code
 * does (glibc scans the environment, the stack moves), so lace's counts
 * would differ from cachegrind's on the same program by a few hundred
 * instructions.  Started by this launcher, the core keeps its default
 * library folder (/usr/libexec/valgrind, where it finds
 * vgpreload_core-amd64-linux.so as cachegrind does) and the client sees the
 * environment cachegrind's client sees.
 *
 * build/vg/lace-valgrind is Debian's /usr/bin/valgrind wrapper script
 * (linked, so it runs "$0.bin": this program) where that wrapper exists, so
 * that the client also gets the variables the wrapper sets. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL_FILE "lace-vg-amd64-linux"

int main(int argc, char **argv)
{
	char self[PATH_MAX], tool[PATH_MAX + sizeof(TOOL_FILE)];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	(void)argc;
	if (n <= 0) {
		fprintf(stderr, "lace-valgrind: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	snprintf(tool, sizeof(tool), "%.*s/" TOOL_FILE, (int)(slash - self), self);
	/* the core re-executes this launcher for children it follows
	 * (--trace-children=yes) and removes the variable from the client's
	 * environment, as it does for valgrind's launcher */
	if (setenv("VALGRIND_LAUNCHER", self, 1)) {
		fprintf(stderr, "lace-valgrind: setenv: %s\n", strerror(errno));
		return 1;
	}
	execv(tool, argv);
	fprintf(stderr, "lace-valgrind: cannot run %s: %s\n", tool, strerror(errno));
	return 1;
}
