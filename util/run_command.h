/* run_command: start one helper program and wait for it (after git's
 * run-command.h): the one way lace runs a program that is not the
 * measured workload (compilers, make, ldd, --version probes, lace
 * itself).  The measured workload goes through measure/runner.c, which
 * adds process groups, pinning, timeouts and fault records; several
 * helpers at once go through util/run.h's pool, which starts each here.
 *
 *	struct child_process cp = CHILD_PROCESS_INIT;
 *	strvec_pushv(&cp.args, (const char *[]){ "cc", "--version", NULL });
 *	cp.out_capture = 1;
 *	err = child_process_run(&cp);   // cp.exit_code, cp.out
 *	child_process_clear(&cp);
 *
 * stdin is inherited.  stdout and stderr go, each, to: a strbuf
 * (*_capture), /dev/null (*_null), the log file (appended), or lace's own.
 * Errors follow util/error.h; a program that ran and failed is not an
 * error of these functions but an exit_code. */
#ifndef LACE_RUN_COMMAND_H
#define LACE_RUN_COMMAND_H

#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"
#include "util/strvec.h"

struct child_process {
	struct strvec args;    /* args.v[0] is looked up in PATH unless it holds a '/' */
	struct strvec env;     /* "NAME=VALUE" added to lace's environment (replacing NAME) */
	const char *dir;       /* the child's working folder; NULL: lace's */
	const char *log;       /* stdout and stderr not captured or discarded are
				* appended here; NULL: lace's own */
	unsigned out_capture : 1; /* stdout into out */
	unsigned out_null : 1;    /* stdout to /dev/null */
	unsigned err_capture : 1; /* stderr into err (its last err_tail bytes when set) */
	unsigned err_null : 1;    /* stderr to /dev/null */
	unsigned err_echo : 1;    /* a captured stderr also copied to lace's, as it comes */
	size_t err_tail;          /* with err_capture: keep only this many bytes (0: all) */
	struct strbuf out, err;
	pid_t pid;             /* set by child_process_start, 0 once waited for */
	int exit_code;         /* exit status, or 128 + signal; -1 until finished */
	int out_fd, err_fd;    /* the capture pipes' read ends (private) */
};
#define CHILD_PROCESS_INIT { STRVEC_INIT, STRVEC_INIT, NULL, NULL, 0, 0, 0, 0, 0, 0, \
			     STRBUF_INIT, STRBUF_INIT, 0, -1, -1, -1 }

void child_process_init(struct child_process *cp);
/* Start the program.  Returns only once it has exec'd: 0, or -errno with
 * "cannot run PROG: reason" when it could not be started (not found, not
 * executable, dir missing), with nothing left running. */
int child_process_start(struct child_process *cp);
/* Read the captured output to its end and wait; exit_code is set.  0, or
 * -errno when reading or waiting failed: the child is then killed and
 * reaped, never left behind. */
int child_process_finish(struct child_process *cp);
/* start + finish.  0 (whatever the exit code) or -errno. */
int child_process_run(struct child_process *cp);
/* child_process_run(), and a non-zero exit is an error too: -EIO with
 * "WHAT failed (exit N)", then ": <the last line of the captured stderr>"
 * or " (see LOG)".  For helpers whose failure ends the task at hand. */
int child_process_run_ok(struct child_process *cp, const char *what);
/* The last non-empty line of the captured stderr ("" when none): the one
 * that says why, for a one-line message. */
const char *child_process_err_line(struct child_process *cp);
/* lace's environment with extra's "NAME=VALUE" strings (NULL-terminated;
 * NULL: none) replacing or added: the array to free(), the strings
 * borrowed.  Built before fork, as the child may only make
 * async-signal-safe calls; measure/runner.c builds its workload's here
 * too. */
char **child_process_env_build(const char *const *extra);
/* Free everything; cp is reusable after child_process_init().  A child
 * still running is killed and reaped. */
void child_process_clear(struct child_process *cp);

/* fn(data) in a forked copy of lace, which then ends with fn's return
 * value through _exit(), so the parent's atexit work and stdio buffers
 * are not done twice (lace's are flushed before the fork).  git's
 * start_async without threads: for work that must run beside lace with
 * lace's state, such as one run of a batch (measure/session_jobs.c).  The
 * child's pid, for the caller to wait for, or -errno (message set). */
pid_t run_forked(int (*fn)(void *data), void *data);

#endif
