/* The perf_event_open backend: counting as `perf stat` does.
 *
 * Counters are attached to the forked workload while it waits for its go
 * signal (runner.c), disabled, with enable_on_exec and inherit, so they
 * count exactly the exec'd command and every child and thread it creates,
 * and nothing of lace.  Hardware events of one group share a leader so
 * their ratios come from the same time slices; each counter is still read
 * on its own fd (a group read is not allowed together with inherit on the
 * kernels we support) with TOTAL_TIME_ENABLED/RUNNING so multiplexed
 * counts are scaled and flagged, as perf does. */
#include "measure/backend.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/events.h"
#include "measure/runner.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct hw_state {
	struct lace_event_spec *evs;
	size_t nevents;
	char why[256];
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void attr_from_spec(struct perf_event_attr *a, const struct lace_event_spec *ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel;
	a->exclude_hv = ev->exclude_hv;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* A sentence for an open that failed with err, as perf's
 * evsel__open_strerror says it. */
static void explain(char *buf, size_t len, const struct lace_event_spec *ev, int err)
{
	int paranoid = 2;

	switch (err) {
	case EACCES:
	case EPERM:
		events_paranoid(&paranoid);
		snprintf(buf, len,
			 "no permission (kernel.perf_event_paranoid=%d; as non-root only user-space "
			 "counting of your own processes is allowed at 2 and tracepoints need root "
			 "or CAP_PERFMON: run as root or 'sysctl kernel.perf_event_paranoid=-1')",
			 paranoid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, len, ev->hardware ? "not supported by this CPU (no PMU or no such event; a virtual machine often has none)"
						: "not supported by this kernel");
		break;
	case EINVAL:
		snprintf(buf, len, "the kernel rejected the event encoding (EINVAL)");
		break;
	case EMFILE:
		snprintf(buf, len, "too many open files (raise 'ulimit -n')");
		break;
	default:
		snprintf(buf, len, "perf_event_open: %s", strerror(err));
	}
}

static bool hw_supports(struct lace_backend *be, const struct lace_event_spec *ev, const char **why)
{
	struct hw_state *st = be->priv;
	struct perf_event_attr a;

	if (ev->kind == LACE_EV_TOOL)
		return true; /* filled from the runner's clock after the run */
	if (ev->kind == LACE_EV_SIM_ONLY) {
		snprintf(st->why, sizeof(st->why), "not a hardware event (only the simulator knows it)");
		*why = st->why;
		return false;
	}
	attr_from_spec(&a, ev);
	a.disabled = 1;
	long fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		/* perf's fallback: user space only when the kernel is off limits */
		a.exclude_kernel = a.exclude_hv = 1;
		fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0) {
		explain(st->why, sizeof(st->why), ev, errno);
		*why = st->why;
		return false;
	}
	close((int)fd);
	return true;
}

static int hw_prepare(struct lace_backend *be, struct lace_event_spec *evs, size_t nevents)
{
	struct hw_state *st = be->priv;

	st->evs = evs;
	st->nevents = nevents;
	return 0;
}

struct open_counter {
	int fd;
	size_t idx; /* event index, or (size_t)-1 for the internal migrations counter */
};

static void read_counter(int fd, struct lace_count *c)
{
	uint64_t v[3];

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		c->status = LACE_COUNT_NOT_COUNTED;
		return;
	}
	c->raw = v[0];
	c->time_enabled = v[1];
	c->time_running = v[2];
	if (!c->time_running) {
		/* opened but never on the PMU: perf's <not counted> */
		c->status = LACE_COUNT_NOT_COUNTED;
		c->value = 0;
		return;
	}
	c->status = LACE_COUNT_OK;
	c->value = c->time_running < c->time_enabled
			   ? (double)c->raw * (double)c->time_enabled / (double)c->time_running
			   : (double)c->raw;
}

static int hw_run(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts,
		  struct lace_run_result *res)
{
	struct hw_state *st = be->priv;
	struct lace_child child;
	struct open_counter *oc = xcalloc(st->nevents + 1, sizeof(*oc));
	size_t noc = 0;
	int err, leader_of[64];
	bool have_migrations = false;

