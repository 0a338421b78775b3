/* time: the one clock lace measures its own durations with. */
#ifndef LACE_UTIL_TIME_H
#define LACE_UTIL_TIME_H

/* Seconds on CLOCK_MONOTONIC (not wall time: immune to clock changes),
 * for differences only. */
double time_now_s(void);

#endif
