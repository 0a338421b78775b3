/* opts: option handling shared by the workloads.
 *
 * The workloads are standalone programs (not lace commands), so they print
 * their own usage: `--help` prints it on stdout and exits 0; any invalid
 * argument prints "<prog>: <what is wrong>" and the usage on stderr and
 * exits 2 (as lace does for usage errors). */
#ifndef LACE_BENCH_OPTS_H
#define LACE_BENCH_OPTS_H

#include <stdint.h>

/* Exit 2 after "<prog>: <msg>" and the usage text, both on stderr. */
__attribute__((noreturn, format(printf, 3, 4)))
void opts_die(const char *prog, const char *usage, const char *fmt, ...);
/* Print the usage text on stdout and exit 0. */
__attribute__((noreturn)) void opts_help(const char *usage);
/* For getopt_long's '?' and ':' returns (optstring must start with ':'). */
__attribute__((noreturn))
void opts_bad_option(const char *prog, const char *usage, int c, char **argv);

/* Parse a decimal (or 0x hex) integer in [min, max]; 0 or -1. */
int opts_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v);
/* Parse a finite number in [min, max]; 0 or -1. */
int opts_double(const char *s, double min, double max, double *v);

#endif
