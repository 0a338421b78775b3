/* Declarative command-line options (after perf's parse-options and git's):
 * one table per command says each option's names, argument, help line and
 * where its value goes.  From that one table come the getopt_long tables,
 * the number parsing (util/parse_num.h: one set of edge-case rules), the
 * option lines of the usage text and the shell completion, so the four
 * cannot drift apart.
 *
 *	static const struct lace_option opts[] = {
 *		OPT_INTEGER('r', "repeat", &repeat, 1, 1000000, "N", "run N times (default 1)"),
 *		OPT_BOOLEAN(0, "json", &json, "one JSON object on stdout"),
 *		OPT_END(),
 *	};
 *
 * Every macro takes trailing designated initializers for the optional
 * fields: .seen (a bool set when the option is given), .choices (the
 * values completion offers), .flags. */
#ifndef LACE_UTIL_PARSE_OPTIONS_H
#define LACE_UTIL_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"

enum lace_option_type {
	LACE_OPTION_END,
	LACE_OPTION_SET_BOOL,	/* *(bool *)value = defval, no argument */
	LACE_OPTION_SET_PTR,	/* *(const void **)value = (void *)defval, no argument */
	LACE_OPTION_STRING,	/* *(const char **)value = the argument */
	LACE_OPTION_STRING_LIST, /* strvec_push((struct strvec *)value, the argument) */
	LACE_OPTION_LONG,	/* *(long *)value, in [min, max] */
	LACE_OPTION_ULONG,	/* *(unsigned long *)value, decimal or 0x */
	LACE_OPTION_SIZE,	/* *(uint64_t *)value, bytes: 4096, 64K, 64M */
	LACE_OPTION_SECONDS,	/* *(double *)value, seconds: 10, 1.5, 500ms, 2m */
	LACE_OPTION_PERCENT,	/* *(double *)value, the fraction, in (dmin, dmax) percent */
	LACE_OPTION_CALLBACK,	/* callback(opt, arg); arg NULL with LACE_OPTION_NOARG */
	LACE_OPTION_INCLUDE,	/* the options include() returns, in this place */
	LACE_OPTION_GROUP,	/* a heading line in the usage, before the next options */
};

enum {
	LACE_OPTION_HIDDEN = 1 << 0, /* parsed, not listed (an old spelling) */
	LACE_OPTION_NOARG = 1 << 1,  /* a callback without an argument */
};

struct lace_option {
	enum lace_option_type type;
	int short_name;		/* 0: none */
	const char *long_name;	/* NULL: none */
	void *value;
	const char *argh;	/* the argument's name in the usage: N, FILE */
	const char *help;	/* may hold '\n' for continuation lines */
	unsigned flags;
	long min, max;		/* LACE_OPTION_LONG */
	double dmin, dmax;	/* LACE_OPTION_PERCENT */
	intptr_t defval;	/* LACE_OPTION_SET_BOOL / SET_PTR */
	bool *seen;		/* set to true when the option is given */
	const char *choices;	/* space-separated values for completion */
	/* 0, or -errno with the message set (a usage error) */
	int (*callback)(const struct lace_option *opt, const char *arg);
	const struct lace_option *(*include)(void);
};

#define OPT_END() { .type = LACE_OPTION_END }
#define OPT_BOOLEAN(s, l, v, h, ...) \
	{ .type = LACE_OPTION_SET_BOOL, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .defval = 1, __VA_ARGS__ }
#define OPT_SET_BOOL(s, l, v, b, h, ...) \
	{ .type = LACE_OPTION_SET_BOOL, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .defval = (b), __VA_ARGS__ }
#define OPT_SET_PTR(s, l, v, p, h, ...) \
	{ .type = LACE_OPTION_SET_PTR, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .defval = (intptr_t)(p), __VA_ARGS__ }
#define OPT_STRING(s, l, v, a, h, ...) \
	{ .type = LACE_OPTION_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), __VA_ARGS__ }
#define OPT_STRING_LIST(s, l, v, a, h, ...) \
	{ .type = LACE_OPTION_STRING_LIST, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), __VA_ARGS__ }
#define OPT_INTEGER(s, l, v, lo, hi, a, h, ...) \
	{ .type = LACE_OPTION_LONG, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi), __VA_ARGS__ }
#define OPT_ULONG(s, l, v, a, h, ...) \
	{ .type = LACE_OPTION_ULONG, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), __VA_ARGS__ }
#define OPT_SIZE(s, l, v, a, h, ...) \
	{ .type = LACE_OPTION_SIZE, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), __VA_ARGS__ }
#define OPT_SECONDS(s, l, v, a, h, ...) \
	{ .type = LACE_OPTION_SECONDS, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), __VA_ARGS__ }
#define OPT_PERCENT(s, l, v, lo, hi, a, h, ...) \
	{ .type = LACE_OPTION_PERCENT, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .dmin = (lo), .dmax = (hi), __VA_ARGS__ }
#define OPT_CALLBACK(s, l, v, a, h, fn, ...) \
	{ .type = LACE_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .callback = (fn), __VA_ARGS__ }
#define OPT_CALLBACK_NOARG(s, l, v, h, fn, ...) \
	{ .type = LACE_OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .callback = (fn), .flags = LACE_OPTION_NOARG, __VA_ARGS__ }
#define OPT_INCLUDE(fn) { .type = LACE_OPTION_INCLUDE, .include = (fn) }
#define OPT_GROUP(h) { .type = LACE_OPTION_GROUP, .help = (h) }

/* Stop at the first argument that is not an option (the rest is a
 * command to run: lace stat -- CMD -x), instead of permuting. */
#define PARSE_OPTIONS_STOP_AT_NON_OPTION 1u

/* Parse argv[1..] (argv[0] is the command's name) against opts.  Returns
 * the index of the first argument that is not an option (argc when none),
 * or -EINVAL with a one-line message set ("unknown option '--x'", "--repeat
 * needs a whole number >= 1, not 'x'"): a usage error. */
int parse_options(int argc, char **argv, const struct lace_option *opts, unsigned flags);

/* The usage text's option lines, one per listed option ("  -r, --repeat N
 * ... help"), help continuation lines indented under the first. */
void parse_options_usage(struct strbuf *sb, const struct lace_option *opts);

/* For completion: one line per option spelling, tab-separated: the
 * spelling ("-r", "--repeat"), the argument's name (empty when it takes
 * none) and the values it can take (space-separated, may be empty). */
void parse_options_list(struct strbuf *sb, const struct lace_option *opts);

#endif
