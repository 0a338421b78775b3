/* pipeline/kstudy/kstudy_jobs: the plan folder of lace study --kernel.  A job's
 * inputs are copied in under their content hash and its script reads them
 * there; stages are listed in order; the pool runs a stage and the
 * outcome (exit status, stdout, stderr) is read back; plan.json gives the
 * jobs back with their result places resolved in a fresh results tree,
 * keys holding '/' and '~' included.  A program the guest runs is staged
 * at /tmp/lace-in/SHA256/NAME, a path that is the same wherever the plan
 * sits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/kstudy/kstudy_jobs.h"
#include "util/fs.h"
#include "util/sha256.h"

static char dir[64];

static char *path(const char *rel)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

static void test_plan_round_trip(void **state)
{
	(void)state;
	struct kjobs q = { 0 }, back = { 0 };
	json_t *res = json_pack("{s:{s:[{},{}]}}", "a/b~c", "pts"), *res2 = NULL;
	json_t *pts = json_object_get(json_object_get(res, "a/b~c"), "pts");
	struct strbuf sb = STRBUF_INIT;
	char hex[65], rel[160];

	strcpy(dir, "/tmp/lace-kjobs-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(fs_write_file(path("kernel"), "vmlinux\n", 8), 0);
	assert_int_equal(sha256_file_hex(path("kernel"), hex), 0);

	struct kjob *j = kjobs_add(&q, 0, "read", "cat the kernel", false);
	strvec_push(&j->argv, "cat");
	kjob_input(j, path("kernel"));
	j->fill = 4;
	j->dest = json_array_get(pts, 1);
	j->enabled = true;
	j->arg = strdup("__hash_page_64K");
	/* a guest's program, copied into a file of the job's own
	 * (kjob_output), which the next stage's job reads */
	j = kjobs_add(&q, 0, "guest", "a guest's program", false);
	strvec_pushv(&j->argv, (const char *[]){ "sh", "-c", "cat \"$1\"; cat \"$1\" > \"$2\"", "sh",
						  NULL });
	kjob_guest_input(j, path("kernel"));
	char *copy = kjob_output(j, "copy");
	assert_string_equal(copy, "out/j0001.files/copy");
	strvec_push(&j->argv, copy);
	j = kjobs_add(&q, 1, "fail", "a failing job", false);
	strvec_pushv(&j->argv, (const char *[]){ "sh", "-c", "cat \"$1\"; echo oops >&2; exit 3", "sh",
						  copy, NULL });
	free(copy);
	j->dest = json_array_get(pts, 0);

	assert_int_equal(kjobs_write(&q, dir, res, true), 0);
	/* the input by content, and the script reading it there */
	snprintf(rel, sizeof(rel), "inputs/%s/kernel", hex);
	assert_int_equal(access(path(rel), R_OK), 0);
	assert_true(strbuf_read_file(&sb, path("jobs/j0000.sh")) >= 0);
	assert_non_null(strstr(sb.buf, rel));
	assert_null(strstr(sb.buf, dir));
	strbuf_reset(&sb);
	assert_true(strbuf_read_file(&sb, path("stage-1.txt")) >= 0);
	assert_string_equal(sb.buf, "j0002\n");
	strbuf_reset(&sb);
	assert_true(strbuf_read_file(&sb, path("jobs/j0001.sh")) >= 0);
	snprintf(rel, sizeof(rel), "'/tmp/lace-in/%s/kernel'", hex);
	assert_non_null(strstr(sb.buf, rel));

	/* run in the plan folder by the pool, the status kept, not fatal */
	struct kjobs_progress pr = { .name = "test" };
	for (int st = 0; st < 2; st++)
		assert_int_equal(kjobs_run_stage(&q, dir, st, 2, &pr), 0);
	assert_int_equal(pr.done, 3);
	assert_int_equal(pr.failed, 1);   /* the job that exits 3 */
	assert_int_equal(q.v[0].exit, 0);
	assert_string_equal(q.v[0].out.buf, "vmlinux\n");
	assert_string_equal(q.v[1].out.buf, "vmlinux\n");
	assert_int_equal(q.v[2].exit, 3);
	assert_string_equal(q.v[2].out.buf, "vmlinux\n");
	assert_string_equal(q.v[2].err.buf, "oops\n");

	/* plan.json back: same jobs, result places in the new tree */
	assert_int_equal(kjobs_read_plan(&back, dir, &res2), 0);
	assert_int_equal(back.nr, 3);
	json_t *pts2 = json_object_get(json_object_get(res2, "a/b~c"), "pts");
	assert_ptr_equal(back.v[0].dest, json_array_get(pts2, 1));
	assert_ptr_equal(back.v[2].dest, json_array_get(pts2, 0));
	assert_int_equal(back.v[0].fill, 4);
	assert_true(back.v[0].enabled);
	assert_true(back.v[1].files && !back.v[0].files);
	assert_string_equal(back.v[0].arg, "__hash_page_64K");
	assert_string_equal(back.v[0].argv.v[1], path("kernel"));
	kjobs_load(&back, dir);
	assert_string_equal(back.v[0].out.buf, "vmlinux\n");
	assert_int_equal(back.v[2].exit, 3);

	/* a job whose outcome is missing has not finished */
	unlink(path("out/j0002.rc"));
	kjobs_load(&back, dir);
	assert_int_equal(back.v[2].exit, -1);

	strbuf_release(&sb);
	kjobs_clear(&q);
	kjobs_clear(&back);
	json_decref(res);
	json_decref(res2);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '/tmp/lace-in/%s'", dir, hex);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
