/* The measuring backend: how one run of a workload is counted.
 *
 * `lace stat` and `lace ab` parse the event list (measure/events.h) into
 * struct lace_event_spec, choose backends with backend_select(), then for
 * every run call backend->run() with the workload's argv.  The hardware
 * backend (measure/backend_hw.c) counts with perf_event_open; the model
 * hosts run lace's models (measure/model/): the Valgrind tool
 * (measure/vg/, `--backend sim`) or QEMU (measure/qemu/).  All
 * start the workload through the shared runner (measure/runner.h), so
 * pinning, timeouts, output handling and fault classification are the same
 * whichever backend counts.
 *
 * A backend owns the events whose spec->backend points at it; in one run it
 * fills result->counts[i] for those indices only and leaves the others
 * untouched.  With `--backend auto` hardware events the CPU cannot count are
 * handed to the simulator (and lace says so): a run is then one native run
 * plus one simulated run of the same command, and the native run supplies
 * the timing and fault fields.
 *
 * This header is an interface other modules implement: extend it, never
 * change the meaning of a field. */
#ifndef LACE_MEASURE_BACKEND_H
#define LACE_MEASURE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

struct lace_backend;

/* What kind of name the user typed; decides how it is opened. */
enum lace_event_kind {
	LACE_EV_HARDWARE,   /* generic: cycles, instructions, branch-misses ... */
	LACE_EV_CACHE,      /* PERF_TYPE_HW_CACHE grid: L1-icache-load-misses ... */
	LACE_EV_SOFTWARE,   /* task-clock, page-faults, context-switches ... */
	LACE_EV_TRACEPOINT, /* sys:name, probe:NAME, sdt_*:NAME (tracefs id) */
	LACE_EV_RAW,        /* rNNNN */
	LACE_EV_PMU,        /* pmu/config=...,config1=.../ */
	LACE_EV_NATIVE,     /* a libpfm4 name: INST_RETIRED.ANY_P ... */
	LACE_EV_SIM_ONLY,   /* a name only the simulator knows: fetch-blocks ... */
	LACE_EV_TOOL,       /* perf's tool events: duration_time (the run's wall
			     * clock in ns, from the runner, no counter opened) */
};

/* One parsed event.  Filled by events_parse(); backend and simulated are
 * set by backend_select(). */
struct lace_event_spec {
	char *name;          /* as typed, modifiers included: "iTLB-load-misses:u" */
	char *base;          /* without modifiers: "iTLB-load-misses" */
	enum lace_event_kind kind;
	uint32_t type;       /* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	const char *unit;    /* "msec" for the clocks, "" for plain counts */
	double scale;        /* multiply the count by this for display (ns->ms: 1e-6) */
	int group;           /* events with the same group id are opened as one group;
			      * -1 = alone */
	bool hardware;       /* needs a PMU (hardware, cache, raw, pmu, native) */
	bool simulated;      /* counted by the simulator, labelled so in output */
	struct lace_backend *backend; /* who counts it in a run */
	bool host_missing;   /* a tracepoint this machine's kernel lacks: only a
			      * guest kernel (--backend qemu) can count it */
	bool by_default;     /* from the default list, not asked for: with
			      * --backend auto it is not sent to the simulator
			      * (a default `lace stat` must not run valgrind) */
	char *profile_name;  /* NAME@PROFILE: the CPU profile whose model counts
			      * it (a model host running several, --cpu-profile
			      * A,B); NULL: the host's only or first one */
	int profile;         /* set by session_select(): that profile's index
			      * in the model host's list (0: the first) */
};

/* How one event came out of one run, with perf's conventions. */
enum lace_count_status {
	LACE_COUNT_OK = 0,           /* counted (maybe scaled: see running/enabled) */
	LACE_COUNT_NOT_SUPPORTED,    /* perf's <not supported>: cannot be opened here */
	LACE_COUNT_NOT_COUNTED,      /* perf's <not counted>: opened, never scheduled */
};

