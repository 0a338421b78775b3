/* What this machine has; see sysinfo.h. */
#include "util/sysinfo.h"

#include <stdio.h>
#include <string.h>

long sysinfo_mem_available_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib / 1024;
}
