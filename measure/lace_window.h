/* The measurement window of a workload: the part of the run lace counts
 * under `lace stat --backend sim --window` (and `lace ab` / the study with
 * the same option), so that start-up -- the dynamic loader, libc's
 * initialisation, building the workload's data -- is not in the numbers.
 *
 *     lace_window_begin();
 *     ... the work being measured ...
 *     lace_window_end();
 *
 * Outside the simulator each mark is Valgrind's client-request preamble: a
 * handful of rotates of %rdi that leave every register as it was (about
 * six instructions, no memory access, no system call), so marked binaries
 * run and count as before on the hardware and under other tools.  Marks
 * may repeat (the windows are summed); an unclosed window ends at exit; a
 * child forked inside a window counts its own.
 *
 * Header-only, for workloads: nothing here links against lace. */
#ifndef LACE_WINDOW_H
#define LACE_WINDOW_H

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define LACE_WINDOW_HAVE_VALGRIND 1
#endif
#endif

#ifdef LACE_WINDOW_HAVE_VALGRIND
/* the requests lace-vg answers (measure/vg/tool/lace_vg_main.c) */
#define LACE_WINDOW_REQ_BEGIN (VG_USERREQ_TOOL_BASE('L', 'V') + 1)
#define LACE_WINDOW_REQ_END (VG_USERREQ_TOOL_BASE('L', 'V') + 2)
static inline void lace_window_begin(void)
{
	VALGRIND_DO_CLIENT_REQUEST_STMT(LACE_WINDOW_REQ_BEGIN, 0, 0, 0, 0, 0);
}
static inline void lace_window_end(void)
{
	VALGRIND_DO_CLIENT_REQUEST_STMT(LACE_WINDOW_REQ_END, 0, 0, 0, 0, 0);
}
#else
/* built without Valgrind's header: no window, whole-run counts */
static inline void lace_window_begin(void) {}
static inline void lace_window_end(void) {}
#endif

#endif
