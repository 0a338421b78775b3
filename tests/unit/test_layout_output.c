/* lace layout's output formats on a small hand-made image: the stable CSV
 * columns, JSON fields and types, and the text tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/output.h"

static struct lace_section secs[] = {
	{ .name = ".text", .addr = 0x401000, .size = 0x200, .align_pow = 4, .code = true, .alloc = true },
	{ .name = ".data", .addr = 0x402000, .size = 0x10, .align_pow = 3, .alloc = true },
};
static struct lace_region regs[] = {
	{ .name = ".text", .kind = LACE_REGION_SECTION, .start = 0x401000, .end = 0x401200, .section = 0,
	  .parent = -1, .nfuncs = 1, .func_bytes = 0x40 },
	{ .name = "entry", .kind = LACE_REGION_MARKER, .start = 0x401100, .end = 0x401180, .section = 0,
	  .start_symbol = "__entry_text_start", .end_symbol = "__entry_text_end", .parent = 0, .nfuncs = 1,
	  .func_bytes = 0x20 },
};
static struct lace_function funcs[] = {
	{ .name = "hot", .base_name = "hot", .addr = 0x401010, .size = 0x40, .section = 0, .region = 0,
	  .global = true, .parent = -1, .alignment = 16, .pad_before = 0x10, .lines = 2, .pages = 1,
	  .straddles_line = true, .src_file = "hot.c", .src_line = 7, .inlined = 3, .first_branch = 0,
	  .nbranches = 1 },
	{ .name = "hot.cold", .base_name = "hot", .addr = 0x401100, .size = 0x20, .section = 0, .region = 1,
	  .suffix = LACE_SUFFIX_COLD, .parent = 0, .file = "a,b.c", .alignment = 256, .lines = 1, .pages = 1,
	  .first_branch = 1, .nbranches = 1 },
};
static struct lace_branch brs[] = {
	{ .addr = 0x401014, .target = 0x401100, .has_target = true, .kind = LACE_BR_COND, .func = 0,
	  .region = 0, .target_region = 1, .target_func = 1 },
	{ .addr = 0x40111f, .kind = LACE_BR_RET, .func = 1, .region = 1, .target_region = -1, .target_func = -1 },
};
static struct lace_jump_site jumps[] = {
	{ .code = 0x401020, .target = 0x401100, .key = 0x402000, .key_flags = 1, .table = "__jump_table",
	  .func = 0, .region = 0, .target_func = 1, .target_region = 1, .key_symbol = "my_key" },
};
static struct lace_sdt_probe probes[] = {
	{ .provider = "p", .name = "n", .pc = 0x401030, .args = "-4@%edi", .func = 0 },
};
static char *warns[] = { "a warning" };

static struct lace_image img = {
	.path = "x.elf", .arch = LACE_ARCH_X86_64, .arch_name = "i386:x86-64", .has_symbols = true,
	.disassembled = true, .geom = LACE_GEOMETRY_DEFAULT,
	.sections = secs, .nsections = 2, .regions = regs, .nregions = 2, .funcs = funcs, .nfuncs = 2,
	.branches = brs, .nbranches = 2, .jumps = jumps, .njumps = 1, .probes = probes, .nprobes = 1,
	.warnings = warns, .nwarnings = 1,
};

static char *capture(void (*print)(FILE *, const struct lace_image *, enum layout_table), enum layout_table t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	print(f, &img, t);
	fclose(f);
	return buf;
}

static void test_csv(void **state)
{
	char *s = capture(layout_print_csv, LAYOUT_FUNCTIONS);
	assert_non_null(strstr(s, "name,address,size,region,alignment,lines,pages,"));
	assert_non_null(strstr(s, "\nhot,0x401010,64,.text,16,2,1,16,1,0,.text,hot,,,1,,hot.c,7,3,1\n"));
	/* a field holding a comma is quoted */
	assert_non_null(strstr(s, "\nhot.cold,0x401100,32,entry,256,1,1,0,0,0,.text,hot,cold,hot,0,\"a,b.c\",,,0,1\n"));
	free(s);
	s = capture(layout_print_csv, LAYOUT_BRANCHES);
	assert_string_equal(s, "address,target,kind,function,target_region,region,target_function\n"
			       "0x401014,0x401100,cond,hot,entry,.text,hot.cold\n"
			       "0x40111f,,ret,hot.cold,,entry,\n");
	free(s);
	s = capture(layout_print_csv, LAYOUT_JUMPS);
	assert_non_null(strstr(s, "\n0x401020,0x401100,hot,.text,hot.cold,entry,224,0x402000,my_key,1,__jump_table,0\n"));
	free(s);
}

static void test_json(void **state)
{
	char *s = capture(layout_print_json, LAYOUT_ALL);
	json_error_t err;
	json_t *m = json_loads(s, 0, &err);
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "arch")), "x86-64");
	assert_int_equal(json_array_size(json_object_get(m, "warnings")), 1);
	json_t *f = json_array_get(json_object_get(m, "functions"), 1);
	assert_string_equal(json_string_value(json_object_get(f, "address")), "0x401100");
	assert_string_equal(json_string_value(json_object_get(f, "suffix")), "cold");
	assert_int_equal(json_integer_value(json_object_get(f, "parent")), 0);
	assert_string_equal(json_string_value(json_object_get(f, "region_name")), "entry");
	assert_true(json_is_null(json_object_get(f, "src_file")));
	json_t *r = json_array_get(json_object_get(m, "regions"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "kind")), "marker");
	assert_int_equal(json_integer_value(json_object_get(r, "size")), 0x80);
	assert_string_equal(json_string_value(json_object_get(r, "parent_name")), ".text");
	json_t *b = json_array_get(json_object_get(m, "branches"), 1);
	assert_true(json_is_null(json_object_get(b, "target")));
	assert_string_equal(json_string_value(json_object_get(b, "kind")), "ret");
	json_t *j = json_array_get(json_object_get(m, "jumps"), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "distance")), 0xe0);
	assert_string_equal(json_string_value(json_object_get(j, "target_region_name")), "entry");
	/* the site's own region, by name too (the kernel study reads both) */
	assert_string_equal(json_string_value(json_object_get(j, "region_name")),
			    json_string_value(json_object_get(json_array_get(json_object_get(m, "regions"), 0), "name")));
	json_t *p = json_array_get(json_object_get(m, "probes"), 0);
	assert_string_equal(json_string_value(json_object_get(p, "func_name")), "hot");
	json_decref(m);
	free(s);
	/* one table: the header fields and that array only */
	s = capture(layout_print_json, LAYOUT_REGIONS);
	m = json_loads(s, 0, &err);
	assert_non_null(m);
	assert_non_null(json_object_get(m, "regions"));
	assert_null(json_object_get(m, "functions"));
	json_decref(m);
	free(s);
}

static void test_text(void **state)
{
	char *s = capture(layout_print_text, LAYOUT_ALL);
	assert_non_null(strstr(s, "x.elf: x86-64 (i386:x86-64), 2 sections, 2 regions, 2 functions, 1 jump sites, 1 probes, 2 branches"));
	assert_non_null(strstr(s, "hot.cold (cold of hot)"));
	assert_non_null(strstr(s, "[hot.c:7] inlined=3"));
	assert_non_null(strstr(s, "Cross-region direct branches: 1 of 1"));
	assert_non_null(strstr(s, "p:n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests_name("layout output", tests, NULL, NULL);
}
