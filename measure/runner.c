/* Start, release, watch and classify one workload run.  See runner.h. */
#include "measure/runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/parse_num.h"
#include "util/run_command.h"
#include "util/time.h"

extern char **environ;

static int cpu_list_parse(const char *list, cpu_set_t *set)
{
	const char *p = list;

	CPU_ZERO(set);
	if (!*p)
		return -EINVAL;
	while (*p) {
		size_t n = strspn(p, "0123456789");
		uint64_t lo, hi;
		if (parse_u64_n(p, n, &lo) || lo >= CPU_SETSIZE)
			return -EINVAL;
		hi = lo;
		p += n;
		if (*p == '-') {
			n = strspn(++p, "0123456789");
			if (parse_u64_n(p, n, &hi) || hi < lo || hi >= CPU_SETSIZE)
				return -EINVAL;
			p += n;
		}
		for (uint64_t c = lo; c <= hi; c++)
			CPU_SET((int)c, set);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int runner_cpu_list_check(const char *list)
{
	cpu_set_t set, online;

	if (cpu_list_parse(list, &set))
		return lace_error_set(EINVAL, "bad CPU list '%s' (expected e.g. 0-3,6)", list);
	if (!sched_getaffinity(0, sizeof(online), &online)) {
		CPU_AND(&set, &set, &online);
		if (!CPU_COUNT(&set))
			return lace_error_set(EINVAL, "CPU list '%s' names no CPU this process may use", list);
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Where workloads write (runner_output_set); the descriptor for null/FILE
 * is opened once, close-on-exec, and dup'ed onto 1 and 2 in each child.
 * Until set: the pipe, which keeps lace's stdout clean for a caller that
 * does not choose (lace stat and lace ab choose inherit by default). */
static enum runner_output out_mode = RUNNER_OUTPUT_PIPE;
static int out_file_fd = -1;
static int devnull_in = -1; /* stdin of every run, opened once */

int runner_output_set(const char *where)
{
	enum runner_output mode;
	int fd = -1;

	if (!where || !*where)
		return lace_error_set(EINVAL, "--output needs stderr, inherit, null, pipe or a file name");
	if (!strcmp(where, "stderr"))
		mode = RUNNER_OUTPUT_STDERR;
	else if (!strcmp(where, "inherit"))
		mode = RUNNER_OUTPUT_INHERIT;
	else if (!strcmp(where, "pipe"))
		mode = RUNNER_OUTPUT_PIPE;
	else if (!strcmp(where, "null"))
		mode = RUNNER_OUTPUT_NULL;
	else
		mode = RUNNER_OUTPUT_FILE;
	if (mode == RUNNER_OUTPUT_NULL || mode == RUNNER_OUTPUT_FILE) {
		const char *path = mode == RUNNER_OUTPUT_NULL ? "/dev/null" : where;
		/* FILE: emptied once per batch, every run appends */
		int flags = O_WRONLY | O_CLOEXEC |
			    (mode == RUNNER_OUTPUT_FILE ? O_CREAT | O_TRUNC | O_APPEND : 0);
		fd = open(path, flags, 0666);
		if (fd < 0)
			return lace_error_set(errno, "--output: %s: %s", where, strerror(errno));
	}
	close_fd(&out_file_fd);
	out_file_fd = fd;
	out_mode = mode;
	return 0;
}

enum runner_output runner_output_get(void)
{
	return out_mode;
}

/* The output of one run: --show-output is the pipe, forwarded to stderr. */
static enum runner_output run_output(const struct lace_run_opts *opts)
{
	return opts->show_output ? RUNNER_OUTPUT_PIPE : out_mode;
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void child_main(char *const argv[], char **envp, const struct lace_run_opts *opts,
		       int go_rd, int out_wr, int err_wr)
{
	char byte;
	cpu_set_t set;
	struct sigaction sa;
	sigset_t none;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	/* only what lace itself changed (session.c); exec resets handlers */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	if (opts->stdin_path) {
		int in = open(opts->stdin_path, O_RDONLY);
		if (in >= 0 && in != 0) {
			dup2(in, 0);
			close(in);
		}
	} else if (devnull_in >= 0) {
		dup2(devnull_in, 0);
	}
	/* out_wr: the pipe, lace's stderr, or the null/FILE descriptor (close-on-exec, so
	 * not closed here); -1 = inherit lace's stdout and stderr */
	if (out_wr >= 0) {
		dup2(out_wr, 1);
		dup2(out_wr, 2);
	}
	if (opts->cpu_list && !cpu_list_parse(opts->cpu_list, &set))
		sched_setaffinity(0, sizeof(set), &set);
	/* wait for go: counters get attached to us meanwhile */
	if (read(go_rd, &byte, 1) != 1)
		_exit(127);
	close(go_rd);
	/* the environment was built before fork (util/run_command.h);
	 * argv[0] is searched in lace's PATH, as execvp does */
	execvpe(argv[0], argv, envp);
	int e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int runner_start(struct lace_child *c, char *const argv[], const char *const *env,
		 const struct lace_run_opts *opts)
{
	static pid_t subreaper; /* the process that asked: fork does not pass it on */
	int go[2], out[2] = { -1, -1 }, err[2];
	enum runner_output mode = run_output(opts);

	memset(c, 0, sizeof(*c));
	c->go_fd = c->out_fd = c->pidfd = c->err_fd = -1;
	if (!argv || !argv[0])
		return lace_error_set(EINVAL, "no command to run");
	/* orphans of the workload come back to us, see runner_wait */
	if (subreaper != getpid() && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
		subreaper = getpid();
	if (devnull_in < 0)
		devnull_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (pipe2(go, O_CLOEXEC))
		return lace_error_set(errno, "pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC)) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return lace_error_set(e, "pipe: %s", strerror(e));
	}
	if (mode == RUNNER_OUTPUT_PIPE && pipe2(out, O_CLOEXEC)) {
		int e = errno;
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return lace_error_set(e, "pipe: %s", strerror(e));
	}
	char **envp = env ? child_process_env_build(env) : environ;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		if (env)
			free(envp);
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		close_fd(&out[0]);
		close_fd(&out[1]);
		return lace_error_set(e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		if (out[0] >= 0)
			close(out[0]);
		child_main(argv, envp, opts, go[0],
			   mode == RUNNER_OUTPUT_PIPE      ? out[1]
			   : mode == RUNNER_OUTPUT_STDERR  ? STDERR_FILENO
			   : mode == RUNNER_OUTPUT_INHERIT ? -1
							   : out_file_fd,
			   err[1]);
	}
	if (env)
		free(envp);
	setpgid(pid, pid); /* also here: no race with a kill(-pid) */
	close(go[0]);
	close(err[1]);
	close_fd(&out[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->out_fd = out[0];
	c->err_fd = err[0];
	if (c->out_fd >= 0)
		fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
#ifdef SYS_pidfd_open
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	return 0;
}

int runner_go(struct lace_child *c)
{
	char byte = 'g';

	c->exec_errno = 0;
	c->t_go = time_now_s();
	if (write(c->go_fd, &byte, 1) != 1) {
		return lace_error_set(errno, "cannot start the workload: %s", strerror(errno));
	}
	close_fd(&c->go_fd);
	/* Whether exec worked is read in runner_wait once the child is gone:
	 * waiting for it here would cost lace a sleep and a wake-up per run. */
	return 0;
}

/* After the child ended: an errno on the close-on-exec pipe means exec
 * failed; EOF means it succeeded.  The write end is closed by then, so
 * this does not block. */
static void read_exec_status(struct lace_child *c)
{
	int e = 0;
	ssize_t n;

	if (c->err_fd < 0)
		return;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&c->err_fd);
	if (n == (ssize_t)sizeof(e))
		c->exec_errno = e;
}

void runner_abort(struct lace_child *c)
{
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
	}
	close_fd(&c->go_fd);
	close_fd(&c->out_fd);
	close_fd(&c->pidfd);
	close_fd(&c->err_fd);
}

/* Read what is there; forward it when asked.  Returns 0 at EOF, 1 if more
 * may come. */
static int drain(struct lace_child *c, const struct lace_run_opts *opts, uint64_t *bytes)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(c->out_fd, buf, sizeof(buf));
		if (n > 0) {
			*bytes += (uint64_t)n;
			if (opts->show_output && write(2, buf, (size_t)n) < 0)
				errno = 0; /* our stderr is gone: keep counting */
			if (opts->output_limit && *bytes > opts->output_limit)
				return 1;
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		return 1; /* EAGAIN */
	}
}

static bool child_exited(struct lace_child *c)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == c->pid;
}

static void kill_group(struct lace_child *c)
{
	kill(-c->pid, SIGKILL);
}

/* Processes whose parent is us (orphans we reaped as subreaper), other than
 * pid `except`. */
static int count_our_children(pid_t except, bool kill_them)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[64], buf[512];
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid == except)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) S ppid ...": comm may hold spaces and ')' */
		char *rp = strrchr(buf, ')');
		char state;
		int ppid;
		if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
			continue;
		if (ppid != self || state == 'Z')
			continue;
		n++;
		if (kill_them)
			kill(pid, SIGKILL);
	}
	closedir(d);
	return n;
}

/* Reap what has exited; true when children remain. */
static bool reap_orphans(void)
{
	pid_t w;

	while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
		;
	return w == 0;
}

int runner_wait(struct lace_child *c, const struct lace_run_opts *opts, struct lace_run_result *res)
{
	bool timed_out = false, flood = false, stopped = false, out_open = c->out_fd >= 0;
	double deadline = opts->timeout_s > 0 ? c->t_go + opts->timeout_s : 0;
	uint64_t bytes = 0;
	int status = 0;
	struct rusage ru;

	for (;;) {
		/* with a pidfd, poll says when the child is gone; without,
		 * look every 20 ms */
		if (c->pidfd < 0 && child_exited(c))
			break;
		if (opts->stop && *opts->stop && !stopped) {
			stopped = true;
			kill_group(c);
		}
		double now = time_now_s();
		if (deadline && now >= deadline && !timed_out) {
			timed_out = true;
			kill_group(c);
		}
		struct pollfd pf[2];
		int np = 0, out_i = -1, pid_i = -1;
		if (out_open) {
			out_i = np;
			pf[np++] = (struct pollfd){ .fd = c->out_fd, .events = POLLIN };
		}
		if (c->pidfd >= 0) {
			pid_i = np;
			pf[np++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
		}
		int ms = c->pidfd >= 0 ? 1000 : 20;
		if (deadline && !timed_out) {
			double left = (deadline - now) * 1000.0 + 1;
			if (left < ms)
				ms = (int)left;
		}
		if (np == 0) {
			usleep((useconds_t)ms * 1000);
			continue;
		}
		int r = poll(pf, (nfds_t)np, ms);
		if (r < 0 && errno != EINTR)
			return lace_error_set(errno, "poll: %s", strerror(errno));
		if (r > 0 && out_i >= 0 && pf[out_i].revents) {
			if (!drain(c, opts, &bytes)) {
				out_open = false;
				close_fd(&c->out_fd);
			} else if (opts->output_limit && bytes > opts->output_limit && !flood) {
				flood = true;
				kill_group(c);
			}
		}
		if (r > 0 && pid_i >= 0 && pf[pid_i].revents)
			break;
	}
	pid_t w;
	do
		w = wait4(c->pid, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	res->elapsed_s = time_now_s() - c->t_go;
	if (w < 0)
		return lace_error_set(errno, "wait4: %s", strerror(errno));

	/* what the workload wrote just before it exited */
	if (out_open && drain(c, opts, &bytes) && opts->output_limit && bytes > opts->output_limit)
		flood = true;
	close_fd(&c->out_fd);
	close_fd(&c->pidfd);
	read_exec_status(c);

	/* leftovers: group members still alive, or orphans reparented to us.
	 * Scanning /proc is costly, so first ask the kernel cheaply: does the
	 * group still exist, and do we have any child at all? */
	int left = 0;
	bool group_alive = false, have_children = false;
	/* children killed by the workload just before it exited may still be
	 * dying: give them 40 ms before calling them left behind */
	for (int i = 0; i < 20; i++) {
		have_children = reap_orphans();
		group_alive = kill(-c->pid, 0) == 0 || errno == EPERM;
		if (!group_alive && !have_children)
			break;
		usleep(2000);
	}
	if (group_alive || have_children) {
		left = count_our_children(-1, false);
		if (left == 0 && group_alive)
			left = 1; /* members whose parent is another member */
	}
	if (left) {
		kill(-c->pid, SIGKILL);
		count_our_children(-1, true);
		/* give them a moment to die, then reap */
		for (int i = 0; i < 50 && count_our_children(-1, false); i++)
			usleep(2000);
		reap_orphans();
	}
	c->pid = 0;

	res->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
	res->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	res->ctx_switches = ru.ru_nvcsw + ru.ru_nivcsw;
	res->max_rss_kb = ru.ru_maxrss;
	res->output_bytes = bytes;
	res->timed_out = timed_out;
	res->leftover = left;
	res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	res->fault = LACE_FAULT_NONE;
	res->fault_msg[0] = '\0';
	if (stopped) {
		res->fault = LACE_FAULT_INTERRUPTED;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "interrupted");
	} else if (timed_out) {
		res->fault = LACE_FAULT_TIMEOUT;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "timed out after %gs", opts->timeout_s);
	} else if (flood) {
		res->fault = LACE_FAULT_FLOOD;
		snprintf(res->fault_msg, sizeof(res->fault_msg),
			 "output flood: more than %llu bytes", (unsigned long long)opts->output_limit);
	} else if (c->exec_errno) {
		res->fault = LACE_FAULT_START;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "cannot run: %s", strerror(c->exec_errno));
	} else if (res->term_signal) {
		res->fault = LACE_FAULT_SIGNAL;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "killed by SIG%s",
			 sigabbrev_np(res->term_signal) ? sigabbrev_np(res->term_signal) : "?");
	} else if (res->exit_status != 0) {
		res->fault = LACE_FAULT_EXIT;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "exit status %d", res->exit_status);
	} else if (left) {
		res->fault = LACE_FAULT_LEFTOVER;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "left %d process%s behind", left,
			 left == 1 ? "" : "es");
	}
	return 0;
}

int runner_run(struct lace_child *c, const struct lace_run_opts *opts,
	       struct lace_run_result *res)
{
	int err = runner_go(c);

	if (!err)
		err = runner_wait(c, opts, res);
	if (err)
		runner_abort(c);
	return err;
}

int runner_shell(const char *cmd, const struct lace_run_opts *opts)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	struct lace_child c;
	struct lace_run_result res;
	struct lace_run_opts o = *opts;
	int err;

	memset(&res, 0, sizeof(res));
	o.output_limit = 0;
	if ((err = runner_start(&c, argv, NULL, &o)))
		return err;
	if ((err = runner_run(&c, &o, &res)))
		return err;
	if (res.term_signal)
		return 128 + res.term_signal;
	return res.exit_status;
}