struct lace_count {
	enum lace_count_status status;
	uint64_t raw;           /* the counter as read */
	uint64_t time_enabled;  /* ns, from PERF_FORMAT_TOTAL_TIME_ENABLED */
	uint64_t time_running;  /* ns, from PERF_FORMAT_TOTAL_TIME_RUNNING */
	double value;           /* raw scaled by enabled/running when multiplexed
				 * (perf's scaling); unit scale NOT applied */
};

/* Per-process counts, when a backend can tell processes apart (the
 * simulator writes one file per process).  values[] is indexed like
 * result->counts; events this backend does not own are NaN. */
struct lace_proc_result {
	pid_t pid;
	char comm[32];
	double *values;
};

/* Why a run did not end well.  More than one may apply (a flood that was
 * killed is FLOOD, not SIGNAL: the first cause wins in `fault`). */
enum lace_run_fault {
	LACE_FAULT_NONE = 0,
	LACE_FAULT_EXIT,        /* exited with a non-zero status */
	LACE_FAULT_SIGNAL,      /* killed by a signal it did not get from lace */
	LACE_FAULT_TIMEOUT,     /* ran past --timeout; lace killed its process group */
	LACE_FAULT_FLOOD,       /* wrote more than the output limit; lace killed it */
	LACE_FAULT_LEFTOVER,    /* exited but left processes behind (lace killed them) */
	LACE_FAULT_START,       /* could not be started (exec failed, --pre failed) */
	LACE_FAULT_INTERRUPTED, /* lace got SIGINT/SIGTERM during the run */
};

/* The outcome of one run.  The caller allocates counts[nevents] (zeroed,
 * status LACE_COUNT_NOT_COUNTED) before calling backend->run(). */
struct lace_run_result {
	size_t nevents;
	struct lace_count *counts;

	double elapsed_s;       /* wall clock from go to exit */
	double user_s, sys_s;   /* rusage of the whole child tree (wait4) */
	long ctx_switches;      /* voluntary + involuntary, child tree (rusage) */
	long migrations;        /* cpu-migrations of the child tree; -1 = unknown */
	long max_rss_kb;
	int exit_status;        /* WEXITSTATUS when exited normally, else -1 */
	int term_signal;        /* signal that ended it, 0 = none */
	bool timed_out;
	uint64_t output_bytes;  /* what the workload wrote to stdout+stderr */
	int leftover;           /* processes still alive after the workload exited */
	enum lace_run_fault fault;
	char fault_msg[128];    /* one line: "killed by SIGSEGV", "exit status 3" */

	/* optional, owned by the result (run_result_release frees them) */
	struct lace_proc_result *procs;
	size_t nprocs;
	json_t *extra;          /* backend data stored in the results file under
				 * "backend_data" (per-function tables ...) */
};

/* Options of one run, common to every backend. */
struct lace_run_opts {
	const char *cpu_list;     /* -C: pin the workload to these CPUs; NULL = no */
	double timeout_s;         /* kill the process group after this; 0 = never */
	bool show_output;         /* pass the workload's output to our stderr */
	uint64_t output_limit;    /* bytes before a run counts as a flood; 0 = none */
	bool follow_children;     /* count children and threads (default true) */
	const char *stdin_path;   /* NULL = /dev/null */
	volatile const int *stop; /* set non-zero by a signal handler: end now */
	char side;                /* lace ab: 'A' or 'B', the side this run is of
				   * (the qemu backend boots each side's kernel);
				   * 0 for lace stat */
	long boot;                /* this run's place among its side's runs of the
				   * batch, warmups included, from 0: the session
				   * sets it, so a run does not depend on which runs
				   * went before it in this process (lace stat -j) */
};

/* A backend.  name is "hw" (backend_hw.c), "sim" (the Valgrind tool,
 * measure/vg/backend_vg.c) or "qemu" (measure/qemu/backend_qemu.c). */
