/* The client request between lace-vg and its virtual-clock preload. */
#ifndef LACE_VG_TIME_H
#define LACE_VG_TIME_H

#include "valgrind.h"

/* arg1: clock id; returns the virtual time in nanoseconds */
#define LACE_VG_USERREQ_TIME VG_USERREQ_TOOL_BASE('L', 'V')

#endif
