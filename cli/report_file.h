/* -o FILE of lace stat and lace ab: the report goes to a file instead of
 * stdout, as perf stat's -o/--output does.  (lace's --output WHERE is the
 * workload's output, hyperfine's meaning, so -o's long form is
 * --output-file.)  The file is checked when the options are read, so a bad
 * path fails before any run, but it is emptied only when the report is
 * written: a batch that fails to start leaves the previous report alone. */
#ifndef LACE_CLI_REPORT_FILE_H
#define LACE_CLI_REPORT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct report_file {
	const char *path; /* NULL: stdout */
	bool append;      /* --append: add to the file, as perf's */
	int fd;
	FILE *f;
};

#define REPORT_FILE_INIT { .fd = -1 }

/* Open path for writing without emptying it; a usage error (one line,
 * LACE_EXIT_USAGE) when it cannot be opened, else 0. */
int report_file_open(struct report_file *r, const char *cmd, const char *path, bool append);
/* The stream to render the report on: stdout, or the file emptied (unless
 * append) with perf's "# started on DATE" line for text and CSV. */
FILE *report_file_begin(struct report_file *r, bool started_line);
/* Close the file: 0, or one line on stderr and LACE_EXIT_FAIL for a write
 * error (stdout is checked by main()). */
int report_file_finish(struct report_file *r, const char *cmd);

#endif
