/* The full-system backend (--backend qemu): every run boots a real Linux
 * kernel under QEMU's TCG emulator with lace's TCG plugin
 * (measure/qemu/plugin/) and runs the workload inside the guest, inside a
 * measurement window, so the counts include the kernel's own code and
 * exclude boot and init.  The guest is an initramfs lace builds
 * (measure/qemu/guest.c) around Debian's busybox-static; the kernel,
 * System.map and busybox come from lace's cache (scripts/fetch-guest.sh)
 * unless --kernel / --system-map name others.
 *
 * Determinism: one vCPU, `-icount shift=0,sleep=off` (the virtual clock
 * advances by instructions, not host time), a fixed RTC, `nokaslr` and
 * `random.trust_cpu=off`: the same kernel and workload give identical
 * counts run after run. */
#include "measure/backend.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/qemu/guest.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/runner.h"
#include "measure/sim/profile.h"
#include "measure/sim/results.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xalloc.h"

#define QEMU_PROG "qemu-system-x86_64"
#define QEMU_CONTEXT_SWITCH "__switch_to_asm"

struct qemu_priv {
	char *kernel, *sysmap;         /* --kernel, --system-map */
	unsigned loops;                /* --qemu-loops */
	bool per_function;
	long top;
	char profile_name[PATH_MAX];
	struct sim_profile prof;
	char busybox[PATH_MAX], kernel_path[PATH_MAX], map_path[PATH_MAX];
	char plugin[PATH_MAX], runner[PATH_MAX];
	uint64_t switch_addr;
	char dir[PATH_MAX];            /* this batch's temporary folder */
	char *initrd_for;              /* the argv the initramfs was built for */
	unsigned nrun;
	int *event_idx;
	bool *excl_user, *excl_kernel;  /* per event: perf's :k / :u */
	size_t nevents;
	char describe[256];
	char qemu_version[128];        /* for the results file */
};

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, p, prog);
		if (l && !access(buf, X_OK))
			return true;
		p += l + (e != NULL);
	}
	return false;
}

/* The folder of the plugin and the guest runner: $LACE_QEMU_DIR, else
 * <lace>/qemu (build tree) or <lace>/../lib/lace/qemu (installed). */
static bool tool_dir(char *out, size_t len)
{
	const char *env = getenv("LACE_QEMU_DIR");
	const char *exe = sim_exe_dir();
	char path[PATH_MAX];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
		return is_file(path);
	}
	if (!exe)
		return false;
	snprintf(out, len, "%s/qemu", exe);
	snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
	if (is_file(path))
		return true;
	snprintf(out, len, "%s/../lib/lace/qemu", exe);
	snprintf(path, sizeof(path), "%s/liblace-tcg.so", out);
	return is_file(path);
}

const char *qemu_backend_unavailable(void)
{
	char dir[PATH_MAX];

	if (!in_path(QEMU_PROG))
		return "--backend qemu needs " QEMU_PROG " (apt-get install qemu-system-x86)";
	if (!tool_dir(dir, sizeof(dir)))
		return "--backend qemu needs the TCG plugin liblace-tcg.so: run 'make'";
	return NULL;
}

