/* util/ toolbox: fs (write_file, mkdir_p, is_file, temp dirs, tree
 * removal), paths (exe dir, cache dir, PATH), run_command, shell quoting,
 * ARRAY_SIZE, the PRNG, a stderr's last line, the JSON number helpers,
 * time, the UTF-8 rule and the escapers built on it (JSON, XML,
 * Markdown), and the bsearch bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include "util/array.h"
#include "util/bsearch.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/paths.h"
#include "util/prng.h"
#include "util/run_command.h"
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
	return fs_remove_tree(tmpdir) == 0 && !fs_is_dir(tmpdir) ? 0 : -1;
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

static void test_json_numbers(void **state)
{
	json_t *o = json_pack("{s:f, s:i, s:s}", "r", 1.5, "i", 3, "s", "x");
	json_t *n = lace_json_real(NAN), *inf = lace_json_real(INFINITY), *v = lace_json_real(2.25);

	/* JSON has no NaN or infinity: a missing value is null */
	assert_true(json_is_null(n));
	assert_true(json_is_null(inf));
	assert_true(json_is_real(v) && json_real_value(v) == 2.25);
	assert_true(lace_json_get_num(o, "r") == 1.5);
	assert_true(lace_json_get_num(o, "i") == 3);
	assert_true(isnan(lace_json_get_num(o, "s")));
	assert_true(isnan(lace_json_get_num(o, "none")));
	assert_true(isnan(lace_json_num(NULL)));
	json_decref(o);
	json_decref(n);
	json_decref(inf);
	json_decref(v);
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

static void test_fs_kinds_and_trees(void **state)
{
	struct strbuf p = STRBUF_INIT;
	char *t;

	strbuf_addf(&p, "%s/tree/x/y", tmpdir);
	assert_int_equal(fs_mkdir_p(p.buf, 0755), 0);
	strbuf_addstr(&p, "/f");
	assert_int_equal(fs_write_file(p.buf, "x", 1), 0);
	assert_true(fs_is_file(p.buf));
	assert_false(fs_is_dir(p.buf));
	assert_false(fs_is_file(tmpdir));
	assert_true(fs_is_dir(tmpdir));
	assert_false(fs_is_file("/no/such/file"));

	/* rm -r: everything under it goes, a gone path is fine */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/tree", tmpdir);
	assert_int_equal(fs_remove_tree(p.buf), 0);
	assert_false(fs_is_dir(p.buf));
	assert_int_equal(fs_remove_tree(p.buf), 0);

	/* a private folder under $TMPDIR, named NAME.XXXXXX */
	setenv("TMPDIR", tmpdir, 1);
	assert_int_equal(fs_temp_dir("lace-t", &t), 0);
	assert_true(fs_is_dir(t));
	assert_int_equal(strncmp(t, tmpdir, strlen(tmpdir)), 0);
	assert_non_null(strstr(t, "/lace-t."));
	free(t);
	setenv("TMPDIR", "/no/such/dir", 1);
	assert_int_equal(fs_temp_dir("lace-t", &t), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(lace_error_msg(), "/no/such/dir/lace-t."));
	unsetenv("TMPDIR");
	strbuf_release(&p);
}

static void test_paths(void **state)
{
	char *c, *prog;

	/* one fallback order: LACE_CACHE, XDG_CACHE_HOME/lace, HOME/.cache/lace */
	setenv("LACE_CACHE", "/c", 1);
	setenv("XDG_CACHE_HOME", "/x", 1);
	setenv("HOME", "/h", 1);
	assert_int_equal(paths_cache_dir(&c), 0);
	assert_string_equal(c, "/c");
	free(c);
	setenv("LACE_CACHE", "", 1);   /* empty counts as unset */
	assert_int_equal(paths_cache_dir(&c), 0);
	assert_string_equal(c, "/x/lace");
	free(c);
	unsetenv("XDG_CACHE_HOME");
	assert_int_equal(paths_cache_dir(&c), 0);
	assert_string_equal(c, "/h/.cache/lace");
	free(c);
	unsetenv("HOME");
	assert_int_equal(paths_cache_dir(&c), -ENOENT);   /* never / or /tmp by accident */
	assert_null(c);
	assert_non_null(strstr(lace_error_msg(), "LACE_CACHE"));
	unsetenv("LACE_CACHE");

	/* PATH as execvp searches it */
	assert_int_equal(paths_find_program("sh", &prog), 0);
	assert_true(prog[0] == '/' && strstr(prog, "/sh"));
	free(prog);
	assert_int_equal(paths_find_program("lace-no-such-program", &prog), -ENOENT);
	assert_null(prog);
	assert_non_null(strstr(lace_error_msg(), "lace-no-such-program: command not found"));
	assert_int_equal(paths_find_program("/bin/sh", NULL), 0);

	/* the test binary's own folder */
	assert_non_null(paths_exe());
	assert_non_null(strstr(paths_exe(), "test_util"));
	assert_int_equal(strncmp(paths_exe(), paths_exe_dir(), strlen(paths_exe_dir())), 0);
	assert_null(strchr(paths_exe() + strlen(paths_exe_dir()) + 1, '/'));
}

static void test_shell_quote(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_sq(&sb, "it's");
	assert_string_equal(sb.buf, "'it'\\''s'");
	strbuf_reset(&sb);
	strbuf_add_sq(&sb, "");
	assert_string_equal(sb.buf, "''");
	strbuf_reset(&sb);
	strbuf_add_sh_word(&sb, "-O2");
	strbuf_addch(&sb, ' ');
	strbuf_add_sh_word(&sb, "a b");
	strbuf_addch(&sb, ' ');
	strbuf_add_sh_word(&sb, "");
	assert_string_equal(sb.buf, "-O2 'a b' ''");
	strbuf_release(&sb);
}

