#include "pipeline/selfexec.h"

#include <stdbool.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/run_command.h"
#include "util/strvec.h"

const char *selfexec_path(void)
{
	const char *exe = paths_exe();

	return exe ? exe : "lace";
}

/* Run argv, stdout and stderr captured whole (echo_err: stderr also shown
 * as it comes); util/run_command.h does the work. */
static int spawn_capture(const char *const *argv, const char *const *env, bool echo_err,
			 struct selfexec_result *res)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;

	strvec_pushv(&cp.args, (const char **)argv);
	if (env)
		strvec_pushv(&cp.env, (const char **)env);
	cp.out_capture = 1;
	cp.err_capture = 1;
	cp.err_echo = echo_err;
	rc = child_process_run(&cp);
	res->exit_code = cp.exit_code;
	res->out = cp.out;
	res->err = cp.err;
	strbuf_init(&cp.out, 0);
	strbuf_init(&cp.err, 0);
	child_process_clear(&cp);
	return rc;
}

int selfexec_run(const char *const *argv, const char *const *env, bool echo_err,
		 struct selfexec_result *res)
{
	struct strvec full = STRVEC_INIT;

	strvec_push(&full, selfexec_path());
	strvec_pushv(&full, (const char **)argv);
	int rc = spawn_capture(full.v, env, echo_err, res);
	strvec_clear(&full);
	return rc;
}

int selfexec_run_prog(const char *const *argv, const char *const *env, bool echo_err,
		      struct selfexec_result *res)
{
	return spawn_capture(argv, env, echo_err, res);
}

void selfexec_result_release(struct selfexec_result *res)
{
	strbuf_release(&res->out);
	strbuf_release(&res->err);
}
