/* The virtual clock of the simulator, preloaded into the client (as
 * vgpreload_lace-vg-time-amd64-linux.so, named in LD_PRELOAD by the
 * backend) when lace runs a workload under lace-vg.
 *
 * Workloads print their own timings (faults/s, "Time: 0.123"); formatting
 * a different number executes a different number of instructions, so with
 * the real clock no two simulated runs agree exactly.  These replacements
 * of libc's clock functions ask the tool for a virtual time instead: a
 * fixed start plus one nanosecond per instruction the process (and its
 * ancestors, before the fork) executed.  Elapsed times become path
 * lengths, and runs are identical.
 *
 * This is client code: it runs on the simulated CPU, uses no libc, and
 * must not call the functions it replaces. */
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"
#include "measure/vg/tool/lace_vg_time.h"

struct lace_timespec {
	long tv_sec;
	long tv_nsec;
};

struct lace_timeval {
	long tv_sec;
	long tv_usec;
};

static unsigned long long vtime(int clk)
{
	return (unsigned long long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, LACE_VG_USERREQ_TIME, clk, 0,
								   0, 0, 0);
}

#define CLOCK_GETTIME_BODY                                                  \
	{                                                                   \
		unsigned long long ns = vtime(clk);                         \
		if (ts) {                                                   \
			ts->tv_sec = (long)(ns / 1000000000ull);            \
			ts->tv_nsec = (long)(ns % 1000000000ull);           \
		}                                                           \
		return 0;                                                   \
	}

int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, clock_gettime)(int clk, struct lace_timespec *ts);
int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, clock_gettime)(int clk, struct lace_timespec *ts)
CLOCK_GETTIME_BODY

int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, __clock_gettime)(int clk, struct lace_timespec *ts);
int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, __clock_gettime)(int clk, struct lace_timespec *ts)
CLOCK_GETTIME_BODY

int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, gettimeofday)(struct lace_timeval *tv, void *tz);
int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, gettimeofday)(struct lace_timeval *tv, void *tz)
{
	unsigned long long ns = vtime(0);

	if (tv) {
		tv->tv_sec = (long)(ns / 1000000000ull);
		tv->tv_usec = (long)(ns % 1000000000ull / 1000);
	}
	return 0;
}

long VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, time)(long *t);
long VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, time)(long *t)
{
	long s = (long)(vtime(0) / 1000000000ull);

	if (t)
		*t = s;
	return s;
}
