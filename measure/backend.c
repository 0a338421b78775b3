/* Backend selection (--backend auto|hw|sim) and the run of one measurement
 * across the chosen backends. */
#include "measure/backend.h"
#include "measure/events.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int backend_mode_parse(const char *s, enum lace_backend_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = LACE_BACKEND_AUTO;
	else if (!strcmp(s, "hw"))
		*mode = LACE_BACKEND_HW;
	else if (!strcmp(s, "sim"))
		*mode = LACE_BACKEND_SIM;
	else if (!strcmp(s, "qemu"))
		*mode = LACE_BACKEND_QEMU;
	else
		return lace_error_set(EINVAL, "unknown backend '%s' (expected auto, hw, sim or qemu)", s);
	return 0;
}

static bool vg_built(void)
{
	return vg_backend_unavailable() == NULL;
}

static void list_add(struct strbuf *sb, const char *name)
{
	if (sb->len)
		strbuf_addstr(sb, ", ");
	strbuf_addstr(sb, name);
}

int backend_select(struct lace_backend_set *set, enum lace_backend_mode mode,
		   struct lace_event_spec *evs, size_t nevents)
{
	struct strbuf unsup = STRBUF_INIT, moved = STRBUF_INIT;
	const char *unsup_why = NULL;
	char why_copy[256] = "", para[256] = "";
	bool host_could = false; /* an unsupported event the simulator models */
	int err = 0;

	memset(set, 0, sizeof(*set));
	set->hw = hw_backend_new();
	if (mode == LACE_BACKEND_QEMU) {
		/* QEMU is the model host: the events it models are counted
		 * in the guest, the rest natively */
		set->model_host = qemu_backend_new();
		if (!set->model_host) {
			err = lace_error_set(ENOTSUP, "%s", qemu_backend_unavailable());
			goto out;
		}
		mode = LACE_BACKEND_SIM;
	} else if (mode != LACE_BACKEND_HW && vg_built()) {
		set->model_host = vg_backend_new();
	}
	if (mode == LACE_BACKEND_SIM && !set->model_host) {
		err = lace_error_set(ENOTSUP, "%s", vg_backend_unavailable());
		goto out;
	}
	for (size_t i = 0; i < nevents; i++) {
		struct lace_event_spec *ev = &evs[i];
		const char *why = NULL;
		bool host_ok = set->model_host && set->model_host->supports &&
			      set->model_host->supports(set->model_host, ev, &why);

		ev->backend = set->hw;
		ev->simulated = false;
		if ((mode == LACE_BACKEND_SIM || ev->profile_name) && host_ok &&
		    mode != LACE_BACKEND_HW) {
			/* NAME@PROFILE is a model's count, whatever the mode */
			ev->backend = set->model_host;
			ev->simulated = true;
			continue;
		}
		if (ev->profile_name) {
			err = lace_error_set(EINVAL, "%s: a CPU profile's event, but %s", ev->name,
					     mode == LACE_BACKEND_HW ? "--backend hw counts none"
					     : why ? why : "the simulator does not model it");
			goto out;
		}
		if (ev->host_missing) {
			err = lace_error_set(ENOENT, "%s: no such tracepoint in this machine's kernel%s "
					     "(a guest kernel's tracepoints: --backend qemu)", ev->name,
					     events_tracefs() ? "" : " (tracefs is not mounted)");
			goto out;
		}
		if (ev->kind == LACE_EV_SIM_ONLY && !host_ok) {
			err = lace_error_set(ENOENT, "%s: unknown event (see 'perf list' and doc/events.md)%s",
					     ev->name, vg_built() || mode == LACE_BACKEND_HW ? ""
					     : "; simulator-only events need the simulator backend, which is not built");
			goto out;
		}
		if (mode == LACE_BACKEND_SIM && ev->kind == LACE_EV_SIM_ONLY)
			continue;
		bool hw_ok = set->hw->supports(set->hw, ev, &why);
		if (hw_ok)
			continue;
		if (mode == LACE_BACKEND_AUTO && ev->hardware && host_ok && !ev->by_default) {
			ev->backend = set->model_host;
			ev->simulated = true;
			list_add(&moved, ev->name);
			continue;
		}
		list_add(&unsup, ev->name);
		host_could |= host_ok;
		if (!unsup_why && why) {
			snprintf(why_copy, sizeof(why_copy), "%s", why);
			unsup_why = why_copy;
		}
	}
	int paranoid = 2;

