/* The full-system backend (--backend qemu): every run boots a real Linux
 * kernel under QEMU's TCG emulator with lace's TCG plugin
 * (measure/qemu/plugin/) and runs the workload inside the guest, inside a
 * measurement window, so the counts include the kernel's own code and
 * exclude boot and init.  The guest is an initramfs lace builds
 * (measure/qemu/guest.c) around Debian's busybox-static; the kernel,
 * System.map and busybox come from lace's cache (scripts/fetch-guest.sh)
 * unless --kernel / --system-map name others.
 *
 * Guests: x86-64 (qemu-system-x86_64 -M pc, bzImage or vmlinuz) and
 * ppc64le (qemu-system-ppc64 -M pseries,x-vof=on -cpu POWER8: the hash
 * MMU, booting the ELF vmlinux), told apart by the kernel file's header.
 *
 * Determinism: one vCPU, `-icount shift=0,sleep=off` (the virtual clock
 * advances by instructions, not host time), a fixed RTC, `-seed 1` (the
 * random seed QEMU gives the guest), `nokaslr` and `random.trust_cpu=off`:
 * the same kernel and workload give identical
 * counts run after run.
 *
 * Tracepoints (-e SYS:NAME) are counted by the guest kernel's own
 * tracing, around the window (lace-guest-run --trace); their counts and
 * the workload's status come back on the console. */
#include "measure/backend.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/qemu/backend_qemu_priv.h"
#include "measure/qemu/backend_qemu_report.h"
#include "measure/qemu/guest.h"
#include "measure/qemu/tcg_core.h"
#include "measure/runner.h"
#include "measure/cpu_profile.h"
#include "measure/model_results.h"
#include "measure/replay/record_file.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/run_command.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

static bool is_guest_tracepoint(const struct lace_event_spec *ev)
{
	/* uprobes and SDT probes are the host's */
	return ev->kind == LACE_EV_TRACEPOINT && strncmp(ev->base, "probe", 5) &&
	       strncmp(ev->base, "sdt_", 4) && strchr(ev->base, ':');
}

static bool qemu_supports(struct lace_backend *be, const struct lace_event_spec *ev,
			  const char **why)
{
	int idx = sim_event_index(ev->base);

	if (is_guest_tracepoint(ev))
		return true;

	if (idx < 0) {
		*why = "the qemu backend does not model it";
		return false;
	}
	return true;
}

/* "QEMU emulator version 7.2.x (Debian ...)", the first line of --version */
static void version_read(const char *prog, char *out, size_t len)
{
	struct child_process cp = CHILD_PROCESS_INIT;

	out[0] = '\0';
	strvec_pushv(&cp.args, (const char *[]){ prog, "--version", NULL });
	cp.out_capture = 1;
	cp.err_null = 1;
	if (!child_process_run(&cp))
		snprintf(out, len, "%.*s", (int)strcspn(cp.out.buf, "\n"), cp.out.buf);
	child_process_clear(&cp);
}

