/* The studies' progress: pipeline/ says what it did, cli/ decides how
 * (or whether) to show it, since library code does not print. */
#ifndef LACE_PIPELINE_PROGRESS_H
#define LACE_PIPELINE_PROGRESS_H

#include <stddef.h>

struct study_progress {
	const char *phase;   /* "build", "measure", ... */
	const char *what;    /* the step that just ended (or, with total 0, began) */
	size_t done, total;  /* steps of the phase; total 0: a single step */
	size_t failed;       /* steps of the phase that failed so far */
	int step_failed;     /* the step that just ended failed: what says why */
	double elapsed;      /* seconds since the study began */
	double left;         /* estimated seconds left in the phase; < 0: unknown */
};

typedef void study_progress_fn(void *data, const struct study_progress *p);

/* Tell fn (when not NULL) that a step of phase begins: what it is, from
 * fmt, and the time since t0 (time_now_s() when the study began). */
void study_progress_notef(study_progress_fn *fn, void *data, double t0, const char *phase,
			  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
