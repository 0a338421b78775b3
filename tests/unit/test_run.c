/* util/run: the job pool runs `true`/`false`/shell jobs at most N at a
 * time, reports the first failure (exit status, missing program, bad
 * folder), starts nothing after it, appends each job's output to its log
 * and calls the progress function once per job plus once at the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/run.h"
#include "util/strbuf.h"

struct progress {
	size_t calls, last_done, total, ends;
};

static void count_progress(void *data, size_t done, size_t total, int end)
{
	struct progress *p = data;

	if (end) {
		p->ends++;
		return;
	}
	p->calls++;
	assert_int_equal(done, p->last_done + 1);
	p->last_done = done;
	p->total = total;
}

static struct run_job *add(struct run_pool *p, const char *cmd, const char *log)
{
	struct run_job *j = run_pool_add(p, NULL, log, cmd);

	strvec_split(&j->argv, cmd);
	return j;
}

static void test_all_succeed(void **state)
{
	struct run_pool p = RUN_POOL_INIT;
	struct progress pr = { 0 };

	for (int i = 0; i < 7; i++)
		add(&p, "true", NULL);
	assert_int_equal(run_pool_run(&p, 3, count_progress, &pr), -1);
	assert_int_equal(pr.calls, 7);
	assert_int_equal(pr.total, 7);
	assert_int_equal(pr.ends, 1);
	for (size_t i = 0; i < p.nr; i++) {
		assert_int_equal(p.jobs[i].state, RUN_DONE);
		assert_true(WIFEXITED(p.jobs[i].status) && !WEXITSTATUS(p.jobs[i].status));
	}
	run_pool_clear(&p);
	assert_int_equal(p.nr, 0);
}

/* one at a time: the failure is job 1 and jobs 2.. never start */
static void test_failure_stops_the_queue(void **state)
{
	struct run_pool p = RUN_POOL_INIT;
	struct progress pr = { 0 };

	add(&p, "true", NULL);
	add(&p, "false", NULL);
	add(&p, "true", NULL);
	add(&p, "true", NULL);
	assert_int_equal(run_pool_run(&p, 1, count_progress, &pr), 1);
	assert_int_equal(p.jobs[0].state, RUN_DONE);
	assert_int_equal(p.jobs[1].state, RUN_DONE);
	assert_int_equal(WEXITSTATUS(p.jobs[1].status), 1);
	assert_int_equal(p.jobs[2].state, RUN_PENDING);
	assert_int_equal(p.jobs[3].state, RUN_PENDING);
	assert_int_equal(pr.calls, 2);
	assert_int_equal(pr.ends, 1);
	run_pool_clear(&p);
}

/* in parallel, those already running are still waited for */
static void test_parallel_failure_waits(void **state)
{
	struct run_pool p = RUN_POOL_INIT;

	add(&p, "sleep 0.2", NULL);
	add(&p, "false", NULL);
	add(&p, "true", NULL);
	assert_int_equal(run_pool_run(&p, 2, NULL, NULL), 1);
	assert_int_equal(p.jobs[0].state, RUN_DONE);
	assert_int_equal(p.jobs[0].status, 0);
	assert_int_equal(p.jobs[2].state, RUN_PENDING);
	run_pool_clear(&p);
}

static void test_logs_and_messages(void **state)
{
	char dir[] = "/tmp/lace-test-run-XXXXXX";
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct run_pool p = RUN_POOL_INIT;
	struct run_job *j;

	assert_non_null(mkdtemp(dir));
	strbuf_addf(&log, "%s/job.log", dir);
	j = run_pool_add(&p, dir, log.buf, "writing");
	strvec_split(&j->argv, "sh -c");
	strvec_push(&j->argv, "pwd; echo to-stderr >&2");
	j = run_pool_add(&p, NULL, log.buf, "step two");
	strvec_split(&j->argv, "sh -c");
	strvec_push(&j->argv, "echo second; exit 3");
	assert_int_equal(run_pool_finish(&p, 1, NULL, NULL), -EIO);
	assert_non_null(strstr(lace_error_msg(), "step two failed (see "));
	assert_non_null(strstr(lace_error_msg(), "/job.log)"));
	assert_int_equal(strbuf_read_file(&text, log.buf), 0);
	assert_non_null(strstr(text.buf, dir));          /* ran in cwd */
	assert_non_null(strstr(text.buf, "to-stderr\n")); /* stderr too */
	assert_non_null(strstr(text.buf, "second\n"));    /* appended */
	run_pool_clear(&p);

	/* a program that does not exist and a folder that does not: 127 */
	add(&p, "/nonexistent/lace-no-such-program", log.buf);
	assert_int_equal(run_pool_run(&p, 4, NULL, NULL), 0);
	assert_int_equal(WEXITSTATUS(p.jobs[0].status), 127);
	run_pool_clear(&p);
	j = run_pool_add(&p, "/nonexistent/dir", NULL, "no folder");
	strvec_push(&j->argv, "true");
	assert_int_equal(run_pool_finish(&p, 1, NULL, NULL), -EIO);
	assert_string_equal(lace_error_msg(), "no folder failed");
	/* an empty argv is a failure, not a crash */
	run_pool_clear(&p);
	run_pool_add(&p, NULL, NULL, "empty");
	assert_int_equal(run_pool_run(&p, 1, NULL, NULL), 0);
	run_pool_clear(&p);

	unlink(log.buf);
	rmdir(dir);
	strbuf_release(&log);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_succeed),
		cmocka_unit_test(test_failure_stops_the_queue),
		cmocka_unit_test(test_parallel_failure_waits),
		cmocka_unit_test(test_logs_and_messages),
	};
	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}
