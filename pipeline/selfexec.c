#include "pipeline/selfexec.h"

#include <stdbool.h>

#include "util/error.h"
#include "util/json.h"
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

static const char *why_of(struct strbuf *err)
{
	const char *last = strbuf_last_line(err);

	return *last ? last : "no output";
}

const char *selfexec_why(struct selfexec_result *res)
{
	return why_of(&res->err);
}

void selfexec_explain_exit(int exit_code, struct strbuf *err, const char *name, struct strbuf *why)
{
	strbuf_addf(why, "%s exited %d: %s", name, exit_code, why_of(err));
}

void selfexec_explain(struct selfexec_result *res, const char *name, struct strbuf *why)
{
	selfexec_explain_exit(res->exit_code, &res->err, name, why);
}

json_t *selfexec_json(const char *const *argv, const char *const *env, int max_exit,
		      struct strbuf *why)
{
	struct selfexec_result r;
	struct strbuf name = STRBUF_INIT;
	json_error_t je;
	json_t *j = NULL;

	strbuf_addf(&name, "lace %s", argv[0]);
	if (selfexec_run(argv, env, false, &r) < 0) {
		strbuf_addstr(why, lace_error_msg());
	} else if (r.exit_code < 0 || r.exit_code > max_exit) {
		selfexec_explain(&r, name.buf, why);
	} else if (!(j = json_loads(r.out.buf, 0, &je))) {
		if (r.out.len)
			strbuf_addf(why, "%s printed unreadable JSON: %s", name.buf, je.text);
		else
			selfexec_explain(&r, name.buf, why);
	}
	selfexec_result_release(&r);
	strbuf_release(&name);
	return j;
}
