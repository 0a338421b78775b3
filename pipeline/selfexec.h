/* Run lace's own commands as child processes and capture their output.
 *
 * `lace check` and `lace study` drive `lace build/diff/stat/ab` through the
 * same interfaces a user script would (their documented JSON), so each
 * command stays the single owner of its logic and its output format. */
#ifndef LACE_PIPELINE_SELFEXEC_H
#define LACE_PIPELINE_SELFEXEC_H

#include <stdbool.h>

#include <jansson.h>

#include "util/strbuf.h"

struct selfexec_result {
	int exit_code;   /* exit status, or 128+signal */
	struct strbuf out;
	struct strbuf err;
};

/* Path of the running lace binary (util/paths.h), or "lace" when unknown. */
const char *selfexec_path(void);

/* Run `lace argv...` (argv NULL-terminated, without the program name),
 * capturing stdout into res->out and stderr into res->err (also copied to our
 * stderr when echo_err).  Extra environment "K=V" strings in env (NULL-ended,
 * may be NULL) are added.  Returns 0 when the child could be run (whatever
 * its exit code) or -errno. */
int selfexec_run(const char *const *argv, const char *const *env, bool echo_err,
		 struct selfexec_result *res);
/* Same for an arbitrary program (argv[0] is looked up in PATH). */
int selfexec_run_prog(const char *const *argv, const char *const *env, bool echo_err,
		      struct selfexec_result *res);
void selfexec_result_release(struct selfexec_result *res);

/* The line that says why a run failed: the last line of its stderr, or
 * "no output" when it printed nothing there. */
const char *selfexec_why(struct selfexec_result *res);
/* Append "NAME exited N: <selfexec_why()>" to why: how every caller
 * explains a failed run of lace or of a helper program, in one line. */
void selfexec_explain(struct selfexec_result *res, const char *name, struct strbuf *why);
/* The same for a run whose status and stderr are known otherwise (a job
 * of a plan, read back from its files); err's trailing blanks are cut. */
void selfexec_explain_exit(int exit_code, struct strbuf *err, const char *name, struct strbuf *why);
/* Run `lace argv...` and parse its stdout as JSON: the document (the
 * caller's to free), or NULL with the reason appended to why ("lace diff
 * exited 2: ...", "lace diff printed unreadable JSON: ...", or why it
 * could not run).  An exit status above max_exit is a failure (1 where a
 * found regression still prints its report). */
json_t *selfexec_json(const char *const *argv, const char *const *env, int max_exit,
		      struct strbuf *why);

#endif