	for (size_t g = 0; g < 64; g++)
		leader_of[g] = -1;
	err = runner_start(&child, argv, NULL, opts);
	if (err) {
		free(oc);
		return err;
	}
	for (size_t i = 0; i < st->nevents; i++) {
		const struct lace_event_spec *ev = &st->evs[i];
		struct perf_event_attr a;
		int g = ev->group >= 0 && ev->group < 64 ? ev->group : -1;
		int group_fd = g >= 0 ? leader_of[g] : -1;

		if (ev->backend != be || ev->kind == LACE_EV_TOOL)
			continue;
		attr_from_spec(&a, ev);
		a.inherit = opts->follow_children;
		if (group_fd < 0) {
			a.disabled = 1;
			a.enable_on_exec = 1;
		}
		long fd = sys_perf_event_open(&a, child.pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
			a.exclude_kernel = a.exclude_hv = 1;
			fd = sys_perf_event_open(&a, child.pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0 && group_fd >= 0) {
			/* cannot join the group (too many counters): count it alone */
			a.disabled = 1;
			a.enable_on_exec = 1;
			fd = sys_perf_event_open(&a, child.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		res->counts[i].status = LACE_COUNT_NOT_SUPPORTED;
		if (fd < 0)
			continue;
		res->counts[i].status = LACE_COUNT_NOT_COUNTED;
		if (g >= 0 && group_fd < 0)
			leader_of[g] = (int)fd;
		oc[noc++] = (struct open_counter){ (int)fd, i };
		if (ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_CPU_MIGRATIONS &&
		    !ev->exclude_kernel && !ev->exclude_user)
			have_migrations = true;
	}
	if (!have_migrations) {
		/* for flagging runs that migrated more than the batch's norm */
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_MIGRATIONS;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		a.enable_on_exec = 1;
		a.inherit = opts->follow_children;
		long fd = sys_perf_event_open(&a, child.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			oc[noc++] = (struct open_counter){ (int)fd, (size_t)-1 };
	}

	err = runner_run(&child, opts, res);
	res->migrations = -1;
	for (size_t i = 0; i < st->nevents && !err; i++) {
		if (st->evs[i].backend != be || st->evs[i].kind != LACE_EV_TOOL)
			continue;
		/* duration_time: wall clock of the run, as perf's tool event */
		struct lace_count *c = &res->counts[i];
		c->raw = (uint64_t)(res->elapsed_s * 1e9 + 0.5);
		c->value = (double)c->raw;
		c->time_enabled = c->time_running = c->raw;
		c->status = LACE_COUNT_OK;
	}
	for (size_t k = 0; k < noc; k++) {
		struct lace_count tmp;
		struct lace_count *c = oc[k].idx == (size_t)-1 ? &tmp : &res->counts[oc[k].idx];
		memset(&tmp, 0, sizeof(tmp));
		read_counter(oc[k].fd, c);
		close(oc[k].fd);
		if (oc[k].idx == (size_t)-1 ||
		    (st->evs[oc[k].idx].type == PERF_TYPE_SOFTWARE &&
		     st->evs[oc[k].idx].config == PERF_COUNT_SW_CPU_MIGRATIONS &&
		     !st->evs[oc[k].idx].exclude_kernel && !st->evs[oc[k].idx].exclude_user))
			if (c->status == LACE_COUNT_OK)
				res->migrations = (long)c->raw;
	}
	free(oc);
	return err;
}

static const char *hw_describe(struct lace_backend *be)
{
	return "perf_event";
}

static void hw_free(struct lace_backend *be)
{
	free(be->priv);
	free(be);
}

static const struct lace_backend hw_ops = {
	.name = "hw", .supports = hw_supports, .prepare = hw_prepare, .run = hw_run,
	.describe = hw_describe, .free = hw_free,
};

struct lace_backend *hw_backend_new(void)
{
	return backend_new(&hw_ops, xcalloc(1, sizeof(struct hw_state)));
}
