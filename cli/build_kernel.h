/* lace build --kernel ARCH: the printing side of variants/kernel_build.c. */
#ifndef LACE_CLI_BUILD_KERNEL_H
#define LACE_CLI_BUILD_KERNEL_H

#include "util/strvec.h"

struct build_kernel_opts {
	const char *arch;          /* NULL with list: every arch */
	const struct strvec *names;  /* variants; empty: all of the arch */
	unsigned long shuffle, seed;
	const char *out;           /* NULL: build/kernels */
	int jobs;
	int list;
};

/* An exit status; errors already printed. */
int build_kernel(const struct build_kernel_opts *o);

#endif
