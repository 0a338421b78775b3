/* lace: entry point, global options and command dispatch (after git.c and
 * bpftool's main.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "layout/image.h"
#include "util/error.h"
#include "util/file_probe.h"

extern const struct lace_command __start_lace_commands[];
extern const struct lace_command __stop_lace_commands[];

/* the section must exist even before any command is linked in */
LACE_COMMAND(help, .name = "help", .summary = "show help for lace or one command",
	     .usage = "usage: lace help [COMMAND]\n", .run = NULL, .order = 1000);

static size_t ncommands(void)
{
	return (size_t)(__stop_lace_commands - __start_lace_commands);
}

const struct lace_command *lace_command_find(const char *name)
{
	for (const struct lace_command *c = __start_lace_commands; c < __stop_lace_commands; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Damerau-free Levenshtein distance, enough for "did you mean". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = calloc(lb + 1, sizeof(*row));

	if (!row)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static const struct lace_command *closest_command(const char *name)
{
	const struct lace_command *best = NULL;
	size_t best_d = (size_t)-1;

	for (const struct lace_command *c = __start_lace_commands; c < __stop_lace_commands; c++) {
		size_t d = edit_distance(name, c->name);
		/* a prefix is always a good guess ("lay" -> "layout") */
		if (!strncmp(c->name, name, strlen(name)))
			d = d < 1 ? d : 1;
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	return best;
}

static int cmp_command(const void *a, const void *b)
{
	const struct lace_command *x = *(const struct lace_command *const *)a;
	const struct lace_command *y = *(const struct lace_command *const *)b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_main_usage(FILE *f)
{
	size_t n = ncommands();
	const struct lace_command **v = calloc(n ? n : 1, sizeof(*v));

	fputs("usage: lace [--version] [--help] <command> [<args>]\n\n"
	      "lace (Layout And Cache Evaluator) shows where code sits in an ELF, what moved\n"
	      "between two builds, and whether the icache/iTLB difference is real or noise.\n\n"
	      "commands:\n", f);
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = &__start_lace_commands[i];
	qsort(v, n, sizeof(*v), cmp_command);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "   %-10s %s\n", v[i]->name, v[i]->summary);
	fputs("\n'lace <command> --help' or 'lace help <command>' describes one command.\n", f);
	free(v);
}

static int unknown_command(const char *name)
{
	const struct lace_command *c = closest_command(name);

	if (c)
		fprintf(stderr, "lace: '%s' is not a lace command; did you mean '%s'? (see 'lace help')\n",
			name, c->name);
	else
		fprintf(stderr, "lace: '%s' is not a lace command (see 'lace help')\n", name);
	return LACE_EXIT_USAGE;
}

static int run_help(int argc, char **argv)
{
	if (argc < 2) {
		print_main_usage(stdout);
		return 0;
	}
	const struct lace_command *c = lace_command_find(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	lace_command_usage(c, stdout);
	return 0;
}

/* A closed standard stream must not be reused by the first open() or
 * pipe() (the runner's pipes would become lace's stdout, and a workload
 * would be "unable to start: Broken pipe").  Park /dev/full on it, so that
 * writing there fails like writing to a full disk, and remember it for the
 * message (after git's sanitize_stdfds). */
static bool stdout_closed;

static void stdfds_sanitize(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int nfd = open(fd == 0 ? "/dev/null" : "/dev/full", fd == 0 ? O_RDONLY : O_WRONLY);
		if (nfd >= 0 && nfd != fd) {
			dup2(nfd, fd);
			close(nfd);
		}
		if (fd == 1)
			stdout_closed = true;
	}
}

/* Every command's output ends here: a write error on stdout (a full disk,
 * /dev/full, a closed stdout) is one line and exit 1, whatever the command
 * returned, unless that already says failure (as git's run_builtin). */
static int stdout_finish(const char *cmd, int rc)
{
	int err = 0;

	if (fflush(stdout))
		err = errno;
	if (ferror(stdout) || err) {
		if (stdout_closed)
			fprintf(stderr, "lace: %s: writing output: standard output is closed\n", cmd);
		else if (err)
			fprintf(stderr, "lace: %s: writing output: %s\n", cmd, strerror(err));
		else /* the command flushed earlier and the errno is gone */
			fprintf(stderr, "lace: %s: writing output failed\n", cmd);
		return rc ? rc : LACE_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	stdfds_sanitize();
	/* measure/ asks what a file is through this seam, never reading ELF
	 * itself: layout/ answers */
	file_probe_set(layout_file_probe);

	/* global options come before the command, as in git */
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--version") || !strcmp(o, "-V")) {
			printf("lace version %s\n", LACE_VERSION);
			return stdout_finish("version", 0);
		}
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			print_main_usage(stdout);
			return stdout_finish("help", 0);
		}
		if (!strcmp(o, "--list-opts")) /* hidden: for the completion */
			return stdout_finish("help", lace_list_options(i + 1 < argc ? argv[i + 1] : NULL));
		fprintf(stderr, "lace: unknown option '%s' (see 'lace --help')\n", o);
		return LACE_EXIT_USAGE;
	}
	if (i >= argc) {
		print_main_usage(stderr);
		return LACE_EXIT_USAGE;
	}

	const char *name = argv[i];
	const struct lace_command *c = lace_command_find(name);
	if (!c)
		return unknown_command(name);
	/* `lace CMD --help` / `-h` anywhere before `--` prints the usage */
	for (int j = i + 1; j < argc && strcmp(argv[j], "--"); j++) {
		if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h")) {
			lace_command_usage(c, stdout);
			return stdout_finish(name, 0);
		}
	}
	if (!c->run)
		return stdout_finish(name, run_help(argc - i, argv + i));
	optind = 0; /* full getopt reset for the command's own parsing */
	return stdout_finish(name, c->run(argc - i, argv + i));
}
