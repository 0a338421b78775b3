/* The command table.
 *
 * Each cli/cmd_<name>.c defines its command with LACE_COMMAND(); the entries
 * land in one linker section that lace.c walks (the way the kernel collects
 * initcalls), so adding a command touches only its own file.  `lace help`
 * lists them in `order`, then by name. */
#ifndef LACE_CLI_COMMAND_H
#define LACE_CLI_COMMAND_H

#include <stdio.h>

struct lace_option;

struct lace_command {
	const char *name;
	const char *summary; /* one line for `lace help` */
	/* `lace <name> --help`: usage, then (with options) the option lines
	 * generated from the table, then usage_tail; each ends in \n */
	const char *usage;
	const struct lace_option *options; /* util/parse_options.h; may be NULL */
	const char *usage_tail;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	int order;           /* position in the help listing */
};

#define LACE_COMMAND(ident, ...)                                                    \
	static const struct lace_command lace_cmd_##ident                           \
		__attribute__((used, section("lace_commands"), aligned(sizeof(void *)))) = \
		{ __VA_ARGS__ }

const struct lace_command *lace_command_find(const char *name);
/* Print the usage of cmd to f. */
void lace_command_usage(const struct lace_command *cmd, FILE *f);
/* Parse a command's options with its table (util/parse_options.h); a
 * usage error is printed as one line.  The index of the first operand, or
 * -1 (exit LACE_EXIT_USAGE). */
int lace_parse_options(const char *cmd, int argc, char **argv, const struct lace_option *opts,
		       unsigned flags);
/* `lace --list-opts CMD` (hidden, for the bash completion): the options
 * of CMD's table, one spelling a line, tab-separated with the argument's
 * name and its values (util/parse_options.h); an exit status. */
int lace_list_options(const char *name);

/* Shared option helpers: print "lace: <cmd>: <msg>" plus a hint and return
 * LACE_EXIT_USAGE, for a command's getopt loop. */
int lace_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An output-format flag (--json, --md, --csv, -x): sets *fmt to want and
 * remembers the flag in *given; a second, different flag is a usage error
 * ("--json and --md exclude each other"), so no flag silently wins.
 * lace_format_set() records it (-EINVAL, for an option callback),
 * lace_format_flag() prints it and returns LACE_EXIT_USAGE. */
int lace_format_set(int *fmt, const char **given, int want, const char *flag);
int lace_format_flag(const char *cmd, int *fmt, const char **given, int want, const char *flag);

/* getopt_long's optstring must begin with ':' so we can name the bad option;
 * call this for '?' and ':' returns. */
int lace_bad_option(const char *cmd, int c, char **argv);

#endif