static int qemu_prepare(struct lace_backend *be, struct lace_event_spec *evs, size_t nevents)
{
	struct qemu_priv *p = be->priv;
	int err;

	err = qemu_resolve_files(p);
	if (err)
		return err;
	/* the front end of the guest's kind of CPU unless told otherwise;
	 * --cpu-profile A,B models B beside A in the same boot */
	if (p->profile_name) {
		err = sim_profiles_load(&p->ps, p->profile_name);
	} else {
		err = sim_profile_load(p->arch == GUEST_PPC64LE ? "power9" : SIM_PROFILE_DEFAULT,
				       &p->ps.prof);
		p->ps.nmore = 0;
	}
	if (!err && p->kernel_page)
		err = sim_profile_set_kernel_page(&p->ps.prof, p->kernel_page);
	for (size_t i = 0; !err && p->kernel_page && i < p->ps.nmore; i++)
		err = sim_profile_set_kernel_page(&p->ps.more[i], p->kernel_page);
	if (err)
		return err;
	if (!p->qemu_version[0])
		version_read(qemu_arches[p->arch].prog, p->qemu_version, sizeof(p->qemu_version));
	be->run_mib = qemu_run_mib((int)p->arch);
	if (!p->dir) {
		err = fs_temp_dir("lace-qemu", &p->dir);
		if (err)
			return err;
	}
	free(p->event_idx);
	free(p->event_prof);
	p->event_idx = xcalloc(nevents, sizeof(*p->event_idx));
	p->event_prof = xcalloc(nevents, sizeof(*p->event_prof));
	p->nevents = nevents;
	free(p->excl_user);
	free(p->excl_kernel);
	p->excl_user = xcalloc(nevents, sizeof(bool));
	p->excl_kernel = xcalloc(nevents, sizeof(bool));
	if (p->no_plugin) {
		const char *needs = p->per_function ? "--per-function" : p->paths.nr ? "--path-length" : NULL;

		for (size_t i = 0; i < nevents && !needs; i++)
			if (evs[i].backend == be && !is_guest_tracepoint(&evs[i]))
				needs = evs[i].name;
		if (needs)
			return lace_error_set(EINVAL, "%s needs lace's TCG plugin: drop --qemu-no-plugin "
					      "(which counts guest tracepoints only)", needs);
	}
	/* bench_qemu's floor (tcg_plugin.h): say so, or the zeros pass for
	 * a measurement */
	if (!p->no_plugin && getenv("LACE_TCG_NULL_EXEC"))
		lace_warn(NULL, "LACE_TCG_NULL_EXEC is set: the TCG plugin models nothing, "
			  "every count it gives is 0");
	free(p->trace_idx);
	p->trace_idx = xcalloc(nevents, sizeof(*p->trace_idx));
	strbuf_reset(&p->trace);
	strvec_clear(&p->trace_names);
	p->trace_warned = 0;
	for (size_t i = 0, ntp = 0; i < nevents; i++) {
		bool mine = evs[i].backend == be;

		p->event_idx[i] = mine ? sim_event_index(evs[i].base) : -1;
		p->event_prof[i] = mine ? evs[i].profile : 0;
		p->trace_idx[i] = -1;
		if (mine && is_guest_tracepoint(&evs[i])) {
			if (p->trace.len)
				strbuf_addch(&p->trace, ',');
			strbuf_addstr(&p->trace, evs[i].base);
			strvec_push(&p->trace_names, evs[i].base);
			p->trace_idx[i] = (int)ntp++;
		}
		p->excl_user[i] = evs[i].exclude_user;
		p->excl_kernel[i] = evs[i].exclude_kernel;
	}
	return 0;
}

/* the initramfs of lace ab's side A or B (opts->side; lace stat: A) for
 * argv, built once per batch (every run of a side is the same) */
static int initrd_ensure(struct qemu_priv *p, const struct lace_run_opts *opts, char *const argv[],
			 struct strbuf *path)
{
	struct strbuf key = STRBUF_INIT;
	struct guest_spec g = { p->arch, p->busybox, p->runner, argv, p->loops,
				p->trace.len ? p->trace.buf : NULL };
	int err = 0;

	strbuf_addf(&key, "%s\n", p->trace.buf);
	for (size_t i = 0; argv[i]; i++) {
		strbuf_addstr(&key, argv[i]);
		strbuf_addch(&key, '\n');
	}
	strbuf_reset(path);
	int side = opts->side == 'B';
	strbuf_addf(path, "%s/initramfs-%c.cpio", p->dir, "AB"[side]);
	if (!p->initrd_for[side] || strcmp(p->initrd_for[side], key.buf)) {
		err = guest_initramfs_build(&g, path->buf);
		if (!err && sha256_file_hex(path->buf, p->initrd_sha256[side]))
			err = lace_error_set(EIO, "%s: cannot read it back", path->buf);
		free(p->initrd_for[side]);
		p->initrd_for[side] = err ? NULL : strbuf_detach(&key, NULL);
	}
	strbuf_release(&key);
	return err;
}

