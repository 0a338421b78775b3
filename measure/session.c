/* Signals, one run with --pre/--post, small parsers; see session.h. */
#include "measure/session.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/runner.h"
#include "util/error.h"
#include "util/strbuf.h"

volatile int session_stop;

static void on_signal(int sig)
{
	if (!session_stop)
		session_stop = sig;
}

void session_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() in the runner must wake up */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a reader of our output went away: end like perf, not by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
}

int session_exit_status(void)
{
	return session_stop ? 128 + session_stop : 0;
}

/* The kernel switches a static key on when the first counter of a
 * software event (page-faults, context-switches, cpu-migrations ...) or
 * the first perf user of a tracepoint is created, and off when the last
 * one goes: code patching with an IPI to every CPU (and, for tracepoints,
 * an RCU grace period), twice per run since each run opens and closes its
 * counters.  On a VM that was most of lace's per-run CPU time (perf stat
 * pays it too).  A disabled, non-inherited copy of each such event opened
 * on lace itself for the whole batch keeps the keys on; it counts nothing
 * and changes no workload's count.  Best effort: a copy that cannot be
 * opened is skipped.  The descriptors are close-on-exec and last until lace
 * exits. */
static void pin_static_keys(const struct lace_backend_set *set)
{
	static const struct lace_backend_set *pinned;
	struct { uint32_t type; uint64_t config; } done[64];
	size_t ndone = 0;

	if (!set || pinned == set)
		return;
	pinned = set;
	for (size_t i = 0; i <= set->nevents; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (i == set->nevents) {
			/* the hw backend always counts migrations */
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_CPU_MIGRATIONS;
		} else {
			const struct lace_event_spec *ev = &set->evs[i];
			if (ev->backend != set->hw || ev->simulated)
				continue;
			if (ev->type == PERF_TYPE_SOFTWARE) {
				/* the clocks are hrtimers, not keys */
				if (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
				    ev->config == PERF_COUNT_SW_TASK_CLOCK)
					continue;
			} else if (ev->type != PERF_TYPE_TRACEPOINT) {
				continue;
			}
			a.type = ev->type;
			a.config = ev->config;
		}
		bool seen = false;
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k].type == a.type && done[k].config == a.config;
		if (seen || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone].type = a.type;
		done[ndone++].config = a.config;
		a.disabled = 1;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			a.exclude_kernel = a.exclude_hv = 1;
			fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		(void)fd; /* kept open on purpose */
	}
}

int session_run_once(struct lace_backend_set *set, char *const argv[], const char *pre,
		     const char *post, const struct lace_run_opts *opts, struct lace_run_result *res)
{
	pin_static_keys(set);
	if (pre) {
		int st = runner_shell(pre, opts);
		if (st < 0)
			return st;
		if (st != 0) {
			res->fault = LACE_FAULT_START;
			snprintf(res->fault_msg, sizeof(res->fault_msg), "--pre command exited with %d", st);
			return 0;
		}
	}
	int err = backend_set_run(set, argv, opts, res);
	if (err)
		return err;
	if (post && !session_stop) {
		int st = runner_shell(post, opts);
		if (st < 0)
			return st;
		if (st != 0 && res->fault == LACE_FAULT_NONE) {
			res->fault = LACE_FAULT_EXIT;
			snprintf(res->fault_msg, sizeof(res->fault_msg), "--post command exited with %d", st);
		}
	}
	return 0;
}

int session_output_setup(const char *where, bool report_on_stdout, bool limit_given,
			 struct lace_run_opts *opts)
{
	if (where && strcmp(where, "pipe")) {
		if (opts->show_output)
			return lace_error_set(EINVAL, "--show-output is --output=pipe shown on stderr; "
					      "it cannot go with --output=%s", where);
		if (limit_given)
			return lace_error_set(EINVAL, "--output-limit needs --output=pipe, not --output=%s",
					      where);
	}
	if (!where)
		where = opts->show_output || limit_given ? "pipe"
			: report_on_stdout		 ? "stderr"
							 : "inherit";
	int err = runner_output_set(where);
	if (err)
		return err;
	if (runner_output_get() != RUNNER_OUTPUT_PIPE)
		opts->output_limit = 0;
	return 0;
}

char *session_join_argv(char *const argv[])
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (i)
			strbuf_addch(&sb, ' ');
		if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == strlen(a)) {
			strbuf_addstr(&sb, a);
			continue;
		}
		strbuf_addch(&sb, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				strbuf_addstr(&sb, "'\\''");
			else
				strbuf_addch(&sb, *a);
		}
		strbuf_addch(&sb, '\'');
	}
	return strbuf_detach(&sb, NULL);
}

int session_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*out = v;
	return 0;
}

int session_parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}
