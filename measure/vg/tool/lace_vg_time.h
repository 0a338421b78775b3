/* The client requests lace-vg answers: the virtual clock of its preload,
 * and the measurement window workloads mark (measure/lace_window.h). */
#ifndef LACE_VG_TIME_H
#define LACE_VG_TIME_H

#include "valgrind.h"
#include "measure/lace_window.h"

/* arg1: clock id; returns the virtual time in nanoseconds */
#define LACE_VG_USERREQ_TIME VG_USERREQ_TOOL_BASE('L', 'V')
/* no arguments: start / stop counting into the window (the numbers are
 * the workloads' header's, one definition) */
#define LACE_VG_USERREQ_WINDOW_BEGIN LACE_WINDOW_REQ_BEGIN
#define LACE_VG_USERREQ_WINDOW_END LACE_WINDOW_REQ_END

#endif
