/* util/ toolbox: fs (write_file, mkdir_p), time, the UTF-8 rule and the
 * escapers built on it (JSON, XML, Markdown), and the bsearch bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/bsearch.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/utf8.h"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s", "/tmp/lace-test-util.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_write_file(void **state)
{
	struct strbuf path = STRBUF_INIT, back = STRBUF_INIT;

	strbuf_addf(&path, "%s/f.txt", tmpdir);
	assert_int_equal(fs_write_file(path.buf, "first, longer\n", 14), 0);
	assert_int_equal(fs_write_file(path.buf, "two\n", 4), 0);   /* emptied first */
	assert_int_equal(strbuf_read_file(&back, path.buf), 0);
	assert_string_equal(back.buf, "two\n");
	assert_int_equal(fs_write_file(path.buf, "", 0), 0);
	strbuf_reset(&back);
	assert_int_equal(strbuf_read_file(&back, path.buf), 0);
	assert_int_equal(back.len, 0);

	/* errors: -errno and one line naming the path */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/no/such/dir/f", tmpdir);
	assert_int_equal(fs_write_file(path.buf, "x", 1), -ENOENT);
	assert_non_null(strstr(lace_error_msg(), path.buf));
	assert_null(strchr(lace_error_msg(), '\n'));
	/* a full disk shows at write or close: never a silent 0 */
	assert_int_equal(fs_write_file("/dev/full", "x", 1), -ENOSPC);
	assert_non_null(strstr(lace_error_msg(), "/dev/full"));
	strbuf_release(&path);
	strbuf_release(&back);
}

