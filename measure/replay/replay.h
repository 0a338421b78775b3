/* `lace replay`'s engine: feed a recording's instruction stream
 * (measure/replay/record_file.h) through the front-end model (measure/model)
 * again, for the recorded build or for another layout of the same code.
 *
 * Another layout: every executed address of the recorded object is
 * carried over by function + offset.  The recorded build's functions give
 * (function, offset), the layout's give the function's new start; both
 * tables come from the caller (measure/ reads no ELF: cli/ fills them from
 * layout/symkeys.h).  A function missing from the layout, or of another
 * size there, is mapped by offset and counted as approximate; addresses
 * outside the recorded build's functions keep theirs and are counted as
 * such. */
#ifndef LACE_MEASURE_REPLAY_H
#define LACE_MEASURE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/model/model.h"
#include "measure/replay/record_file.h"

/* One piece of code (a function, or an input section of a link map): a
 * key naming it in both builds, sorted by addr.  Its addresses
 * [addr, addr + extent) move with it (extent 0: size); it is carried
 * exactly when both builds give it the same size. */
struct replay_sym {
	const char *key;
	const char *name;
	uint64_t addr, size;
	uint64_t extent;
};

struct replay_layout {
	const struct replay_sym *old;   /* the recorded build */
	size_t nold;
	const struct replay_sym *new;   /* this layout */
	size_t nnew;
	/* the recorded object: its code is found by the MAP records of this
	 * path (user space, with their load bias); NULL: every address, bias
	 * 0 (a kernel) */
	const char *object;
	/* count the executed instructions of every old piece (the result's
	 * hot_fns) */
	bool heat;
	/* this layout's kernel text in large pages, [large_lo, large_hi), in
	 * place of the recording's (a build maps its own text: where its
	 * _etext falls decides which 2 MiB pages are split); unset: the
	 * recording's */
	bool large_set;
	uint64_t large_lo, large_hi;
};

struct replay_proc {
	uint64_t pid;
	struct sim_totals t;
	unsigned windows;
	struct sim_totals window;
};

struct replay_fn {
	const char *name;
	uint64_t instructions;
};

struct replay_result {
	struct replay_proc *procs;
	size_t nprocs;
	struct sim_totals total;    /* sum of the processes' */
	struct sim_totals window;   /* sum of their windows */
	size_t window_procs;
	/* a TCG plugin's recording: the windows' counts by side */
	struct sim_totals user, kernel;
	/* executed instructions by how they were carried over (a layout) */
	uint64_t exact, approx, outside;
	struct replay_fn *approx_fns;   /* most instructions first */
	size_t napprox_fns;
	struct replay_fn *hot_fns;      /* with heat: every old piece that ran, most first */
	size_t nhot_fns;
};

/* Replay rec through lay (NULL: the recorded layout itself) into *out.
 * 0, or -EINVAL with the message set when the stream is malformed. */
int replay_run(const struct lace_record *rec, const struct replay_layout *lay,
	       struct replay_result *out);
/* replay_run() of each of n layouts (lays[i] NULL: the recorded one) into
 * out[i], up to jobs at a time (threads: they share the recording, which
 * no run writes).  0, or the error of the first layout that failed, its
 * message set (*failed: its index). */
int replay_run_many(const struct lace_record *rec, const struct replay_layout *const *lays,
		    size_t n, struct replay_result *out, unsigned jobs, size_t *failed);
void replay_result_free(struct replay_result *r);

#endif
