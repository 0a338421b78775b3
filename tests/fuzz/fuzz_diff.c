/* Fuzz target: `lace diff` on two inputs.  The fuzz input is split in two
 * (fuzz_input_split: its first two bytes pick the cut), both halves are
 * loaded with disassembly (cross-region branches, jump sites), compared
 * with the default options (default hot set and rule severities), and the
 * comparison rendered as text, JSON, CSV and Markdown. */
#include "layout/diff.h"
#include "layout/diff_output.h"
#include "layout/image.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/error.h"
#include "util/strbuf.h"

static struct lace_image *load(int slot, const uint8_t *data, size_t size)
{
	struct lace_load_opts opts = { .geom = LACE_GEOMETRY_DEFAULT, .dwarf = false, .branches = true };
	struct lace_image *img = NULL;

	if (image_load(fuzz_input_path(slot, data, size), &opts, &img) < 0)
		return NULL;
	return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *a, *b;
	size_t alen, blen;
	struct lace_image *old = NULL, *new = NULL;
	struct lace_diff_opts dopts = LACE_DIFF_OPTS_DEFAULT;
	struct lace_diff *d = NULL;

	fuzz_input_split(data, size, &a, &alen, &b, &blen);
	old = load(0, a, alen);
	if (old)
		new = load(1, b, blen);
	if (old && new && diff_images(old, new, &dopts, &d) == 0) {
		for (size_t i = 0; i < d->nfuncs; i++) {
			const struct lace_func_delta *f = &d->funcs[i];
			if (f->old_idx >= (int)old->nfuncs || f->new_idx >= (int)new->nfuncs)
				__builtin_trap(); /* a delta pointing outside its image */
		}
		(void)diff_max_severity(d);
		struct lace_diff_print_opts po = { .all = size & 1, .hot_source = NULL };
		struct strbuf sb = STRBUF_INIT;
		diff_output_text(d, &po, &sb);
		if (diff_output_json(d, &po, &sb) < 0)
			__builtin_trap(); /* only jansson running out of memory may fail */
		diff_output_csv(d, &po, &sb);
		diff_output_md(d, &po, &sb);
		strbuf_release(&sb);
		diff_free(d);
	}
	if (new)
		image_free(new);
	if (old)
		image_free(old);
	lace_error_clear();
	return 0;
}