static void test_mkdir_p(void **state)
{
	struct strbuf dir = STRBUF_INIT, file = STRBUF_INIT;
	struct stat st;

	strbuf_addf(&dir, "%s/a//b/c/", tmpdir);
	assert_int_equal(fs_mkdir_p(dir.buf, 0755), 0);
	assert_int_equal(stat(dir.buf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(fs_mkdir_p(dir.buf, 0755), 0);   /* exists: fine */

	/* a file in the way is an error that names it, not success */
	strbuf_addf(&file, "%s/a/file", tmpdir);
	assert_int_equal(fs_write_file(file.buf, "x", 1), 0);
	strbuf_addstr(&file, "/sub");
	assert_int_equal(fs_mkdir_p(file.buf, 0755), -ENOTDIR);
	assert_non_null(strstr(lace_error_msg(), "/a/file"));
	strbuf_release(&dir);
	strbuf_release(&file);
}

static void test_now_s(void **state)
{
	double a = time_now_s(), b;

	usleep(20000);
	b = time_now_s();
	assert_true(b - a >= 0.019);
	assert_true(b - a < 5);
}

static void test_utf8_rule(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	assert_true(utf8_valid("plain"));
	assert_true(utf8_valid("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5"));
	assert_false(utf8_valid("\xff"));
	assert_false(utf8_valid("\xc0\xaf"));          /* overlong '/' */
	assert_false(utf8_valid("\xed\xa0\x80"));      /* a surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80"));  /* above U+10FFFF */
	assert_false(utf8_valid("\xe2\x86"));          /* cut short */
	assert_int_equal(utf8_seq_len("\xe2\x86\x92", 2), 0);

	/* valid sequences stay, each bad byte is one U+FFFD */
	strbuf_add_utf8(&sb, "a\xff\xfe" "b\xc3\xa9\xe2\x86");
	assert_string_equal(sb.buf, "a" UTF8_REPLACEMENT UTF8_REPLACEMENT "b\xc3\xa9"
				    UTF8_REPLACEMENT UTF8_REPLACEMENT);
	assert_true(utf8_valid(sb.buf));
	strbuf_release(&sb);
}

static void test_json_string(void **state)
{
	json_t *j = lace_json_string("fn\xff.cold");

	assert_non_null(j);
	assert_string_equal(json_string_value(j), "fn" UTF8_REPLACEMENT ".cold");
	json_decref(j);
	j = lace_json_string("caf\xc3\xa9");
	assert_string_equal(json_string_value(j), "caf\xc3\xa9");
	json_decref(j);
	j = lace_json_string(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
}

static void test_xml(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_xml(&sb, "<a href=\"x\">&'\xc3\xa9\x01\xff\t");
	assert_string_equal(sb.buf, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\xc3\xa9" UTF8_REPLACEMENT
				    UTF8_REPLACEMENT "\t");
	strbuf_reset(&sb);
	/* a length cuts nothing in two: a sequence cut short is bad bytes */
	strbuf_add_xml_len(&sb, "\xe2\x86\x92xyz", 4);
	assert_string_equal(sb.buf, "\xe2\x86\x92x");
	strbuf_release(&sb);
}

static void test_md(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_md(&sb, "_a_b_ *c* [l](u) <x> | `t` ~s~ &amp; \\");
	assert_string_equal(sb.buf, "\\_a_b\\_ \\*c\\* \\[l\\](u) \\<x\\> \\| \\`t\\` \\~s\\~ \\&amp; \\\\");
	strbuf_reset(&sb);
	strbuf_add_md(&sb, "# not a heading\nline");
	assert_string_equal(sb.buf, "\\# not a heading line");
	strbuf_reset(&sb);
	strbuf_add_md(&sb, "12. not a list, L1-icache 3.5");
	assert_string_equal(sb.buf, "12\\. not a list, L1-icache 3.5");
	strbuf_reset(&sb);
	strbuf_add_md(&sb, "-x");
	assert_string_equal(sb.buf, "\\-x");
	strbuf_release(&sb);
}

static void test_md_code(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_md_code(&sb, "hash_page_mm", 0);
	assert_string_equal(sb.buf, "`hash_page_mm`");
	strbuf_reset(&sb);
	strbuf_add_md_code(&sb, "a`b``c", 0);
	assert_string_equal(sb.buf, "```a`b``c```");
	strbuf_reset(&sb);
	strbuf_add_md_code(&sb, "`x", 0);
	assert_string_equal(sb.buf, "`` `x ``");
	strbuf_reset(&sb);
	strbuf_add_md_code(&sb, "sh -c 'a | b'\n", 0);
	assert_string_equal(sb.buf, "`sh -c 'a | b' `");
	strbuf_reset(&sb);
	strbuf_add_md_code(&sb, "a|b", 1);
	assert_string_equal(sb.buf, "`a\\|b`");
	strbuf_reset(&sb);
	strbuf_add_md_code(&sb, "", 0);
	assert_string_equal(sb.buf, "` `");
	strbuf_release(&sb);
}

static int cmp_u64(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = *(const uint64_t *)elem;

	return k < e ? -1 : k > e;
}

static void test_bsearch(void **state)
{
	const uint64_t v[] = { 10, 20, 20, 20, 30 };
	const size_t n = 5, sz = sizeof(v[0]);
	uint64_t k;

	k = 20;
	assert_int_equal(bsearch_lower(&k, v, n, sz, cmp_u64), 1);   /* first equal */
	assert_int_equal(bsearch_upper(&k, v, n, sz, cmp_u64), 4);   /* past the equals */
	k = 5;
	assert_int_equal(bsearch_lower(&k, v, n, sz, cmp_u64), 0);
	assert_int_equal(bsearch_upper(&k, v, n, sz, cmp_u64), 0);
	k = 25;
	assert_int_equal(bsearch_lower(&k, v, n, sz, cmp_u64), 4);
	assert_int_equal(bsearch_upper(&k, v, n, sz, cmp_u64), 4);
	k = 99;
	assert_int_equal(bsearch_lower(&k, v, n, sz, cmp_u64), n);
	assert_int_equal(bsearch_upper(&k, v, n, sz, cmp_u64), n);
	assert_int_equal(bsearch_lower(&k, v, 0, sz, cmp_u64), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_now_s),
		cmocka_unit_test(test_utf8_rule),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_md),
		cmocka_unit_test(test_md_code),
		cmocka_unit_test(test_bsearch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
