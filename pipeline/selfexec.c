#include "pipeline/selfexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strvec.h"
#include "util/xalloc.h"

extern char **environ;

const char *selfexec_path(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n <= 0)
			strcpy(path, "lace");
		else
			path[n] = '\0';
	}
	return path;
}

static char **build_env(const char *const *extra)
{
	size_t n = 0, m = 0;

	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = xcalloc(n + m + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		/* an extra K=V replaces an inherited K */
		bool replaced = false;
		for (size_t j = 0; j < m; j++) {
			const char *eq = strchr(extra[j], '=');
			size_t kl = eq ? (size_t)(eq - extra[j]) + 1 : strlen(extra[j]);
			if (!strncmp(environ[i], extra[j], kl))
				replaced = true;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

static int spawn_capture(const char *prog, char *const *argv, const char *const *extra_env,
			 bool use_path, bool echo_err, struct selfexec_result *res)
{
	int out[2], err[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	strbuf_init(&res->out, 0);
	strbuf_init(&res->err, 0);
	res->exit_code = -1;
	if (pipe2(out, O_CLOEXEC) < 0)
		return lace_error_set(errno, "pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close(out[0]);
		close(out[1]);
		return lace_error_set(e, "pipe: %s", strerror(e));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	char **env = build_env(extra_env);
	rc = use_path ? posix_spawnp(&pid, prog, &fa, NULL, argv, env)
		      : posix_spawn(&pid, prog, &fa, NULL, argv, env);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (rc) {
		close(out[0]);
		close(err[0]);
		return lace_error_set(rc, "cannot run %s: %s", prog, strerror(rc));
	}

	struct pollfd pf[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
	int open_fds = 2;
	char buf[65536];
	while (open_fds) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(pf[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			strbuf_add(i ? &res->err : &res->out, buf, (size_t)n);
			if (i && echo_err) {
				ssize_t w = write(2, buf, (size_t)n);
				(void)w;
			}
		}
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return lace_error_set(errno, "waitpid: %s", strerror(errno));
	}
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

int selfexec_run(const char *const *argv, const char *const *env, bool echo_err,
		 struct selfexec_result *res)
{
	struct strvec full = STRVEC_INIT;

	strvec_push(&full, "lace");
	strvec_pushv(&full, (const char **)argv);
	int rc = spawn_capture(selfexec_path(), (char *const *)full.v, env, false, echo_err, res);
	strvec_clear(&full);
	return rc;
}

int selfexec_run_prog(const char *const *argv, const char *const *env, bool echo_err,
		      struct selfexec_result *res)
{
	return spawn_capture(argv[0], (char *const *)argv, env, true, echo_err, res);
}

void selfexec_result_release(struct selfexec_result *res)
{
	strbuf_release(&res->out);
	strbuf_release(&res->err);
}