	events_paranoid(&paranoid);
	if (geteuid() != 0 && paranoid >= 2) {
		bool kernel_wanted = false;
		for (size_t i = 0; i < nevents; i++)
			kernel_wanted |= evs[i].backend == set->hw && !evs[i].exclude_kernel &&
					 evs[i].kind != LACE_EV_TRACEPOINT;
		if (kernel_wanted)
			snprintf(para, sizeof(para),
				 "kernel.perf_event_paranoid=%d and not root: events count user space only "
				 "(perf shows them as :u); run as root or 'sysctl kernel.perf_event_paranoid=1' "
				 "to count the kernel too", paranoid);
	}
	if (moved.len)
		snprintf(set->note, sizeof(set->note),
			 "%s: not supported by this CPU: counted by the simulator, %s", moved.buf,
			 set->model_host->describe ? set->model_host->describe(set->model_host) : "sim");
	if (para[0]) {
		size_t l = strlen(set->note);
		snprintf(set->note + l, sizeof(set->note) - l, "%s%s", l ? "; " : "", para);
	}
	if (unsup.len) {
		bool any_hw = false;
		for (size_t i = 0; i < nevents; i++)
			if (evs[i].backend == set->hw && evs[i].hardware)
				any_hw = true;
		const char *way_out =
			!any_hw ? ""
			: host_could ? "; name them with -e (or use '--backend sim') to count them in the simulator"
			: set->model_host ? "; the simulator does not model these either"
			: mode == LACE_BACKEND_HW && vg_built()
				? "; '--backend sim' counts icache/iTLB events and instructions in a simulator"
				: "; '--backend sim' (the simulator) is the way out once built";
		snprintf(set->hint, sizeof(set->hint), "%s: %s%s", unsup.buf,
			 unsup_why ? unsup_why : "not supported", way_out);
	}
out:
	strbuf_release(&unsup);
	strbuf_release(&moved);
	if (err)
		backend_set_release(set);
	return err;
}

int backend_option_long(const char *name, const char *value, long min, long max, long *out)
{
	long v;

	if (!value || parse_long(value, min, max, &v))
		return lace_error_set(EINVAL, "--%s needs a whole number from %ld to %ld, not '%s'",
				      name, min, max, value ? value : "");
	*out = v;
	return 0;
}

