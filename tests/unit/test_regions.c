/* Region assignment (sections, nested marker pairs, the merged cold run)
 * and cold/part/clone suffixes joined to their parents, on a synthetic
 * image: the same steps image_load() runs after reading symbols. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "layout/image_priv.h"
#include "layout/names.h"
#include "util/xalloc.h"

static void test_suffix_parse(void **state)
{
	size_t b;
	assert_int_equal(name_parse_suffix("foo", &b), LACE_SUFFIX_NONE);
	assert_int_equal(b, 3);
	assert_int_equal(name_parse_suffix("foo.cold", &b), LACE_SUFFIX_COLD);
	assert_int_equal(b, 3);
	assert_int_equal(name_parse_suffix("foo.cold.12", &b), LACE_SUFFIX_COLD);
	assert_int_equal(name_parse_suffix("foo.part.0", &b), LACE_SUFFIX_PART);
	assert_int_equal(name_parse_suffix("foo.isra.3", &b), LACE_SUFFIX_ISRA);
	assert_int_equal(name_parse_suffix("foo.constprop.0.isra.0", &b), LACE_SUFFIX_CONSTPROP);
	assert_int_equal(name_parse_suffix("bdev_name.constprop.0.cold", &b), LACE_SUFFIX_COLD);
	assert_int_equal(b, 9);
	assert_int_equal(name_parse_suffix("foo.llvm.1234567", &b), LACE_SUFFIX_LLVM);
	assert_int_equal(name_parse_suffix("foo.lto_priv.0", &b), LACE_SUFFIX_OTHER);
	assert_int_equal(name_parse_suffix(".Lfoo.cold", &b), LACE_SUFFIX_NONE);
	assert_int_equal(name_strip_last("a.isra.0.cold.2"), strlen("a.isra.0"));
	assert_int_equal(name_strip_last("a.part.3"), 1);
	assert_int_equal(name_strip_last("a.cold"), 1);
	assert_int_equal(name_strip_last("plain"), 5);
}

struct fx {
	struct lace_image img;
	struct image_priv priv;
};

static void sym(struct fx *x, const char *name, uint64_t addr, uint64_t size, unsigned type)
{
	struct image_symbol *s = &x->priv.syms[x->priv.nsyms++];
	s->name = name;
	s->addr = addr;
	s->size = size;
	s->type = (unsigned char)type;
	s->bind = STB_GLOBAL;
	s->section = addr >= 0x10000 ? 1 : 0;
}

static void func(struct fx *x, const char *name, uint64_t addr, uint64_t size, const char *file)
{
	struct lace_function *f = &x->img.funcs[x->img.nfuncs++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->addr = addr;
	f->size = size;
	f->section = addr >= 0x10000 ? 1 : 0;
	f->global = file == NULL;
	f->file = file ? xstrdup(file) : NULL;
	sym(x, name, addr, size, STT_FUNC);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct image_symbol *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* .text [0x1000, 0x3000): a, the cold run (a.cold, x.constprop.0.cold),
 * entry [0x1800, 0x1900) holding irqentry [0x1840, 0x1880), a __start_foo
 * range [0x2000, 0x2100); .text.unlikely [0x10000, 0x10100) holding y.cold */