/* before lace stat -j forks its runs: the side's initramfs, which every
 * run of argv shares, built once here rather than by each run at once.
 * With --record the runs stay one at a time: each boot's recording is
 * packed from the one plugin file in the batch's folder. */
static int qemu_run_setup(struct lace_backend *be, char *const argv[],
			  const struct lace_run_opts *opts)
{
	struct qemu_priv *p = be->priv;
	struct strbuf initrd = STRBUF_INIT;
	int err;

	if (!p->event_idx)
		return lace_error_set(EINVAL, "qemu backend: run before prepare");
	err = initrd_ensure(p, opts, argv, &initrd);
	strbuf_release(&initrd);
	return err ? err : p->record ? 1 : 0;
}

/* the last lines of the guest's console, for a fault message */
static void console_tail(const char *path, char *out, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	out[0] = '\0';
	if (strbuf_read_file(&sb, path))
		return;
	strbuf_rtrim(&sb);
	const char *nl = strrchr(sb.buf, '\n');
	snprintf(out, len, "%s", nl ? nl + 1 : sb.buf);
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
	strbuf_release(&sb);
}

/* the t-th tracepoint's count, from the guest's report; why it is not
 * counted said once per batch */
static void guest_report_event(struct qemu_priv *p, const struct guest_report *r, int t,
			       const char *name, struct lace_count *c)
{
	if ((size_t)t >= r->nevents || !r->ev[t].ok) {
		c->status = LACE_COUNT_NOT_COUNTED;
		if (!(p->trace_warned & (1u << t)))
			lace_warn(name, "not counted in the guest: %s",
				  (size_t)t < r->nevents ? r->ev[t].why : "the guest did not report it");
		p->trace_warned |= 1u << t;
		return;
	}
	c->status = LACE_COUNT_OK;
	c->raw = r->ev[t].count;
	c->value = (double)r->ev[t].count;
	c->time_enabled = c->time_running = 1;
}

/* The model's geometry for side k's kernel: the profile's, with the
 * kernel image's text in the profile's kernel page size ([page] kernel).
 * x86-64 Linux maps the image with 2 MiB pages, but the last one that
 * holds text is split into 4 KiB pages (the rest of it, past _etext's
 * page, is made NX): so the large pages are the whole ones from _text up
 * to _etext's page, rounded down (seen in the guest's own page tables,
 * t_qemu_pagesize).  The recording keeps it, so a replay models the same
 * pages. */
static struct sim_config prof_config(const struct sim_profile *prof, const struct qemu_kernel *k)
{
	struct sim_config c = prof->cfg;
	uint64_t lp = c.large_page, lo, hi;

	if (!lp || !k->text_lo || k->text_hi <= k->text_lo)
		return c;
	lo = (k->text_lo + lp - 1) & ~(lp - 1);
	hi = ((k->text_hi + c.page - 1) & ~(c.page - 1)) & ~(lp - 1);
	if (lo < hi) {
		c.large_lo = lo;
		c.large_hi = hi;
	}
	return c;
}

/* The first profile's (the one the recording keeps). */
static struct sim_config run_config(const struct qemu_priv *p, const struct qemu_kernel *k)
{
	return prof_config(&p->ps.prof, k);
}

/* One profile's geometry as the plugin's key=value arguments. */
static void plugin_geometry(struct strbuf *plug, const struct sim_config *c)
{
	strbuf_addf(plug, ",l1i_size=%" PRIu64 ",l1i_ways=%u,l1i_line=%u,itlb_entries=%u,itlb_ways=%u"
		    ",stlb_entries=%u,stlb_ways=%u,page=%" PRIu64 ",fetch_block=%u", c->l1i_size,
		    c->l1i_ways, c->l1i_line, c->itlb_entries, c->itlb_ways, c->stlb_entries,
		    c->stlb_ways, c->page, c->fetch_block);
	if (c->large_lo < c->large_hi)
		strbuf_addf(plug, ",large_page=%" PRIu64 ",litlb_entries=%u,litlb_ways=%u,stlb_large=%u"
			    ",large_lo=0x%" PRIx64 ",large_hi=0x%" PRIx64, c->large_page,
			    c->litlb_entries, c->litlb_ways, c->stlb_large, c->large_lo, c->large_hi);
	else   /* the plugin's default has large pages, with no range */
		strbuf_addstr(plug, ",large_page=0");
}

