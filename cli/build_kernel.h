/* lace build kernel ARCH (alias: lace build --kernel ARCH): the kernel
 * builds' own subcommand of lace build, with its own option table; the
 * printing side of variants/kernel_build.c. */
#ifndef LACE_CLI_BUILD_KERNEL_H
#define LACE_CLI_BUILD_KERNEL_H

#include <stdbool.h>

/* argv[0] is "kernel"; an exit status, errors already printed. */
int build_kernel_run(int argc, char **argv);
/* `lace build --kernel ARCH ...`, the older spelling that kernel/module.mk
 * and pipeline/kstudy/kstudy.c use: when argv has --kernel (or -K), run it as
 * `lace build kernel ARCH ...` and return true with the status in *rc. */
bool build_kernel_alias(int argc, char **argv, int *rc);

#endif
