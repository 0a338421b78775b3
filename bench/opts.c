#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/opts.h"
#include "util/parse_num.h"

void opts_die(const char *prog, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
	exit(2);
}

void opts_help(const char *usage)
{
	fputs(usage, stdout);
	exit(0);
}

void opts_bad_option(const char *prog, const char *usage, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		opts_die(prog, usage, "option '%s' needs an argument", arg);
	if (optopt)
		opts_die(prog, usage, "unknown option '-%c'", optopt);
	opts_die(prog, usage, "unknown option '%s'", arg);
}

/* util/parse_num.h's rules, as every lace command has them */
int opts_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long x;

	if (parse_ulong(s, &x) || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}

int opts_double(const char *s, double min, double max, double *v)
{
	double x;

	if (parse_double(s, &x) || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}