static bool options_have(const struct lace_backend_option *opts, const char *name)
{
	for (size_t i = 0; opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return true;
	return false;
}

int backend_set_option(struct lace_backend_set *set, const char *name, const char *value)
{
	struct lace_backend *bes[2] = { set->hw, set->model_host };

	for (size_t i = 0; i < 2; i++) {
		if (!bes[i] || !bes[i]->set_option)
			continue;
		int err = bes[i]->set_option(bes[i], name, value);
		if (err != -ENOENT)
			return err;
	}
	/* no backend of this batch takes it: name the one whose table has it */
	if (options_have(qemu_backend_options, name))
		return lace_error_set(ENOENT, "--%s belongs to --backend qemu", name);
	if (options_have(vg_backend_options, name))
		return lace_error_set(ENOENT, "--%s belongs to --backend sim", name);
	return lace_error_set(ENOENT, "--%s: no backend takes this option", name);
}

static bool owns_any(struct lace_backend *be, const struct lace_event_spec *evs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (evs[i].backend == be)
			return true;
	return false;
}

int backend_set_prepare(struct lace_backend_set *set, struct lace_event_spec *evs, size_t nevents)
{
	int err = 0;

	set->evs = evs;
	set->nevents = nevents;
	if (set->hw && set->hw->prepare)
		err = set->hw->prepare(set->hw, evs, nevents);
	if (!err && set->model_host && set->model_host->prepare && owns_any(set->model_host, evs, nevents))
		err = set->model_host->prepare(set->model_host, evs, nevents);
	return err;
}

int backend_set_run(struct lace_backend_set *set, char *const argv[],
		    const struct lace_run_opts *opts, struct lace_run_result *res)
{
	bool host_runs = set->model_host && owns_any(set->model_host, set->evs, set->nevents);
	bool hw_runs = !host_runs || owns_any(set->hw, set->evs, set->nevents);
	int err;

	if (hw_runs) {
		err = set->hw->run(set->hw, argv, opts, res);
		if (err || !host_runs || res->fault != LACE_FAULT_NONE)
			return err;
		/* the native run supplies timing and faults; the simulated one
		 * adds its counts (it touches only its own events) */
		struct lace_run_result model = *res;
		model.procs = NULL;
		model.nprocs = 0;
		model.extra = NULL;
		err = set->model_host->run(set->model_host, argv, opts, &model);
		res->procs = model.procs;
		res->nprocs = model.nprocs;
		res->extra = model.extra;
		if (!err && model.fault != LACE_FAULT_NONE) {
			res->fault = model.fault;
			snprintf(res->fault_msg, sizeof(res->fault_msg), "under the simulator: %.100s",
				 model.fault_msg);
		}
		return err;
	}
	return set->model_host->run(set->model_host, argv, opts, res);
}

void backend_set_release(struct lace_backend_set *set)
{
	if (set->hw && set->hw->free)
		set->hw->free(set->hw);
	if (set->model_host && set->model_host->free)
		set->model_host->free(set->model_host);
	set->hw = set->model_host = NULL;
}

void run_result_init(struct lace_run_result *res, size_t nevents)
{
	memset(res, 0, sizeof(*res));
	res->nevents = nevents;
	res->counts = xcalloc(nevents, sizeof(*res->counts));
	for (size_t i = 0; i < nevents; i++)
		res->counts[i].status = LACE_COUNT_NOT_COUNTED;
	res->migrations = -1;
	res->exit_status = -1;
}

void run_result_release(struct lace_run_result *res)
{
	free(res->counts);
	for (size_t i = 0; i < res->nprocs; i++)
		free(res->procs[i].values);
	free(res->procs);
	if (res->extra)
		json_decref(res->extra);
	memset(res, 0, sizeof(*res));
}

static const char *const fault_names[] = {
	[LACE_FAULT_NONE] = "ok",
	[LACE_FAULT_EXIT] = "exit",
	[LACE_FAULT_SIGNAL] = "signal",
	[LACE_FAULT_TIMEOUT] = "timeout",
	[LACE_FAULT_FLOOD] = "flood",
	[LACE_FAULT_LEFTOVER] = "leftover",
	[LACE_FAULT_START] = "start",
	[LACE_FAULT_INTERRUPTED] = "interrupted",
};

const char *run_fault_name(enum lace_run_fault f)
{
	if ((size_t)f < ARRAY_SIZE(fault_names))
		return fault_names[f];
	return "?";
}

int run_fault_parse(const char *s, enum lace_run_fault *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(fault_names); i++)
		if (!strcmp(fault_names[i], s)) {
			*f = (enum lace_run_fault)i;
			return 0;
		}
	return -EINVAL;
}

json_t *backend_extra_last(json_t *const *extra, size_t nruns, const char *key,
			   const char *same_key, size_t *nvalid, bool *same)
{
	json_t *last = NULL;

	*nvalid = 0;
	*same = true;
	for (size_t i = 0; i < nruns; i++) {
		json_t *v = extra[i] ? json_object_get(extra[i], key) : NULL;

		if (!v || (json_is_array(v) && !json_array_size(v)))
			continue;
		if (last && !json_equal(json_object_get(last, same_key),
					json_object_get(extra[i], same_key)))
			*same = false;
		last = extra[i];
		(*nvalid)++;
	}
	return last;
}

const char *backend_extra_agreement(size_t nvalid, bool same)
{
	return nvalid < 2 ? "one run" : same ? "identical in every run" : "runs differ: last run shown";
}

struct lace_backend *backend_new(const struct lace_backend *ops, void *priv)
{
	struct lace_backend *be = xmalloc(sizeof(*be));

	*be = *ops;
	be->priv = priv;
	return be;
}