struct lace_backend {
	const char *name;
	void *priv;
	/* What one run may take of the host's memory, MiB, as prepare()
	 * learned it (the qemu backend: its guest's -m and QEMU's own); 0:
	 * not said.  The default -j runs no more at once than fit in
	 * MemAvailable. */
	unsigned long run_mib;

	/* Can this backend count ev here?  May probe (perf_event_open on self).
	 * On false, *why gets a short reason ("not supported by this CPU"). */
	bool (*supports)(struct lace_backend *be, const struct lace_event_spec *ev,
			 const char **why);
	/* Called once with the whole event list before the first run; the
	 * backend looks only at events whose ->backend is be.  0 or -errno
	 * (message through lace_error_set). */
	int (*prepare)(struct lace_backend *be, struct lace_event_spec *evs, size_t nevents);
	/* Run argv once and fill res.  Returns 0 when the run happened (even if
	 * the workload crashed: that is res->fault), -errno when the backend
	 * itself failed (then the batch stops). */
	int (*run)(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts,
		   struct lace_run_result *res);
	/* Optional.  What every run of argv on opts->side shares, done once in
	 * lace's own process before runs are forked to be in flight together
	 * (lace stat/ab -j N): the qemu backend builds the side's initramfs.
	 * A backend without it, or whose run_setup returns 1, runs one run at
	 * a time.  0, 1 or -errno. */
	int (*run_setup)(struct lace_backend *be, char *const argv[], const struct lace_run_opts *opts);
	/* A label for output, e.g. "perf_event" or "sim (skylake-client)". */
	const char *(*describe)(struct lace_backend *be);
	/* Backend options given on the command line (--cpu-profile NAME ...):
	 * 0 when taken, -ENOENT when the backend does not know the name,
	 * other -errno for a bad value.  May be NULL. */
	int (*set_option)(struct lace_backend *be, const char *name, const char *value);
	/* Optional, model hosts.  The CPU profiles it runs the models of in
	 * every run (--cpu-profile A,B), in order, as *names; how many (0:
	 * none named yet).  With more than one, session_select() makes each
	 * of the host's events but instructions (the same in every model)
	 * one event per profile, NAME@PROFILE, spec->profile its index. */
	size_t (*profiles)(struct lace_backend *be, const char *const **names);
	/* Extra report after the summary (per-function tables ...) from the
	 * backend_data of the runs; may be NULL. */
	void (*print_extra)(struct lace_backend *be, FILE *out, json_t *const *extra, size_t nruns);
	void (*free)(struct lace_backend *be);
};

/* For print_extra: the last run's backend data that has `key` (NULL when
 * none has), how many runs have it, and whether `same_key`'s value was
 * equal in all of them (runs of a deterministic simulation should be). */
json_t *backend_extra_last(json_t *const *extra, size_t nruns, const char *key,
			   const char *same_key, size_t *nvalid, bool *same);
/* "one run", "identical in every run" or "runs differ: last run shown" */
const char *backend_extra_agreement(size_t nvalid, bool same);

/* A backend option that `lace stat`/`lace ab` accept and pass on with
 * set_option(); has_arg as in getopt_long.  Each backend owns its table
 * (ending with a NULL name); `--help` shows each under its own heading. */
struct lace_backend_option {
	const char *name;
	int has_arg;
	const char *argh; /* the argument's name in the usage: NAME, FILE */
	const char *help;
};

/* For set_option(): a whole number option's value through parse_long(),
 * so every backend option follows the rules of util/parse_num.h; 0, or
 * -EINVAL with "--NAME needs a whole number from MIN to MAX, not 'V'". */
int backend_option_long(const char *name, const char *value, long min, long max, long *out);

/* The Valgrind host (measure/vg/backend_vg.c, `--backend sim`): it runs
 * lace's models in the lace-vg Valgrind tool that `make` builds next to
 * lace.  vg_backend_new() is NULL when the tool or valgrind is missing;
 * vg_backend_unavailable() then says which, and the remedy. */
