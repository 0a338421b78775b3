/* A step that begins, told to the studies' progress callback
 * (pipeline/progress.h). */
#include "pipeline/progress.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/time.h"

void study_progress_notef(study_progress_fn *fn, void *data, double t0, const char *phase,
			  const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(data, &(struct study_progress){ .phase = phase, .what = buf, .elapsed = time_now_s() - t0,
					   .left = -1 });
}