/* QEMU's command line for one run of side k: the machine, the console
 * file, the kernel and initramfs, and lace's plugin with the model's
 * geometry (unless --qemu-no-plugin). */
static void qemu_argv_build(const struct qemu_priv *p, const struct qemu_kernel *k,
			    const char *initrd, const char *out, const char *console,
			    unsigned perturb, struct strvec *qargv)
{
	const struct sim_config cfg = run_config(p, k);
	const struct qemu_arch *qa = &qemu_arches[p->arch];
	struct strbuf plug = STRBUF_INIT;

	strvec_push(qargv, qa->prog);
	strvec_pushv(qargv, (const char *[]){ "-accel", "tcg", "-smp", "1", "-display", "none",
					      "-monitor", "none", "-no-reboot",
					      "-icount", "shift=0,sleep=off",
					      "-rtc", "base=2020-01-01T00:00:00,clock=vm",
					      /* the random bytes QEMU hands the guest
					       * (the device tree's rng-seed) */
					      "-seed", "1", NULL });
	strvec_pushv(qargv, (const char **)qa->machine);
	strvec_push(qargv, "-serial");
	strvec_pushf(qargv, "file:%s", console);
	strvec_push(qargv, "-kernel");
	strvec_push(qargv, k->kernel_path);
	strvec_push(qargv, "-initrd");
	strvec_push(qargv, initrd);
	strvec_push(qargv, "-append");
	/* A perturbation pads the command line with a parameter the kernel
	 * ignores (a dotted name no built-in module owns): parsing and
	 * copying it takes a few more instructions at boot, so under -icount
	 * every later timer interrupt lands elsewhere, and the same code runs
	 * another execution. */
	if (perturb)
		strvec_pushf(qargv, "%s lace.perturb=%0*u", qa->append, (int)perturb, 0u);
	else
		strvec_push(qargv, qa->append);
	/* the System.map costs a lookup per instruction at translation and
	 * per-function counting per block: only when asked for */
	strbuf_addf(&plug, "%s,out=%s,switch=0x%" PRIx64, p->plugin, out, k->switch_addr);
	plugin_geometry(&plug, &cfg);
	for (size_t i = 0; i < k->nexc; i++)
		strbuf_addf(&plug, ",exc=0x%" PRIx64, k->exc_addr[i]);
	if (p->per_function || p->paths.nr)
		strbuf_addf(&plug, ",map=%s", k->map_path);
	if (p->record)   /* the raw stream, packed into --record's FILE below */
		strbuf_addf(&plug, ",record=%s/rec.0.0", p->dir);
	for (size_t i = 0; i < p->paths.nr; i++)
		strbuf_addf(&plug, ",path=%s", p->paths.v[i]);
	/* the other profiles last: the geometry keys after profile= are its */
	for (size_t i = 0; i < p->ps.nmore; i++) {
		const struct sim_config c = prof_config(&p->ps.more[i], k);

		strbuf_addf(&plug, ",profile=%s", p->ps.more[i].name);
		plugin_geometry(&plug, &c);
	}
	if (!p->no_plugin) {
		strvec_push(qargv, "-plugin");
		strvec_push(qargv, plug.buf);
	}
	strbuf_release(&plug);
}

/* The workload's status, which the guest reports on the console (and on
 * x86 in QEMU's own, through isa-debug-exit), as the run's fault. */
static void guest_status_apply(const char *console, const struct guest_report *rep,
			       struct lace_run_result *res)
{
	char tail[96];
	int status;

