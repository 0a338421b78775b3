/* Reading what lace-vg wrote: one file per process image
 * (<prefix>.<pid>.<n>), merged for the totals and kept per process. */
#ifndef LACE_SIM_RESULTS_H
#define LACE_SIM_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/model/model.h"

struct sim_fn_result {
	char *name;
	struct sim_fn_stats s;
	uint64_t inclusive;   /* instructions from entry to return, callees included
			       * (outermost frames of recursion) */
};

/* Another CPU profile modelled in the same run (lace-vg --lace-more): its
 * events only ("more K NAME", then "mK-..." lines). */
#define SIM_MORE_MAX 7
struct sim_more {
	char name[64];
	struct sim_totals t, inherited, window;
};

struct sim_proc {
	pid_t pid, ppid;
	int image;              /* 0 for the first image of the pid, 1 after an exec ... */
	char end[16];           /* "exit" or "exec" */
	char exe[256];
	char profile[64];
	pid_t forked_from;      /* 0 unless a forked child */
	struct sim_totals t;
	struct sim_totals inherited;   /* the parent's counts at fork (cachegrind keeps them) */
	unsigned windows;              /* measurement windows the image opened */
	struct sim_totals window;      /* the counts inside them */
	struct sim_fn_result *fns;
	size_t nfns;
	struct sim_more more[SIM_MORE_MAX];   /* the other profiles, in order */
	size_t nmore;
};

struct sim_results {
	struct sim_proc *procs;   /* sorted by pid, then image */
	size_t nprocs;
	struct sim_totals total;  /* sum of the processes' own counts */
	struct sim_totals window; /* sum of their counts inside windows */
	size_t window_procs;      /* processes (images) that opened a window */
	struct sim_fn_result *fns;   /* merged by name, most instructions first */
	size_t nfns;
	/* the other profiles' totals and windows, as total and window */
	struct sim_totals more_total[SIM_MORE_MAX], more_window[SIM_MORE_MAX];
	size_t nmore;
};

/* Parse one file.  0, or -EINVAL with "line N: ..." set. */
int sim_proc_parse(const char *text, struct sim_proc *p);
/* Read every <dir>/<prefix>.* file and merge.  0 or -errno (message set);
 * no file at all is -ENOENT. */
int sim_results_load(const char *dir, const char *prefix, struct sim_results *r);
void sim_results_free(struct sim_results *r);

/* The counter of t for an event name ("instructions", "L1-icache-load-misses",
 * "stlb-misses" ...); -1 when the simulator has no such event. */
int sim_event_index(const char *name);
uint64_t sim_totals_get(const struct sim_totals *t, int index);
/* The event names sim_event_index() knows, NULL-terminated. */
extern const char *const sim_event_names[];

#endif
