/* sysinfo: what this machine has to run work side by side. */
#ifndef LACE_SYSINFO_H
#define LACE_SYSINFO_H

/* MemAvailable of /proc/meminfo in MiB: what the kernel estimates can be
 * given to new work without swapping (free memory plus the page cache and
 * slab it can reclaim); -1 when it cannot be read. */
long sysinfo_mem_available_mib(void);

#endif