static struct fx *fixture(void)
{
	struct fx *x = xcalloc(1, sizeof(*x));
	static struct lace_section secs[2] = {
		{ .name = ".text", .addr = 0x1000, .size = 0x2000, .code = true, .alloc = true },
		{ .name = ".text.unlikely", .addr = 0x10000, .size = 0x100, .code = true, .alloc = true, },
	};
	x->img.priv = &x->priv;
	x->img.sections = secs;
	x->img.nsections = 2;
	x->img.has_symbols = true;
	x->img.geom = (struct lace_geometry)LACE_GEOMETRY_DEFAULT;
	x->img.funcs = xcalloc(32, sizeof(*x->img.funcs));
	x->priv.syms = xcalloc(64, sizeof(*x->priv.syms));
	func(x, "a", 0x1000, 0x100, NULL);
	func(x, "x.constprop.0", 0x1100, 0x40, "x.c");
	func(x, "a.cold", 0x1400, 0x20, NULL);
	func(x, "unlikely_fn", 0x1420, 0x20, NULL);
	func(x, "x.constprop.0.cold", 0x1440, 0x10, "x.c");
	func(x, "e", 0x1800, 0x40, NULL);
	func(x, "irq", 0x1840, 0x40, NULL);
	func(x, "e2", 0x1880, 0x40, NULL);
	func(x, "f", 0x2000, 0x100, NULL);
	func(x, "g", 0x2800, 0x10, NULL);
	func(x, "y", 0x2900, 0x10, "y.c");
	func(x, "y", 0x2a00, 0x10, "other.c");
	func(x, "y.isra.0", 0x2b00, 0x10, "y.c");
	func(x, "y.cold", 0x10000, 0x10, "y.c");
	sym(x, "__entry_text_start", 0x1800, 0, STT_NOTYPE);
	sym(x, "__entry_text_end", 0x1900, 0, STT_NOTYPE);
	sym(x, "__irqentry_text_start", 0x1840, 0, STT_NOTYPE);
	sym(x, "__irqentry_text_end", 0x1880, 0, STT_NOTYPE);
	sym(x, "__start_foo", 0x2000, 0, STT_NOTYPE);
	sym(x, "__stop_foo", 0x2100, 0, STT_NOTYPE);
	sym(x, "__start_crossing", 0x1880, 0, STT_NOTYPE); /* crosses entry: dropped */
	sym(x, "__stop_crossing", 0x1a00, 0, STT_NOTYPE);
	qsort(x->priv.syms, x->priv.nsyms, sizeof(*x->priv.syms), cmp_sym);
	functions_join_parents(&x->img);
	regions_build(&x->img);
	return x;
}

static void fixture_free(struct fx *x)
{
	x->img.sections = NULL;
	x->img.nsections = 0;
	free(x->priv.syms);
	free(x->priv.rmap);
	x->img.priv = NULL;
	for (size_t i = 0; i < x->img.nfuncs; i++) {
		free(x->img.funcs[i].name);
		free(x->img.funcs[i].base_name);
		free(x->img.funcs[i].file);
	}
	for (size_t i = 0; i < x->img.nregions; i++) {
		free(x->img.regions[i].name);
		free(x->img.regions[i].start_symbol);
		free(x->img.regions[i].end_symbol);
	}
	for (size_t i = 0; i < x->img.nwarnings; i++)
		free(x->img.warnings[i]);
	free(x->img.warnings);
	free(x->img.regions);
	free(x->img.funcs);
	free(x);
}

static int fidx(const struct fx *x, const char *name, const char *file)
{
	for (size_t i = 0; i < x->img.nfuncs; i++)
		if (!strcmp(x->img.funcs[i].name, name) &&
		    (!file || (x->img.funcs[i].file && !strcmp(x->img.funcs[i].file, file))))
			return (int)i;
	return -1;
}

static const char *region_of(const struct fx *x, const char *name)
{
	int f = fidx(x, name, NULL);
	assert_true(f >= 0);
	assert_true(x->img.funcs[f].region >= 0);
	return x->img.regions[x->img.funcs[f].region].name;
}

static int ridx(const struct fx *x, const char *name)
{
	for (size_t i = 0; i < x->img.nregions; i++)
		if (!strcmp(x->img.regions[i].name, name))
			return (int)i;
	return -1;
}