	if (res->fault != LACE_FAULT_EXIT && res->fault != LACE_FAULT_NONE)
		return;
	status = res->fault == LACE_FAULT_EXIT ? guest_status_from_exit(res->exit_status) : -1;
	if (status < 0 && rep->has_status)
		status = rep->status;
	res->exit_status = status;
	if (status == 0) {
		res->fault = LACE_FAULT_NONE;
		res->fault_msg[0] = '\0';
	} else if (status > 0) {
		console_tail(console, tail, sizeof(tail));
		res->fault = LACE_FAULT_EXIT;
		snprintf(res->fault_msg, sizeof(res->fault_msg),
			 "exit status %d in the guest: %.90s", status, tail);
	} else {
		console_tail(console, tail, sizeof(tail));
		res->fault = LACE_FAULT_START;
		snprintf(res->fault_msg, sizeof(res->fault_msg),
			 "the guest ended without reporting: %.90s", tail);
	}
}

/* Each event's count: guest tracepoints from the console's report, the
 * model's events from the window's user and kernel sides, those of the
 * other profiles (NAME@PROFILE) from theirs, more[]. */
static void counts_fill(struct qemu_priv *p, const struct guest_report *rep,
			const struct tcg_split *w0, const struct tcg_split *more,
			struct lace_run_result *res)
{
	for (size_t i = 0; i < res->nevents && i < p->nevents; i++) {
		int idx = p->event_idx[i], t = p->trace_idx[i];
		const struct tcg_split *w = p->event_prof[i] ? &more[p->event_prof[i] - 1] : w0;
		uint64_t v = 0;

		if (t >= 0) {
			guest_report_event(p, rep, t, p->trace_names.v[t], &res->counts[i]);
			continue;
		}
		if (idx < 0)
			continue;
		if (!p->excl_user[i])
			v += sim_totals_get(&w->u, idx);
		if (!p->excl_kernel[i])
			v += sim_totals_get(&w->k, idx);
		res->counts[i].status = LACE_COUNT_OK;
		res->counts[i].raw = v;
		res->counts[i].value = (double)v;
		res->counts[i].time_enabled = res->counts[i].time_running =
			(uint64_t)(res->elapsed_s * 1e9);
	}
}

/* The run's backend data for the results file (takes paths, not fns). */
static json_t *run_extra(const struct qemu_priv *p, const struct qemu_kernel *k,
			 const struct guest_report *rep, const struct tcg_split *w,
			 const struct tcg_split *more, json_t *fns, json_t *paths, unsigned perturb,
			 const char *initrd_sha256)
{
	json_t *x = json_object();

	json_object_set_new(x, "perturbation", json_integer(perturb));
	json_object_set_new(x, "initramfs_sha256", json_string(initrd_sha256));
	json_object_set_new(x, "simulator", json_string(p->no_plugin ? "none" : "lace-tcg"));
	json_object_set_new(x, "profile", json_string(p->ps.prof.name));
	const struct sim_config c = run_config(p, k);
	if (c.large_lo < c.large_hi) {
		char lo[24], hi[24];

		snprintf(lo, sizeof(lo), "0x%" PRIx64, c.large_lo);
		snprintf(hi, sizeof(hi), "0x%" PRIx64, c.large_hi);
		json_object_set_new(x, "kernel_large_pages", json_pack("{s:I,s:s,s:s}", "size",
			(json_int_t)c.large_page, "from", lo, "to", hi));
	}
	json_object_set_new(x, "kernel", json_string(k->kernel_path));
	json_object_set_new(x, "system_map", json_string(k->map_path));
	json_object_set_new(x, "qemu", json_string(p->qemu_version));
	json_object_set_new(x, "kernel_release", json_string(rep->release));
	json_object_set_new(x, "kernel_build_id", json_string(rep->build_id));
	json_object_set_new(x, "loops", json_integer(p->loops));
	json_object_set_new(x, "user", qemu_report_split_json(&w->u));
	json_object_set_new(x, "kernel_counts", qemu_report_split_json(&w->k));
	json_object_set_new(x, "functions", qemu_report_top(fns, (size_t)p->top));
	if (p->ps.nmore) {
		/* the other profiles' windows (the functions and paths are the
		 * first profile's) */
		json_t *o = json_array();

		for (size_t i = 0; i < p->ps.nmore; i++)
			json_array_append_new(o, json_pack("{s:s,s:o,s:o}", "profile", p->ps.more[i].name,
							   "user", qemu_report_split_json(&more[i].u),
							   "kernel_counts",
							   qemu_report_split_json(&more[i].k)));
		json_object_set_new(x, "other_profiles", o);
	}
	json_object_set_new(x, "paths", paths);
	json_object_set_new(x, "guest_arch", json_string(guest_arch_name(p->arch)));
	return x;
}