/* ~/.cache/lace/guest/x86_64, as scripts/fetch-guest.sh fills it */
static void guest_cache(char *out, size_t len)
{
	const char *c = getenv("LACE_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (c && *c)
		snprintf(out, len, "%s/guest/x86_64", c);
	else if (x && *x)
		snprintf(out, len, "%s/lace/guest/x86_64", x);
	else
		snprintf(out, len, "%s/.cache/lace/guest/x86_64", h ? h : "");
}

static bool qemu_supports(struct lace_backend *be, const struct lace_event_spec *ev,
			  const char **why)
{
	int idx = sim_event_index(ev->base);

	/* fetch-late-entries needs per-fetch timing the split does not keep */
	if (idx < 0 || !strcmp(ev->base, "fetch-late-entries")) {
		*why = "the qemu backend does not model it";
		return false;
	}
	return true;
}

static int resolve_files(struct qemu_priv *p)
{
	char cache[PATH_MAX], abi[128] = "", tools[PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	struct symmap map;
	int err;

	guest_cache(cache, sizeof(cache));
	snprintf(tools, sizeof(tools), "%.3900s/kernel.abi", cache);
	if (!strbuf_read_file(&sb, tools)) {
		strbuf_rtrim(&sb);
		snprintf(abi, sizeof(abi), "%s", sb.buf);
	}
	strbuf_release(&sb);
	if (p->kernel)
		snprintf(p->kernel_path, sizeof(p->kernel_path), "%s", p->kernel);
	else
		snprintf(p->kernel_path, sizeof(p->kernel_path), "%.3900s/vmlinuz-%.120s", cache, abi);
	if (p->sysmap)
		snprintf(p->map_path, sizeof(p->map_path), "%s", p->sysmap);
	else
		snprintf(p->map_path, sizeof(p->map_path), "%.3900s/System.map-%.120s", cache, abi);
	snprintf(p->busybox, sizeof(p->busybox), "%.3900s/busybox", cache);
	if (!is_file(p->kernel_path))
		return lace_error_set(ENOENT, "%s: no kernel to boot (scripts/fetch-guest.sh fetches "
				      "Debian's into the cache, or give --kernel)", p->kernel_path);
	if (!is_file(p->map_path))
		return lace_error_set(ENOENT, "%s: no System.map for the kernel (scripts/fetch-guest.sh, "
				      "or give --system-map)", p->map_path);
	if (!is_file(p->busybox))
		return lace_error_set(ENOENT, "%s: no busybox for the guest (scripts/fetch-guest.sh)",
				      p->busybox);
	if (!tool_dir(tools, sizeof(tools)))
		return lace_error_set(ENOENT, "%s", qemu_backend_unavailable());
	snprintf(p->plugin, sizeof(p->plugin), "%.3900s/liblace-tcg.so", tools);
	snprintf(p->runner, sizeof(p->runner), "%.3900s/lace-guest-run", tools);
	err = symmap_load(&map, p->map_path);
	if (err)
		return err;
	p->switch_addr = symmap_addr(&map, QEMU_CONTEXT_SWITCH);
	symmap_free(&map);
	return 0;
}

/* "QEMU emulator version 7.2.x (Debian ...)", the first line of --version */
static void version_read(char *out, size_t len)
{
	FILE *f = popen(QEMU_PROG " --version 2>/dev/null", "r");

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	pclose(f);
}

static int qemu_prepare(struct lace_backend *be, struct lace_event_spec *evs, size_t nevents)
{
	struct qemu_priv *p = be->priv;
	const char *tmp = getenv("TMPDIR");
	int err;

	err = resolve_files(p);
	if (err)
		return err;
	err = sim_profile_load(p->profile_name, &p->prof);
	if (err)
		return err;
	if (!p->qemu_version[0])
		version_read(p->qemu_version, sizeof(p->qemu_version));
	if (!p->dir[0]) {
		snprintf(p->dir, sizeof(p->dir), "%s/lace-qemu.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(p->dir)) {
			err = lace_error_set(errno, "%s: %s", p->dir, strerror(errno));
			p->dir[0] = '\0';
			return err;
		}
	}
	free(p->event_idx);
	p->event_idx = xcalloc(nevents ? nevents : 1, sizeof(*p->event_idx));
	p->nevents = nevents;
	free(p->excl_user);
	free(p->excl_kernel);
	p->excl_user = xcalloc(nevents ? nevents : 1, sizeof(bool));
	p->excl_kernel = xcalloc(nevents ? nevents : 1, sizeof(bool));
	for (size_t i = 0; i < nevents; i++) {
		p->event_idx[i] = evs[i].backend == be ? sim_event_index(evs[i].base) : -1;
		p->excl_user[i] = evs[i].exclude_user;
		p->excl_kernel[i] = evs[i].exclude_kernel;
	}
	return 0;
}

/* the initramfs for argv, built once per batch (every run is the same) */
static int initrd_ensure(struct qemu_priv *p, char *const argv[], char *path, size_t len)
{
	struct strbuf key = STRBUF_INIT;
	struct guest_spec g = { p->busybox, p->runner, argv, p->loops };
	int err = 0;

	for (size_t i = 0; argv[i]; i++) {
		strbuf_addstr(&key, argv[i]);
		strbuf_addch(&key, '\n');
	}
	snprintf(path, len, "%s/initramfs.cpio", p->dir);
	if (!p->initrd_for || strcmp(p->initrd_for, key.buf)) {
		err = guest_initramfs_build(&g, path);
		free(p->initrd_for);
		p->initrd_for = err ? NULL : strbuf_detach(&key, NULL);
	}
	strbuf_release(&key);
	return err;
}

/* the window line and the function lines of the plugin's file */
static int read_plugin_out(const char *path, struct tcg_split *w, unsigned *nwin, json_t **fns)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool end = false;

	*nwin = 0;
	*fns = json_array();
	if (!f)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned n;
		struct tcg_split one;
		char name[256];
		unsigned long long ins, l1, it, st, calls;

		if (!tcg_split_parse(line, &n, &one)) {
			*w = one;
			(*nwin)++;
		} else if (sscanf(line,
				  "fn %255s instructions=%llu l1i_misses=%llu itlb_misses=%llu "
				  "stlb_misses=%llu calls=%llu",
				  name, &ins, &l1, &it, &st, &calls) == 6) {
			json_array_append_new(*fns, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "name", name,
							      "instructions", (json_int_t)ins,
							      "l1i_misses", (json_int_t)l1,
							      "itlb_misses", (json_int_t)it,
							      "stlb_misses", (json_int_t)st,
							      "calls", (json_int_t)calls));
		} else if (!strncmp(line, "end ", 4)) {
			end = true;
		}
	}
	fclose(f);
	return end ? 0 : lace_error_set(EIO, "%s: cut short (QEMU did not exit normally)", path);
}

