/* Fuzz target: everything `lace layout` computes and prints: loading with
 * DWARF, disassembly of every function (branches and targets), jump-label
 * tables and SDT notes, the model invariants, then the text, JSON and CSV
 * renderings (into a sink stream: no system calls per input). */
#include <stdio.h>

#include "layout/image.h"
#include "layout/output.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/error.h"

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)size;
}

static FILE *sink(void)
{
	static FILE *f;
	if (!f) {
		cookie_io_functions_t io = { .write = sink_write };
		f = fopencookie(NULL, "w", io);
		if (!f)
			__builtin_trap();
	}
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lace_load_opts opts = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = true, .branches = true };
	struct lace_image *img = NULL;

	if (image_load(fuzz_input_path(0, data, size), &opts, &img) == 0) {
		fuzz_check_image(img);
		layout_print_text(sink(), img, LAYOUT_ALL);
		layout_print_text(sink(), img, LAYOUT_BRANCHES);
		layout_print_json(sink(), img, LAYOUT_ALL);
		layout_print_csv(sink(), img, LAYOUT_ALL);
		layout_print_csv(sink(), img, LAYOUT_BRANCHES);
		fflush(sink());
		image_free(img);
	}
	lace_error_clear();
	return 0;
}