static int qemu_run(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts,
		    struct lace_run_result *res)
{
	struct qemu_priv *p = be->priv;
	struct strbuf initrd = STRBUF_INIT, out = STRBUF_INIT, console = STRBUF_INIT;
	struct strvec qargv = STRVEC_INIT;
	struct guest_report rep;
	struct lace_child child;
	struct tcg_split w, more[SIM_MAX_PROFILES - 1];
	unsigned nwin;
	json_t *fns = NULL, *paths = NULL;
	int err;

	if (!p->event_idx)
		return lace_error_set(EINVAL, "qemu backend: run before prepare");
	int side = opts->side == 'B' && (p->k[1].kernel || p->k[1].sysmap);
	struct qemu_kernel *k = &p->k[side];

	err = initrd_ensure(p, opts, argv, &initrd);
	if (err)
		goto out;
	/* named by side and boot, not by a count of this process's runs: a
	 * run forked by lace stat -j writes beside its siblings */
	char tag = opts->side ? opts->side : 'S';
	strbuf_addf(&out, "%s/tcg.%c%ld", p->dir, tag, opts->boot);
	strbuf_addf(&console, "%s/console.%c%ld", p->dir, tag, opts->boot);
	/* the boot's place on its side: lace ab's A and B of one round get
	 * the same perturbation, so a round pairs two builds under one timing */
	unsigned perturb = p->perturb ? p->perturb + (unsigned)opts->boot : 0;

	qemu_argv_build(p, k, initrd.buf, out.buf, console.buf, perturb, &qargv);

	err = runner_start(&child, (char *const *)qargv.v, NULL, opts);
	if (!err)
		err = runner_run(&child, opts, res);
	strvec_clear(&qargv);
	if (err)
		goto out;

	guest_report_read(console.buf, &rep);
	guest_status_apply(console.buf, &rep, res);
	if (p->no_plugin) {
		memset(&w, 0, sizeof(w));
		fns = json_array();
		paths = json_array();
	} else if (qemu_report_read(out.buf, &w, &nwin, &fns, &paths) || nwin != 1 ||
		   qemu_report_read_more(out.buf, more, p->ps.nmore)) {
		if (res->fault == LACE_FAULT_NONE) {
			res->fault = LACE_FAULT_START;
			snprintf(res->fault_msg, sizeof(res->fault_msg),
				 "the guest opened %u measurement windows, not 1", nwin);
		}
		json_decref(fns);
		json_decref(paths);
		goto out;
	}
	if (p->record && !p->no_plugin) {
		struct strbuf raw = STRBUF_INIT;
		const struct sim_config cfg = run_config(p, k);
		int rerr = record_pack(p->record, p->dir, "rec", "qemu", p->ps.prof.name, &cfg, 1,
				       k->kernel_path, rep.build_id);

		strbuf_addf(&raw, "%s/rec.0.0", p->dir);
		unlink(raw.buf);
		strbuf_release(&raw);
		if (rerr) {
			err = rerr;
			json_decref(fns);
			json_decref(paths);
			goto out;
		}
	}
	counts_fill(p, &rep, &w, more, res);
	res->extra = run_extra(p, k, &rep, &w, more, fns, paths, perturb,
			       p->initrd_sha256[opts->side == 'B']);
	json_decref(fns);
	unlink(out.buf);
	/* a failed run's console is the only account of what happened in
	 * the guest: keep it (remove_dir() then keeps the folder) */
	if (res->fault == LACE_FAULT_NONE)
		unlink(console.buf);
	else if (!p->console_kept++)
		lace_warn(NULL, "the guest's console of run %ld is kept in %s", opts->boot + 1,
			  console.buf);
out:
	strbuf_release(&initrd);
	strbuf_release(&out);
	strbuf_release(&console);
	return err;
}

