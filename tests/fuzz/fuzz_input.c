/* In-memory input files for the fuzz harnesses (see fuzz_input.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_input.h"

static int fds[2] = { -1, -1 };
static char paths[2][64];

const char *fuzz_input_path(int slot, const uint8_t *data, size_t size)
{
	if (slot < 0 || slot > 1)
		abort();
	if (fds[slot] < 0) {
		fds[slot] = memfd_create(slot ? "lace-fuzz-b" : "lace-fuzz-a", 0);
		if (fds[slot] < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
	}
	/* set the exact size (a stale tail of a longer previous input must not
	 * be read) without truncating to 0 first: the memfd keeps its pages, so
	 * an execution costs no page allocation */
	if (ftruncate(fds[slot], (off_t)size) < 0)
		abort();
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(fds[slot], data + done, size - done, (off_t)done);
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return paths[slot];
}

void fuzz_input_split(const uint8_t *data, size_t size,
		      const uint8_t **a, size_t *alen, const uint8_t **b, size_t *blen)
{
	size_t cut = 0;

	if (size >= 2) {
		cut = ((size_t)data[0] | (size_t)data[1] << 8) % (size - 1);
		data += 2;
		size -= 2;
	} else {
		size = 0;
	}
	*a = data;
	*alen = cut;
	*b = data + cut;
	*blen = size - cut;
}
