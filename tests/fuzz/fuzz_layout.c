/* Fuzz target: everything `lace layout` computes: loading with DWARF,
 * disassembly of every function (branches and targets), jump-label tables
 * and SDT notes, then the model invariants. */
#include "layout/image.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lace_load_opts opts = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = true, .branches = true };
	struct lace_image *img = NULL;

	if (image_load(fuzz_input_path(0, data, size), &opts, &img) == 0) {
		fuzz_check_image(img);
		image_free(img);
	}
	lace_error_clear();
	return 0;
}
