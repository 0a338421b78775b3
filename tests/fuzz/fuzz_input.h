/* Shared by the fuzz harnesses: hand a fuzz input to code that wants a path.
 *
 * libbfd opens files by name, so every input is written to an in-memory file
 * (memfd) and loaded through /proc/self/fd/N: the real loader runs on it,
 * with no disk I/O and no temporary files left behind by a crash. */
#ifndef LACE_FUZZ_INPUT_H
#define LACE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* Write data to in-memory file `slot` (0 or 1; a diff needs two) and return
 * a path that opens it; the path stays valid until the next call for the
 * same slot.  Aborts if the memfd cannot be made: that is a broken harness,
 * not a finding. */
const char *fuzz_input_path(int slot, const uint8_t *data, size_t size);

/* Split one input into two for two-input targets (diff): the first two
 * bytes pick the split point, so the fuzzer can move it as it likes. */
void fuzz_input_split(const uint8_t *data, size_t size,
		      const uint8_t **a, size_t *alen, const uint8_t **b, size_t *blen);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
