/* The session of one stat or ab batch, signals, one run with --pre/--post;
 * see session.h. */
#include "measure/session.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/model_results.h"
#include "measure/runner.h"
#include "util/array.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
		if (seen || ndone == ARRAY_SIZE(done))
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
		strbuf_add_sh_word(&sb, a);
	}
	return strbuf_detach(&sb, NULL);
}

void session_init(struct lace_session *s, const char *kind)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->mode = LACE_BACKEND_AUTO;
	s->ro.follow_children = true;
	s->ro.output_limit = 64ULL << 20;
	s->results = "lace-results.jsonl";
}

int session_add_backend_option(struct lace_session *s, const char *name, const char *value)
{
	size_t max = ARRAY_SIZE(s->backend_opts);

	if (s->nbackend_opts == max)
		return lace_error_set(E2BIG, "more than %zu simulator options", max);
	s->backend_opts[s->nbackend_opts].name = name;
	s->backend_opts[s->nbackend_opts++].value = value;
	return 0;
}

/* A copy of ev for the model of profile k of names (NAME@PROFILE). */
static void event_for_profile(struct lace_event_spec *out, const struct lace_event_spec *ev,
			      const char *const *names, int k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s@%s", ev->name, names[k]);
	*out = *ev;
	out->name = strbuf_detach(&sb, NULL);
	out->base = xstrdup(ev->base);
	out->profile_name = xstrdup(names[k]);
	out->profile = k;
}

/* Several CPU profiles in one run (--cpu-profile A,B): each of the model
 * host's events but instructions becomes one per profile, NAME@PROFILE;
 * an event that names its profile gets that profile's index. */
static int session_split_profiles(struct lace_session *s)
{
	struct lace_backend *host = s->set.model_host;
	const char *const *names = NULL;
	size_t n = host && host->profiles ? host->profiles(host, &names) : 0;
	struct lace_event_list out = { 0 };

	for (size_t i = 0; i < s->evl.n; i++) {
		struct lace_event_spec *ev = &s->evl.ev[i];
		bool mine = host && ev->backend == host;

		if (ev->profile_name) {
			size_t k;

			for (k = 0; k < n && strcmp(names[k], ev->profile_name); k++)
				;
			if (k == n) {
				struct strbuf sb = STRBUF_INIT;
				for (size_t j = 0; j < n; j++)
					strbuf_addf(&sb, "%s%s", j ? "," : "", names[j]);
				int err = lace_error_set(EINVAL, "%s: %s is not one of the CPU "
							 "profiles run (--cpu-profile %s)", ev->name,
							 ev->profile_name, n ? sb.buf : "NAME,...");
				strbuf_release(&sb);
				events_release(&out);
				return err;
			}
			ev->profile = (int)k;
		}
		if (n < 2 || !mine || ev->profile_name || sim_event_index(ev->base) <= 0) {
			ALLOC_GROW(out.ev, out.n + 1, out.alloc);
			out.ev[out.n++] = *ev;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			ALLOC_GROW(out.ev, out.n + 1, out.alloc);
			event_for_profile(&out.ev[out.n++], ev, names, (int)k);
		}
		event_spec_release(ev);
	}
	out.ngroups = s->evl.ngroups;
	free(s->evl.ev);
	s->evl = out;
	return 0;
}

int session_select(struct lace_session *s)
{
	int err;

	if (!s->evl.n) {
		err = events_parse(&s->evl, events_default_list);
		if (err)
			return err;
		/* marked so that an event the machine lacks is quietly
		 * <not supported> instead of a reason to stop */
		for (size_t i = 0; i < s->evl.n; i++)
			s->evl.ev[i].by_default = true;
	}
	err = backend_select(&s->set, s->mode, s->evl.ev, s->evl.n);
	if (err)
		return err;
	s->have_set = true;
	for (size_t i = 0; i < s->nbackend_opts; i++) {
		err = backend_set_option(&s->set, s->backend_opts[i].name, s->backend_opts[i].value);
		if (err)
			return err;
	}
	err = session_split_profiles(s);
	if (err)
		return err;
	events_group_hardware(&s->evl);
	return 0;
}

int session_prepare(struct lace_session *s)
{
	return backend_set_prepare(&s->set, s->evl.ev, s->evl.n);
}

void session_batch_begin(struct lace_session *s, const char *command)
{
	struct strbuf be = STRBUF_INIT;
	bool any_sim = false;

	batch_init(&s->batch, s->kind, s->evl.ev, s->evl.n);
	s->have_batch = true;
	s->batch.command = xstrdup(command);
	batch_describe_machine(&s->batch);
	for (size_t i = 0; i < s->evl.n; i++)
		any_sim |= s->evl.ev[i].simulated;
	strbuf_addstr(&be, s->set.hw->describe(s->set.hw));
	if (any_sim) {
		struct lace_backend *host = s->set.model_host;
		strbuf_addf(&be, "+%s", host->describe ? host->describe(host) : "sim");
	}
	s->batch.backend = strbuf_detach(&be, NULL);
}

static void session_warn(const struct lace_session *s, const char *subject, const char *msg)
{
	if (s->warn)
		s->warn(subject, msg);
}

int session_results_open(struct lace_session *s)
{
	if (!s->results || !batch_open(&s->batch, s->results))
		return 0;
	if (s->results_given)
		return -EIO; /* batch_open() set the message */
	/* the default file in an unwritable directory: measure anyway */
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s (no results file; --results FILE to choose one)", lace_error_msg());
	session_warn(s, NULL, sb.buf);
	strbuf_release(&sb);
	return 0;
}

void session_mark_interrupted(struct lace_run_result *res)
{
	if (session_stop && res->fault == LACE_FAULT_NONE) {
		res->fault = LACE_FAULT_INTERRUPTED;
		snprintf(res->fault_msg, sizeof(res->fault_msg), "interrupted");
	}
}

void session_record(struct lace_session *s, const struct lace_run_result *res, int round,
		    char side, bool warmup)
{
	if (batch_add_run(&s->batch, res, round, side, warmup))
		session_warn(s, s->results, lace_error_msg());
}

int session_run(struct lace_session *s, char *const argv[], int round, char side, bool warmup,
		long boot, struct lace_run_result *res)
{
	if (!s->ro.stop)
		s->ro.stop = &session_stop;
	s->ro.side = side;
	s->ro.boot = boot;
	s->err = session_run_once(&s->set, argv, s->pre, s->post, &s->ro, res);
	if (s->err)
		return s->err;
	session_mark_interrupted(res);
	session_record(s, res, round, side, warmup);
	return 0;
}

void session_batch_end(struct lace_session *s)
{
	if (batch_close(&s->batch, session_stop != 0))
		session_warn(s, s->results, lace_error_msg());
}

int session_status(const struct lace_session *s)
{
	if (session_stop)
		return 128 + session_stop;
	return s->err ? LACE_EXIT_FAIL : LACE_EXIT_OK;
}

void session_release(struct lace_session *s)
{
	if (s->have_batch)
		batch_release(&s->batch);
	if (s->have_set)
		backend_set_release(&s->set);
	events_release(&s->evl);
	s->have_batch = s->have_set = false;
}