static void test_array_size(void **state)
{
	static const int v[7];
	struct { char c[3]; } s[5];

	assert_int_equal(ARRAY_SIZE(v), 7);
	assert_int_equal(ARRAY_SIZE(s), 5);
	assert_int_equal(ARRAY_SIZE(s[0].c), 3);
}

static void test_run_command(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf log = STRBUF_INIT, back = STRBUF_INIT;

	/* stdout captured, stderr's tail kept, the exit code reported */
	strvec_pushv(&cp.args, (const char *[]){ "sh", "-c",
		"echo out; echo first >&2; echo \"$LACE_T_VAR\" >&2; pwd; exit 3", NULL });
	strvec_push(&cp.env, "LACE_T_VAR=the last line");
	cp.dir = tmpdir;
	cp.out_capture = 1;
	cp.err_capture = 1;
	cp.err_tail = 14;
	assert_int_equal(child_process_run(&cp), 0);
	assert_int_equal(cp.exit_code, 3);
	assert_non_null(strstr(cp.out.buf, "out\n"));
	assert_non_null(strstr(cp.out.buf, tmpdir));
	assert_true(cp.err.len <= 14);
	assert_string_equal(child_process_err_line(&cp), "the last line");
	child_process_clear(&cp);

	/* run_ok: a failure says what failed and why, in one line */
	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *[]){ "sh", "-c", "echo noise >&2; echo why >&2; exit 2", NULL });
	cp.err_capture = 1;
	assert_int_equal(child_process_run_ok(&cp, "the step"), -EIO);
	assert_string_equal(lace_error_msg(), "the step failed (exit 2): why");
	child_process_clear(&cp);

	/* a log gets both streams, appended; the message points to it */
	strbuf_addf(&log, "%s/run.log", tmpdir);
	for (int i = 0; i < 2; i++) {
		child_process_init(&cp);
		strvec_pushv(&cp.args, (const char *[]){ "sh", "-c", "echo o; echo e >&2; exit 1", NULL });
		cp.log = log.buf;
		assert_int_equal(child_process_run_ok(&cp, "logged"), -EIO);
		child_process_clear(&cp);
	}
	assert_non_null(strstr(lace_error_msg(), "logged failed (see "));
	assert_int_equal(strbuf_read_file(&back, log.buf), 0);
	assert_string_equal(back.buf, "o\ne\no\ne\n");

	/* a program that cannot start is an error of its own, nothing left running */
	child_process_init(&cp);
	strvec_push(&cp.args, "lace-no-such-program");
	assert_int_equal(child_process_run(&cp), -ENOENT);
	assert_non_null(strstr(lace_error_msg(), "cannot run lace-no-such-program"));
	assert_int_equal(cp.pid, 0);
	child_process_clear(&cp);
	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *[]){ "sh", "-c", "true", NULL });
	cp.dir = "/no/such/dir";
	assert_int_equal(child_process_run(&cp), -ENOENT);
	assert_non_null(strstr(lace_error_msg(), "in /no/such/dir"));
	child_process_clear(&cp);

	/* a killed child reads as 128 + its signal; a cleared one is reaped */
	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *[]){ "sh", "-c", "kill -9 $$", NULL });
	assert_int_equal(child_process_run(&cp), 0);
	assert_int_equal(cp.exit_code, 128 + 9);
	child_process_clear(&cp);
	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *[]){ "sleep", "100", NULL });
	assert_int_equal(child_process_start(&cp), 0);
	pid_t pid = cp.pid;
	child_process_clear(&cp);
	assert_int_equal(kill(pid, 0), -1);
	strbuf_release(&log);
	strbuf_release(&back);
}

static void test_prng(void **state)
{
	struct prng a, b;

	/* splitmix64's published sequence from state 0 */
	prng_init_raw(&a, 0);
	assert_true(prng_next(&a) == 0xe220a8397b1dcdafULL);
	assert_true(prng_next(&a) == 0x6e789e6aa1b965f4ULL);
	assert_true(prng_at(0, 2) == 0x6e789e6aa1b965f4ULL);

	/* a (seed, stream) pair is one sequence anywhere; neighbours differ */
	prng_init(&a, 7, 2);
	prng_init(&b, 7, 2);
	for (int i = 0; i < 100; i++)
		assert_true(prng_next(&a) == prng_next(&b));
	prng_init(&b, 7, 3);
	assert_true(prng_next(&a) != prng_next(&b));
	for (int i = 0; i < 1000; i++) {
		double u = prng_unit(&a);

		assert_true(prng_below(&a, 10) < 10);
		assert_true(u >= 0 && u < 1);
	}
}

static void test_last_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	assert_string_equal(strbuf_last_line(&sb), "");
	strbuf_addstr(&sb, "warning: x\nerror: the reason\n\n");
	assert_string_equal(strbuf_last_line(&sb), "error: the reason");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "one line");
	assert_string_equal(strbuf_last_line(&sb), "one line");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_fs_kinds_and_trees),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_array_size),
		cmocka_unit_test(test_run_command),
		cmocka_unit_test(test_prng),
		cmocka_unit_test(test_last_line),
		cmocka_unit_test(test_now_s),
		cmocka_unit_test(test_utf8_rule),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_md),
		cmocka_unit_test(test_md_code),
		cmocka_unit_test(test_bsearch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