/* A backend from its operations (a static const template, priv NULL):
 * a copy, with priv set; each *_backend_new() says its table once. */
struct lace_backend *backend_new(const struct lace_backend *ops, void *priv);

struct lace_backend *vg_backend_new(void);
const char *vg_backend_unavailable(void);
extern const struct lace_backend_option vg_backend_options[];

/* The perf_event_open backend (measure/backend_hw.c). */
struct lace_backend *hw_backend_new(void);

/* The QEMU host (measure/qemu/backend_qemu.c, `--backend qemu`): boots a
 * kernel under QEMU with lace's TCG plugin and counts kernel and user code
 * inside a window around the workload.  NULL when QEMU or the plugin is
 * missing; qemu_backend_unavailable() then says which.  Its own options
 * (--kernel, --system-map, --qemu-loops ...) are qemu_backend_options[];
 * it also takes the model options both hosts share (--cpu-profile,
 * --per-function, --top), which are listed in vg_backend_options[]. */
struct lace_backend *qemu_backend_new(void);
const char *qemu_backend_unavailable(void);
/* What one boot may take of the host's memory, MiB: the guest's -m and
 * QEMU's own, for guest architecture arch (enum guest_arch), or the most
 * of any with -1.  For a default number of boots at once. */
unsigned long qemu_run_mib(int arch);
extern const struct lace_backend_option qemu_backend_options[];

enum lace_backend_mode { LACE_BACKEND_AUTO, LACE_BACKEND_HW, LACE_BACKEND_SIM,
			 LACE_BACKEND_QEMU };

/* Parse "auto" | "hw" | "sim" | "qemu"; -EINVAL otherwise. */
int backend_mode_parse(const char *s, enum lace_backend_mode *mode);

/* The backends of one batch: at most one hardware backend and one model
 * host, the backend that runs lace's models (lace-vg, or QEMU with
 * --backend qemu). */
struct lace_backend_set {
	struct lace_backend *hw;
	struct lace_backend *model_host;
	/* one line for stderr when auto fell back ("iTLB-loads, ... not supported
	 * by this CPU: counted by the simulator"), or "" */
	char note[512];
	/* why hardware events could not be opened at all, for the hint */
	char hint[512];
	/* the events of the batch, from backend_set_prepare() */
	const struct lace_event_spec *evs;
	size_t nevents;
};

/* Set ev->backend and ev->simulated for every event.  auto: events the
 * hardware backend supports go to it, the rest to the simulator when it is
 * built and knows them, else stay on hw (and print <not supported>).
 * hw: all on hw.  sim: events the simulator knows go there, the rest
 * (software events, tracepoints) stay on hw.  Returns 0 or -errno. */
int backend_select(struct lace_backend_set *set, enum lace_backend_mode mode,
		   struct lace_event_spec *evs, size_t nevents);
/* Pass a backend option to whichever backend takes it; -ENOENT with a
 * message naming the backend it belongs to when none in the set does. */
int backend_set_option(struct lace_backend_set *set, const char *name, const char *value);
/* Prepare each backend, then run one measurement of argv: every backend
 * that owns an event runs once; the first (hw) supplies the timing. */
int backend_set_prepare(struct lace_backend_set *set, struct lace_event_spec *evs,
			size_t nevents);
int backend_set_run(struct lace_backend_set *set, char *const argv[],
		    const struct lace_run_opts *opts, struct lace_run_result *res);
void backend_set_release(struct lace_backend_set *set);

/* Allocate counts for n events (all NOT_COUNTED); release frees counts,
 * procs and extra. */
void run_result_init(struct lace_run_result *res, size_t nevents);
void run_result_release(struct lace_run_result *res);
/* Name of a fault for output and the results file: "ok", "exit",
 * "signal", "timeout", "flood", "leftover", "start", "interrupted". */
const char *run_fault_name(enum lace_run_fault f);
int run_fault_parse(const char *s, enum lace_run_fault *f);

#endif
