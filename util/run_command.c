#include "util/run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/xalloc.h"

extern char **environ;

void child_process_init(struct child_process *cp)
{
	static const struct child_process blank = CHILD_PROCESS_INIT;

	*cp = blank;
}

char **child_process_env_build(const char *const *extra)
{
	size_t n = 0, m = 0, k = 0;

	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = xcalloc(n + m + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < m && !replaced; j++) {
			const char *eq = strchr(extra[j], '=');
			size_t kl = eq ? (size_t)(eq - extra[j]) + 1 : strlen(extra[j]);

			replaced = !strncmp(environ[i], extra[j], kl);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* What the child reports on the status pipe before it _exits: which step
 * failed and its errno.  Nothing comes when exec worked (close-on-exec). */
enum { STEP_CHDIR = 1, STEP_EXEC = 2 };

static void child_fail(int fd, int step)
{
	int msg[2] = { step, errno };
	ssize_t w = write(fd, msg, sizeof(msg));

	(void)w;
	_exit(127);
}

/* where one of the child's stdout/stderr goes: capture pipe, /dev/null,
 * the log, or left alone (-1) */
static int target_fd(int capture_wr, bool to_null, int null_fd, int log_fd)
{
	if (capture_wr >= 0)
		return capture_wr;
	if (to_null)
		return null_fd;
	return log_fd;
}

int child_process_start(struct child_process *cp)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, st[2] = { -1, -1 };
	int null_fd = -1, log_fd = -1, e, rc = 0;
	char *prog = NULL;
	char **env = NULL;

	cp->exit_code = -1;
	cp->pid = 0;
	if (!cp->args.nr)
		return lace_error_set(EINVAL, "cannot run a program: no command");
	/* a name with a '/' is exec'd as it is (relative to dir, in the
	 * child); PATH is searched here, before fork, not in the child */
	if (strchr(cp->args.v[0], '/'))
		prog = xstrdup(cp->args.v[0]);
	else if (paths_find_program(cp->args.v[0], &prog))
		return lace_error_set(ENOENT, "cannot run %s: %s", cp->args.v[0], strerror(ENOENT));
	if ((cp->out_null || cp->err_null) &&
	    (null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		rc = lace_error_set(errno, "/dev/null: %s", strerror(errno));
	if (!rc && cp->log &&
	    (log_fd = open(cp->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		rc = lace_error_set(errno, "%s: cannot open: %s", cp->log, strerror(errno));
	if (!rc && ((cp->out_capture && pipe2(out, O_CLOEXEC)) ||
		    (cp->err_capture && pipe2(err, O_CLOEXEC)) || pipe2(st, O_CLOEXEC)))
		rc = lace_error_set(errno, "pipe: %s", strerror(errno));
	if (rc)
		goto out;
	env = child_process_env_build(cp->env.v);

	int out_to = target_fd(out[1], cp->out_null, null_fd, log_fd);
	int err_to = target_fd(err[1], cp->err_null, null_fd, log_fd);
	pid_t pid = fork();
	if (pid == 0) {
		/* only async-signal-safe calls from here on */
		if ((out_to >= 0 && dup2(out_to, 1) < 0) || (err_to >= 0 && dup2(err_to, 2) < 0))
			child_fail(st[1], STEP_EXEC);
		if (cp->dir && chdir(cp->dir))
			child_fail(st[1], STEP_CHDIR);
		execve(prog, (char *const *)cp->args.v, env);
		child_fail(st[1], STEP_EXEC);
	}
	if (pid < 0) {
		rc = lace_error_set(errno, "fork: %s", strerror(errno));
		goto out;
	}
	close_fd(&st[1]);
	close_fd(&out[1]);
	close_fd(&err[1]);

	/* the status pipe closes at exec (nothing read) or brings the step
	 * that failed */
	int msg[2];
	ssize_t n;
	do
		n = read(st[0], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(msg)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		e = msg[1];
		if (msg[0] == STEP_CHDIR)
			rc = lace_error_set(e, "cannot run %s in %s: %s", cp->args.v[0], cp->dir,
					    strerror(e));
		else
			rc = lace_error_set(e, "cannot run %s: %s", cp->args.v[0], strerror(e));
		goto out;
	}
	cp->pid = pid;
	cp->out_fd = out[0];
	cp->err_fd = err[0];
	out[0] = err[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		close_fd(&out[i]);
		close_fd(&err[i]);
		close_fd(&st[i]);
	}
	close_fd(&null_fd);
	close_fd(&log_fd);
	free(env);
	free(prog);
	return rc;
}

/* keep only the last err_tail bytes (twice that before trimming, so a
 * long stderr is not moved on every read) */
static void err_trim(struct child_process *cp, size_t keep)
{
	if (!cp->err_tail || cp->err.len <= keep)
		return;
	memmove(cp->err.buf, cp->err.buf + cp->err.len - cp->err_tail, cp->err_tail);
	strbuf_setlen(&cp->err, cp->err_tail);
}

static void kill_reap(struct child_process *cp)
{
	if (cp->pid <= 0)
		return;
	kill(cp->pid, SIGKILL);
	while (waitpid(cp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	cp->pid = 0;
}

static int drain(struct child_process *cp)
{
	struct pollfd pf[2] = { { cp->out_fd, POLLIN, 0 }, { cp->err_fd, POLLIN, 0 } };
	char buf[65536];

	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return lace_error_set(errno, "poll: %s", strerror(errno));
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(pf[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close_fd(i ? &cp->err_fd : &cp->out_fd);
				pf[i].fd = -1;
				continue;
			}
			strbuf_add(i ? &cp->err : &cp->out, buf, (size_t)n);
			if (i && cp->err_echo) {
				ssize_t w = write(2, buf, (size_t)n);
				(void)w;
			}
			if (i)
				err_trim(cp, 2 * cp->err_tail);
		}
	}
	return 0;
}

int child_process_finish(struct child_process *cp)
{
	int rc = drain(cp), status;

	close_fd(&cp->out_fd);
	close_fd(&cp->err_fd);
	err_trim(cp, cp->err_tail);
	if (rc) {
		kill_reap(cp);
		return rc;
	}
	while (waitpid(cp->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = lace_error_set(errno, "waitpid: %s", strerror(errno));
			kill_reap(cp);
			return rc;
		}
	}
	cp->pid = 0;
	cp->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

int child_process_run(struct child_process *cp)
{
	int rc = child_process_start(cp);

	return rc ? rc : child_process_finish(cp);
}

const char *child_process_err_line(struct child_process *cp)
{
	return strbuf_last_line(&cp->err);
}

int child_process_run_ok(struct child_process *cp, const char *what)
{
	int rc = child_process_run(cp);
	const char *line;

	if (rc || !cp->exit_code)
		return rc;
	if (cp->log)
		return lace_error_set(EIO, "%s failed (see %s)", what, cp->log);
	line = cp->err_capture ? child_process_err_line(cp) : "";
	return lace_error_set(EIO, "%s failed (exit %d)%s%s", what, cp->exit_code,
			      *line ? ": " : "", line);
}

void child_process_clear(struct child_process *cp)
{
	kill_reap(cp);
	close_fd(&cp->out_fd);
	close_fd(&cp->err_fd);
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
	strbuf_release(&cp->out);
	strbuf_release(&cp->err);
	cp->exit_code = -1;
}

pid_t run_forked(int (*fn)(void *data), void *data)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return lace_error_set(errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		int rc = fn(data);
		fflush(NULL);
		_exit(rc);
	}
	return pid;
}