static void test_regions(void **state)
{
	struct fx *x = fixture();
	const struct lace_image *img = &x->img;

	/* .text, cold, entry, irqentry, foo, .text.unlikely; "crossing" dropped */
	assert_int_equal(img->nregions, 6);
	assert_int_equal(ridx(x, "crossing"), -1);
	assert_int_equal(img->nwarnings, 1);
	int entry = ridx(x, "entry"), irq = ridx(x, "irqentry"), cold = ridx(x, "cold");
	int text = ridx(x, ".text"), foo = ridx(x, "foo");
	assert_true(entry >= 0 && irq >= 0 && cold >= 0 && text >= 0 && foo >= 0);
	assert_true(img->regions[entry].start == 0x1800 && img->regions[entry].end == 0x1900);
	assert_int_equal(img->regions[entry].kind, LACE_REGION_MARKER);
	assert_string_equal(img->regions[entry].start_symbol, "__entry_text_start");
	assert_int_equal(img->regions[irq].parent, entry);
	assert_int_equal(img->regions[entry].parent, text);
	assert_int_equal(img->regions[foo].parent, text);
	/* the cold run: first .cold piece to the end of the last one */
	assert_true(img->regions[cold].start == 0x1400 && img->regions[cold].end == 0x1450);
	assert_int_equal(img->regions[cold].kind, LACE_REGION_COLD);

	assert_string_equal(region_of(x, "a"), ".text");
	assert_string_equal(region_of(x, "a.cold"), "cold");
	assert_string_equal(region_of(x, "unlikely_fn"), "cold"); /* between cold pieces */
	assert_string_equal(region_of(x, "e"), "entry");
	assert_string_equal(region_of(x, "irq"), "irqentry");
	assert_string_equal(region_of(x, "e2"), "entry");
	assert_string_equal(region_of(x, "f"), "foo");
	assert_string_equal(region_of(x, "g"), ".text");
	assert_string_equal(region_of(x, "y.cold"), ".text.unlikely");
	/* every function in exactly one region, counted once */
	size_t total = 0;
	for (size_t i = 0; i < img->nregions; i++)
		total += img->regions[i].nfuncs;
	assert_int_equal(total, img->nfuncs);
	assert_int_equal(img->regions[entry].nfuncs, 2);
	assert_int_equal(img->regions[entry].func_bytes, 0x80);
	/* lookups: an address between functions still has its region */
	assert_int_equal(image_region_at(img, 0x18f0), entry);
	assert_int_equal(image_region_at(img, 0x1900), text);
	assert_int_equal(image_region_at(img, 0x1450), text);
	assert_int_equal(image_region_at(img, 0x5000), -1);
	fixture_free(x);
}

static void test_join(void **state)
{
	struct fx *x = fixture();
	const struct lace_image *img = &x->img;

	const struct lace_function *ac = &img->funcs[fidx(x, "a.cold", NULL)];
	assert_int_equal(ac->suffix, LACE_SUFFIX_COLD);
	assert_string_equal(ac->base_name, "a");
	assert_int_equal(ac->parent, fidx(x, "a", NULL));
	/* nearest existing ancestor: x.constprop.0.cold -> x.constprop.0 */
	assert_int_equal(img->funcs[fidx(x, "x.constprop.0.cold", NULL)].parent, fidx(x, "x.constprop.0", NULL));
	assert_int_equal(img->funcs[fidx(x, "x.constprop.0", NULL)].parent, -1); /* no "x" */
	/* a local piece joins the local of its own file */
	assert_int_equal(img->funcs[fidx(x, "y.cold", NULL)].parent, fidx(x, "y", "y.c"));
	assert_int_equal(img->funcs[fidx(x, "y.isra.0", NULL)].parent, fidx(x, "y", "y.c"));
	assert_int_equal(img->funcs[fidx(x, "y.isra.0", NULL)].suffix, LACE_SUFFIX_ISRA);
	assert_int_equal(img->funcs[fidx(x, "a", NULL)].parent, -1);
	assert_int_equal(img->funcs[fidx(x, "a", NULL)].suffix, LACE_SUFFIX_NONE);
	/* functions lookups */
	assert_int_equal(image_func_at(img, 0x1010), fidx(x, "a", NULL));
	assert_int_equal(image_func_at(img, 0x1100 + 0x40), -1);
	fixture_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suffix_parse),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_join),
	};
	return cmocka_run_group_tests_name("layout regions and names", tests, NULL, NULL);
}