static const char *base_name(const char *path, const char *none)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path && path[0] ? path : none;
}

static const char *qemu_describe(struct lace_backend *be)
{
	struct qemu_priv *p = be->priv;
	char kernels[220];

	if (p->k[1].kernel_path)
		snprintf(kernels, sizeof(kernels), "A %.100s, B %.100s",
			 base_name(p->k[0].kernel_path, "kernel"), base_name(p->k[1].kernel_path, "kernel"));
	else
		snprintf(kernels, sizeof(kernels), "%.200s", base_name(p->k[0].kernel_path, "kernel"));
	snprintf(p->describe, sizeof(p->describe), "qemu (%s, %s, %.60s, %u run%s per boot)",
		 guest_arch_name(p->arch), kernels,
		 p->ps.prof.name[0] && !p->ps.nmore ? p->ps.prof.name
		 : p->profile_name ? p->profile_name : "default",
		 p->loops, p->loops == 1 ? "" : "s");
	return p->describe;
}

static size_t qemu_profiles(struct lace_backend *be, const char *const **names)
{
	struct qemu_priv *p = be->priv;

	*names = p->ps.name_v;
	return p->ps.nnames;
}

static void qemu_print_extra(struct lace_backend *be, FILE *out, json_t *const *extra,
			     size_t nruns)
{
	struct qemu_priv *p = be->priv;

	qemu_report_print(out, extra, nruns, p->per_function);
}

static void remove_dir(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	const char *names[] = { "initramfs-A.cpio", "initramfs-B.cpio", NULL };

	for (size_t i = 0; names[i]; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/%s", dir, names[i]);
		unlink(sb.buf);
	}
	strbuf_release(&sb);
	rmdir(dir);   /* fails (and stays) when a run left its files for inspection */
}

static void qemu_free(struct lace_backend *be)
{
	struct qemu_priv *p = be->priv;

	if (p->dir)
		remove_dir(p->dir);
	free(p->dir);
	free(p->profile_name);
	free(p->kernel_page);
	free(p->busybox);
	free(p->plugin);
	free(p->runner);
	for (int i = 0; i < 2; i++) {
		free(p->k[i].kernel);
		free(p->k[i].sysmap);
		free(p->k[i].kernel_path);
		free(p->k[i].map_path);
		free(p->initrd_for[i]);
	}
	free(p->event_idx);
	free(p->event_prof);
	free(p->trace_idx);
	free(p->record);
	free(p->excl_user);
	free(p->excl_kernel);
	strvec_clear(&p->paths);
	strvec_clear(&p->trace_names);
	strbuf_release(&p->trace);
	free(p);
	free(be);
}

static const struct lace_backend qemu_ops = {
	.name = "qemu", .supports = qemu_supports, .prepare = qemu_prepare, .run = qemu_run,
	.run_setup = qemu_run_setup, .describe = qemu_describe, .set_option = qemu_set_option,
	.profiles = qemu_profiles, .print_extra = qemu_print_extra,
	.free = qemu_free,
};

struct lace_backend *qemu_backend_new(void)
{
	struct qemu_priv *p;

	if (qemu_backend_unavailable())
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->loops = 1;
	p->top = 20;
	strvec_init(&p->paths);
	strvec_init(&p->trace_names);
	strbuf_init(&p->trace, 0);
	return backend_new(&qemu_ops, p);
}