static int by_instructions(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "instructions"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "instructions"));

	return x < y ? 1 : x > y ? -1 : 0;
}

static json_t *top_functions(json_t *fns, size_t top)
{
	size_t n = json_array_size(fns), i;
	json_t **v = xcalloc(n ? n : 1, sizeof(*v)), *out = json_array();

	for (i = 0; i < n; i++)
		v[i] = json_array_get(fns, i);
	qsort(v, n, sizeof(*v), by_instructions);
	for (i = 0; i < n && i < top; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

static json_t *split_json(const struct sim_totals *t)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "instructions",
			 (json_int_t)t->instructions, "L1-icache-loads", (json_int_t)t->l1i_loads,
			 "L1-icache-load-misses", (json_int_t)t->l1i_misses, "iTLB-loads",
			 (json_int_t)t->itlb_loads, "iTLB-load-misses", (json_int_t)t->itlb_misses,
			 "stlb-loads", (json_int_t)t->stlb_loads, "stlb-misses",
			 (json_int_t)t->stlb_misses, "fetch-blocks", (json_int_t)t->fetch_blocks);
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

static int qemu_run(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts,
		    struct lace_run_result *res)
{
	struct qemu_priv *p = be->priv;
	const struct sim_config *c = &p->prof.cfg;
	char initrd[PATH_MAX + 32], out[PATH_MAX + 32], console[PATH_MAX + 48], tail[96];
	struct strvec qargv = STRVEC_INIT;
	struct lace_child child;
	struct tcg_split w;
	unsigned nwin;
	json_t *fns = NULL;
	int err, status;

	if (!p->event_idx)
		return lace_error_set(EINVAL, "qemu backend: run before prepare");
	err = initrd_ensure(p, argv, initrd, sizeof(initrd));
	if (err)
		return err;
	p->nrun++;
	snprintf(out, sizeof(out), "%s/tcg.%u", p->dir, p->nrun);
	snprintf(console, sizeof(console), "%s/console.%u", p->dir, p->nrun);
	strvec_push(&qargv, QEMU_PROG);
	strvec_pushv(&qargv, (const char *[]){ "-accel", "tcg", "-M", "pc", "-cpu", "qemu64",
					       "-smp", "1", "-m", "512", "-display", "none",
					       "-monitor", "none", "-no-reboot",
					       "-icount", "shift=0,sleep=off",
					       "-rtc", "base=2020-01-01T00:00:00,clock=vm",
					       "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
					       NULL });
	strvec_push(&qargv, "-serial");
	strvec_pushf(&qargv, "file:%s", console);
	strvec_push(&qargv, "-kernel");
	strvec_push(&qargv, p->kernel_path);
	strvec_push(&qargv, "-initrd");
	strvec_push(&qargv, initrd);
	strvec_push(&qargv, "-append");
	strvec_push(&qargv, "console=ttyS0 quiet panic=-1 nokaslr random.trust_cpu=off");
	strvec_push(&qargv, "-plugin");
	strvec_pushf(&qargv,
		     "%s,out=%s,map=%s,switch=0x%" PRIx64 ",l1i_size=%" PRIu64
		     ",l1i_ways=%u,l1i_line=%u,itlb_entries=%u,itlb_ways=%u"
		     ",stlb_entries=%u,stlb_ways=%u,page=%" PRIu64 ",fetch_block=%u",
		     p->plugin, out, p->map_path, p->switch_addr, c->l1i_size, c->l1i_ways,
		     c->l1i_line, c->itlb_entries, c->itlb_ways, c->stlb_entries, c->stlb_ways,
		     c->page, c->fetch_block);

	err = runner_start(&child, (char *const *)qargv.v, NULL, opts);
	if (!err) {
		err = runner_go(&child);
		if (err)
			runner_abort(&child);
		else
			err = runner_wait(&child, opts, res);
	}
	strvec_clear(&qargv);
	if (err)
		return err;

	/* QEMU's status carries the workload's (isa-debug-exit) */
	if (res->fault == LACE_FAULT_EXIT || res->fault == LACE_FAULT_NONE) {
		status = res->fault == LACE_FAULT_EXIT ? guest_status_from_exit(res->exit_status) : -1;
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
	if (read_plugin_out(out, &w, &nwin, &fns) || nwin != 1) {
		if (res->fault == LACE_FAULT_NONE) {
			res->fault = LACE_FAULT_START;
			snprintf(res->fault_msg, sizeof(res->fault_msg),
				 "the guest opened %u measurement windows, not 1", nwin);
		}
		json_decref(fns);
		return 0;
	}
	for (size_t i = 0; i < res->nevents && i < p->nevents; i++) {
		int idx = p->event_idx[i];
		uint64_t v = 0;

		if (idx < 0)
			continue;
		if (!p->excl_user[i])
			v += sim_totals_get(&w.u, idx);
		if (!p->excl_kernel[i])
			v += sim_totals_get(&w.k, idx);
		res->counts[i].status = LACE_COUNT_OK;
		res->counts[i].raw = v;
		res->counts[i].value = (double)v;
		res->counts[i].time_enabled = res->counts[i].time_running =
			(uint64_t)(res->elapsed_s * 1e9);
	}
	res->extra = json_object();
	json_object_set_new(res->extra, "simulator", json_string("lace-tcg"));
	json_object_set_new(res->extra, "profile", json_string(p->prof.name));
	json_object_set_new(res->extra, "kernel", json_string(p->kernel_path));
	json_object_set_new(res->extra, "system_map", json_string(p->map_path));
	json_object_set_new(res->extra, "qemu", json_string(p->qemu_version));
	json_object_set_new(res->extra, "loops", json_integer(p->loops));
	json_object_set_new(res->extra, "user", split_json(&w.u));
	json_object_set_new(res->extra, "kernel_counts", split_json(&w.k));
	json_object_set_new(res->extra, "functions", top_functions(fns, (size_t)p->top));
	json_decref(fns);
	unlink(out);
	unlink(console);
	return 0;
}

static const char *qemu_describe(struct lace_backend *be)
{
	struct qemu_priv *p = be->priv;
	const char *k = strrchr(p->kernel_path, '/');

	snprintf(p->describe, sizeof(p->describe), "qemu (%.100s, %.100s, %u run%s per boot)",
		 k ? k + 1 : p->kernel_path[0] ? p->kernel_path : "kernel",
		 p->prof.name[0] ? p->prof.name : p->profile_name, p->loops,
		 p->loops == 1 ? "" : "s");
	return p->describe;
}

static int qemu_set_option(struct lace_backend *be, const char *name, const char *value)
{
	struct qemu_priv *p = be->priv;
	char *end;
	long v;

	if (!strcmp(name, "kernel") || !strcmp(name, "system-map")) {
		char **slot = name[0] == 'k' ? &p->kernel : &p->sysmap;
		if (!value || !is_file(value))
			return lace_error_set(ENOENT, "--%s %s: no such file", name, value ? value : "");
		free(*slot);
		*slot = xstrdup(value);
		return 0;
	}
	if (!strcmp(name, "qemu-loops")) {
		v = value ? strtol(value, &end, 10) : 0;
		if (!value || !*value || *end || v < 1 || v > 1000000)
			return lace_error_set(EINVAL, "--qemu-loops wants a positive number, not '%s'",
					      value ? value : "");
		p->loops = (unsigned)v;
		return 0;
	}
	if (!strcmp(name, "cpu-profile")) {
		struct sim_profile scratch;
		int err = sim_profile_load(value, &scratch);
		if (err)
			return err == -ENOENT ? -EINVAL : err;
		snprintf(p->profile_name, sizeof(p->profile_name), "%s", value);
		return 0;
	}
	if (!strcmp(name, "per-function")) {
		p->per_function = true;
		return 0;
	}
	if (!strcmp(name, "top")) {
		v = value ? strtol(value, &end, 10) : 0;
		if (!value || !*value || *end || v < 1 || v > 100000)
			return lace_error_set(EINVAL, "--top wants a positive number, not '%s'",
					      value ? value : "");
		p->top = v;
		return 0;
	}
	return -ENOENT;
}

/* The kernel functions of the last run (runs of one kernel and workload
 * are identical under -icount; lace says when they are not). */
static void qemu_print_extra(struct lace_backend *be, FILE *out, json_t *const *extra,
			     size_t nruns)
{
	struct qemu_priv *p = be->priv;
	json_t *last = NULL, *fns, *fn;
	bool same = true;
	size_t i, nvalid = 0;

	if (!p->per_function)
		return;
	for (i = 0; i < nruns; i++) {
		if (!extra[i] || !json_object_get(extra[i], "functions"))
			continue;
		if (last && !json_equal(json_object_get(last, "kernel_counts"),
					json_object_get(extra[i], "kernel_counts")))
			same = false;
		last = extra[i];
		nvalid++;
	}
	if (!last)
		return;
	fns = json_object_get(last, "functions");
	fprintf(out, "\n Hottest kernel functions (qemu, %s; %s):\n\n",
		json_string_value(json_object_get(last, "profile")),
		nvalid < 2 ? "one run" : same ? "identical in every run" : "runs differ: last run shown");
	fprintf(out, " %14s %10s %12s %10s %10s %10s  %s\n", "instructions", "calls", "instr/call",
		"L1i-miss", "iTLB-miss", "STLB-miss", "function");
	json_array_foreach(fns, i, fn) {
		json_int_t ins = json_integer_value(json_object_get(fn, "instructions"));
		json_int_t calls = json_integer_value(json_object_get(fn, "calls"));
		char per[32] = "-";

		if (calls)
			snprintf(per, sizeof(per), "%.1f", (double)ins / (double)calls);
		fprintf(out, " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %12s %10"
			JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT
			"  %s\n", ins, calls, per,
			json_integer_value(json_object_get(fn, "l1i_misses")),
			json_integer_value(json_object_get(fn, "itlb_misses")),
			json_integer_value(json_object_get(fn, "stlb_misses")),
			json_string_value(json_object_get(fn, "name")));
	}
}

static void remove_dir(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	const char *names[] = { "initramfs.cpio", NULL };

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

	if (p->dir[0])
		remove_dir(p->dir);
	free(p->kernel);
	free(p->sysmap);
	free(p->initrd_for);
	free(p->event_idx);
	free(p->excl_user);
	free(p->excl_kernel);
	free(p);
	free(be);
}

struct lace_backend *qemu_backend_new(void)
{
	struct lace_backend *be;
	struct qemu_priv *p;

	if (qemu_backend_unavailable())
		return NULL;
	be = xcalloc(1, sizeof(*be));
	p = xcalloc(1, sizeof(*p));
	p->loops = 1;
	p->top = 20;
	snprintf(p->profile_name, sizeof(p->profile_name), "%s", SIM_PROFILE_DEFAULT);
	be->name = "qemu";
	be->priv = p;
	be->supports = qemu_supports;
	be->prepare = qemu_prepare;
	be->run = qemu_run;
	be->describe = qemu_describe;
	be->set_option = qemu_set_option;
	be->print_extra = qemu_print_extra;
	be->free = qemu_free;
	return be;
}
