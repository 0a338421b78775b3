/* What every command shares around its options: the usage text (with the
 * option lines generated from the command's table), parsing with that
 * table, usage errors as one line, output-format flags, and the option
 * list the bash completion reads. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "util/error.h"
#include "util/parse_options.h"
#include "util/strbuf.h"

void lace_command_usage(const struct lace_command *cmd, FILE *f)
{
	fputs(cmd->usage, f);
	if (cmd->options) {
		struct strbuf sb = STRBUF_INIT;
		parse_options_usage(&sb, cmd->options);
		fputs(sb.buf, f);
		strbuf_release(&sb);
	}
	if (cmd->usage_tail)
		fputs(cmd->usage_tail, f);
}

int lace_parse_options(const char *cmd, int argc, char **argv, const struct lace_option *opts,
		       unsigned flags)
{
	int i = parse_options(argc, argv, opts, flags);

	if (i < 0) {
		lace_usage_error(cmd, "%s", lace_error_msg());
		return -1;
	}
	return i;
}

/* `lace --list-opts CMD`, for the bash completion: the options of CMD's
 * table, one spelling a line with its argument's name and values
 * (util/parse_options.h); a command without a table lists nothing. */
int lace_list_options(const char *name)
{
	const struct lace_command *c = name ? lace_command_find(name) : NULL;
	struct strbuf sb = STRBUF_INIT;

	if (!c) {
		fprintf(stderr, "lace: --list-opts needs a command\n");
		return LACE_EXIT_USAGE;
	}
	if (c->options)
		parse_options_list(&sb, c->options);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
	return 0;
}

int lace_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "lace: %s: %s (see 'lace %s --help')\n", cmd, msg, cmd);
	return LACE_EXIT_USAGE;
}

int lace_format_set(int *fmt, const char **given, int want, const char *flag)
{
	if (*given && strcmp(*given, flag))
		return lace_error_set(EINVAL, "%s and %s exclude each other", *given, flag);
	*given = flag;
	*fmt = want;
	return 0;
}

int lace_format_flag(const char *cmd, int *fmt, const char **given, int want, const char *flag)
{
	if (lace_format_set(fmt, given, want, flag))
		return lace_usage_error(cmd, "%s", lace_error_msg());
	return 0;
}

int lace_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return lace_usage_error(cmd, "option '%s' needs a value", arg);
	if (optopt && optopt != '?')
		return lace_usage_error(cmd, "unknown option '-%c'", optopt);
	return lace_usage_error(cmd, "unknown option '%s'", arg);
}
