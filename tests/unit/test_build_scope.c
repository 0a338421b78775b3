/* measure/build_scope: how the evidence combines (a different part makes
 * two builds, an unknown one makes "cannot tell", taken as two), files
 * told apart by build-id or content, the header round trip (a file from
 * before the scope was recorded reads as unknown), and the note a user
 * reads: two binaries, not a placement, the way to ask about the
 * placement, and the layout spread folded in or not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/build_scope.h"

static void test_combine(void **state)
{
	struct build_scope s = { 0 };

	assert_false(build_scope_two(&s));
	build_scope_add(&s, BUILDS_SAME, "one command on both sides");
	build_scope_add(&s, BUILDS_SAME, "one kernel image");
	assert_int_equal(s.kind, BUILDS_SAME);
	assert_string_equal(s.why, "one command on both sides; one kernel image");
	assert_string_equal(build_scope_label(&s), "one build");
	/* unknown outweighs same, and its reason replaces the weaker ones */
	build_scope_add(&s, BUILDS_UNKNOWN, "perf stat output records no build-id");
	assert_true(build_scope_two(&s));
	assert_string_equal(s.why, "perf stat output records no build-id");
	/* different outweighs both; a same part after it changes nothing */
	build_scope_add(&s, BUILDS_DIFFERENT, "the ELFs differ");
	build_scope_add(&s, BUILDS_SAME, "one command");
	build_scope_add(&s, BUILDS_UNKNOWN, "whatever");
	assert_int_equal(s.kind, BUILDS_DIFFERENT);
	assert_string_equal(s.why, "the ELFs differ");
	assert_string_equal(build_scope_label(&s), "two binaries");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int fake_reader(const char *path, char *hex, size_t len)
{
	/* an "ELF" whose name says its build-id; other files are no ELF */
	const char *slash = strrchr(path, '/');
	if (strncmp(slash ? slash + 1 : path, "elf", 3))
		return -8; /* ENOEXEC */
	snprintf(hex, len, "%s", "00112233445566778899aabbccddeeff00112233");
	return 0;
}

static void test_files(void **state)
{
	char dir[] = "/tmp/lace-scope-XXXXXX", a[64], b[64], c[64], e1[64], e2[64], id[200];
	struct build_scope s = { 0 };

	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(c, sizeof(c), "%s/c", dir);
	write_file(a, "bzImage one");
	write_file(b, "bzImage one");
	write_file(c, "bzImage two");
	/* no ELF: the content, so two copies of one image are one build */
	build_scope_build_id_reader = fake_reader;
	build_scope_file_id(a, id, sizeof(id));
	assert_int_equal(strncmp(id, "sha256 ", 7), 0);
	assert_int_equal(strlen(id), 7 + 64);
	build_scope_files(&s, "kernel image", a, b);
	assert_int_equal(s.kind, BUILDS_SAME);
	assert_non_null(strstr(s.why, "one kernel image on both sides, sha256 "));
	build_scope_files(&s, "kernel image", a, c);
	assert_int_equal(s.kind, BUILDS_DIFFERENT);
	assert_non_null(strstr(s.why, "the kernel images differ: sha256 "));
	/* an ELF with a build-id is its build-id, whatever its bytes */
	snprintf(e1, sizeof(e1), "%s/elf1", dir);
	snprintf(e2, sizeof(e2), "%s/elf2", dir);
	write_file(e1, "stripped");
	write_file(e2, "with symbols");
	memset(&s, 0, sizeof(s));
	build_scope_files(&s, "ELF", e1, e2);
	assert_int_equal(s.kind, BUILDS_SAME);
	assert_string_equal(s.why, "one ELF on both sides, build-id 001122334455...");
	/* a name that is no file (a Debian kernel lace fetches) is itself */
	build_scope_file_id("6.1.0-57-amd64", id, sizeof(id));
	assert_string_equal(id, "6.1.0-57-amd64");
	build_scope_build_id_reader = NULL;
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(e1);
	unlink(e2);
	rmdir(dir);
}

static void test_json(void **state)
{
	struct build_scope s = { 0 }, t;

	build_scope_add(&s, BUILDS_DIFFERENT, "kernel build-ids 1a and 2b");
	json_t *j = build_scope_json(&s);
	build_scope_from_json(j, &t);
	assert_int_equal(t.kind, BUILDS_DIFFERENT);
	assert_string_equal(t.why, "kernel build-ids 1a and 2b");
	json_decref(j);
	/* a results file from before: unknown, and it says why */
	build_scope_from_json(NULL, &t);
	assert_int_equal(t.kind, BUILDS_UNKNOWN);
	assert_non_null(strstr(t.why, "does not say"));
}

static void test_note(void **state)
{
	struct build_scope s = { 0 };
	struct layout_noise ln = { 0 };
	struct strbuf sb = STRBUF_INIT;

	/* one build, no spread: nothing to say */
	build_scope_add(&s, BUILDS_SAME, "one command on both sides");
	build_scope_note(&s, &ln, "--layout-noise", &sb);
	assert_int_equal(sb.len, 0);
	/* one build with a spread: not folded, and why */
	assert_int_equal(layout_noise_parse(&ln, "2.5"), 0);
	build_scope_note(&s, &ln, "--layout-noise", &sb);
	assert_string_equal(sb.buf, "layout spread 2.5% (--layout-noise) not folded in: A and B are one "
				    "build, so one layout (one command on both sides)\n");
	strbuf_reset(&sb);
	/* two builds: what the verdicts judge, how to ask about the placement */
	build_scope_add(&s, BUILDS_UNKNOWN, "perf stat output records no build-id");
	build_scope_note(&s, &ln, "--layout-noise", &sb);
	assert_string_equal(sb.buf,
		"two binaries, not a placement: lace cannot tell whether A and B are one build (perf stat "
		"output records no build-id) and takes them as two; these verdicts judge the two binaries, "
		"one layout draw each, not their placement. To judge the placement: lace ab --same-execution "
		"(recorded executions replayed through virtual layouts of both builds)\n"
		"layout spread 2.5% folded into the intervals (--layout-noise: the sd of an event across "
		"layouts of one build, one draw a side: se^2 + 2 sd^2 on the log scale); the verdicts use "
		"the widened intervals\n");
	strbuf_reset(&sb);
	layout_noise_release(&ln);
	build_scope_add(&s, BUILDS_DIFFERENT, "the ELFs differ: build-id 1a... and build-id 2b...");
	build_scope_note(&s, &ln, "--layout-noise", &sb);
	assert_non_null(strstr(sb.buf, "A and B are different builds (the ELFs differ: build-id 1a... and "
					"build-id 2b...); these verdicts judge the two binaries"));
	assert_non_null(strstr(sb.buf, "\nno layout spread folded in (a relink alone can move L1i misses by "
					"percents): give a known one with --layout-noise PCT\n"));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
