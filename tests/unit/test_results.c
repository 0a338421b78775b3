/* measure/results.c: a batch written as JSON lines reads back the same;
 * a last line cut short is dropped with a warning; other damage is an
 * error; the fault summary counts failures by cause. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/events.h"
#include "measure/results.h"
#include "util/array.h"

static char path[64];

static void make_batch(struct lace_batch *b, struct lace_event_list *l, int nruns)
{
	assert_int_equal(events_parse(l, "page-faults,task-clock,cycles"), 0);
	batch_init(b, "stat", l->ev, l->n);
	b->command = strdup("true");
	b->backend = strdup("perf_event");
	snprintf(path, sizeof(path), "/tmp/lace-test-results.%d.jsonl", (int)getpid());
	assert_int_equal(batch_open(b, path), 0);
	for (int i = 0; i < nruns; i++) {
		struct lace_run_result r;
		run_result_init(&r, l->n);
		r.counts[0] = (struct lace_count){ LACE_COUNT_OK, 100 + i, 10, 10, 100 + i };
		r.counts[1] = (struct lace_count){ LACE_COUNT_OK, 2000000, 20, 10, 4000000 };
		r.counts[2].status = LACE_COUNT_NOT_SUPPORTED;
		r.elapsed_s = 0.5;
		r.exit_status = 0;
		if (i == 1) {
			r.fault = LACE_FAULT_SIGNAL;
			r.term_signal = 11;
			snprintf(r.fault_msg, sizeof(r.fault_msg), "killed by SIGSEGV");
		}
		assert_int_equal(batch_add_run(b, &r, i, 0, false), 0);
		run_result_release(&r);
	}
}

static void test_roundtrip(void **state)
{
	struct lace_batch b, back;
	struct lace_event_list l = { 0 };
	char warn[256], faults[256];

	make_batch(&b, &l, 3);
	assert_int_equal(batch_close(&b, false), 0);
	assert_int_equal(batch_load(&back, path, warn, sizeof(warn)), 0);
	assert_string_equal(warn, "");
	assert_string_equal(back.kind, "stat");
	assert_string_equal(back.command, "true");
	assert_int_equal(back.nevents, 3);
	assert_string_equal(back.events[1].unit, "msec");
	assert_int_equal(back.nruns, 3);
	assert_true(back.finished);
	assert_false(back.interrupted);
	assert_true(back.runs[2].values[0] == 102);
	/* multiplexed: the scaled value (raw x enabled / running) is kept */
	assert_true(back.runs[0].values[1] == 4000000);
	assert_int_equal(back.runs[0].status[2], LACE_COUNT_NOT_SUPPORTED);
	assert_true(isnan(back.runs[0].values[2]));
	assert_int_equal(back.runs[1].fault, LACE_FAULT_SIGNAL);
	assert_int_equal(batch_count_ok(&back, false), 2);
	batch_fault_summary(&back, faults, sizeof(faults));
	assert_string_equal(faults, "1 of 3 runs failed: 1 signal (killed by SIGSEGV)");
	batch_release(&back);
	batch_release(&b);
	events_release(&l);
	unlink(path);
}

static void truncate_by(long n)
{
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fclose(f);
	assert_int_equal(truncate(path, len - n), 0);
}

static void test_cut_short(void **state)
{
	struct lace_batch b, back;
	struct lace_event_list l = { 0 };
	char warn[256];

	/* interrupted before the end line, and the last run's line cut */
	make_batch(&b, &l, 3);
	batch_release(&b);
	truncate_by(30);
	assert_int_equal(batch_load(&back, path, warn, sizeof(warn)), 0);
	assert_non_null(strstr(warn, "cut short"));
	assert_int_equal(back.nruns, 2);
	assert_false(back.finished);
	batch_release(&back);
	events_release(&l);
	unlink(path);
}

static void test_damage(void **state)
{
	struct lace_batch b;
	char warn[256];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/lace-test-results.%d.jsonl", (int)getpid());
	const char *bad[] = {
		"",                                     /* empty */
		"{\"x\":1}\n",                          /* no header */
		"{\"lace_results\":1,\"kind\":\"zzz\",\"events\":[]}\n",
		"{\"lace_results\":1,\"kind\":\"stat\",\"events\":[{\"name\":\"a\"}]}\nnot json\n{\"end\":true}\n",
		"{\"lace_results\":1,\"kind\":\"stat\",\"events\":[{\"name\":\"a\"}]}\n{\"run\":0,\"counts\":[]}\n",
		"{\"lace_results\":1,\"kind\":\"stat\",\"events\":[{\"name\":\"a\"}]}\n{\"run\":0,\"fault\":\"??\",\"counts\":[{}]}\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		assert_int_not_equal(batch_load(&b, path, warn, sizeof(warn)), 0);
	}
	unlink(path);
	assert_int_not_equal(batch_load(&b, "/nonexistent/x.jsonl", warn, sizeof(warn)), 0);
}

/* a run measured in another process (lace stat -j) comes back whole:
 * counts with their status and scaling, timing, the fault, per-process
 * values (NaN for events not counted) and the backend's data */
static void test_run_json_roundtrip(void **state)
{
	struct lace_run_result r, back;
	char why[128];

	(void)state;
	run_result_init(&r, 3);
	r.counts[0] = (struct lace_count){ LACE_COUNT_OK, 1234, 20, 10, 2468 };
	r.counts[1].status = LACE_COUNT_NOT_SUPPORTED;
	r.elapsed_s = 1.25;
	r.user_s = 0.5;
	r.ctx_switches = 7;
	r.migrations = -1;
	r.exit_status = 3;
	r.timed_out = true;
	r.output_bytes = 4096;
	r.leftover = 2;
	r.fault = LACE_FAULT_EXIT;
	snprintf(r.fault_msg, sizeof(r.fault_msg), "exit status 3");
	r.nprocs = 1;
	r.procs = calloc(1, sizeof(*r.procs));
	r.procs[0].pid = 42;
	snprintf(r.procs[0].comm, sizeof(r.procs[0].comm), "hackbench");
	r.procs[0].values = calloc(3, sizeof(double));
	r.procs[0].values[0] = 1000;
	r.procs[0].values[1] = r.procs[0].values[2] = NAN;
	r.extra = json_pack("{s:i}", "loops", 1);

	json_t *j = run_result_json(&r);
	char *text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(text, 0, NULL);
	free(text);
	run_result_init(&back, 3);
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.counts[0].status, LACE_COUNT_OK);
	assert_int_equal(back.counts[0].raw, 1234);
	assert_int_equal(back.counts[0].time_enabled, 20);
	assert_int_equal(back.counts[0].time_running, 10);
	assert_true(back.counts[0].value == 2468);
	assert_int_equal(back.counts[1].status, LACE_COUNT_NOT_SUPPORTED);
	assert_int_equal(back.counts[2].status, LACE_COUNT_NOT_COUNTED);
	assert_true(back.elapsed_s == 1.25 && back.user_s == 0.5);
	assert_int_equal(back.ctx_switches, 7);
	assert_int_equal(back.migrations, -1);
	assert_int_equal(back.exit_status, 3);
	assert_true(back.timed_out);
	assert_int_equal(back.output_bytes, 4096);
	assert_int_equal(back.leftover, 2);
	assert_int_equal(back.fault, LACE_FAULT_EXIT);
	assert_string_equal(back.fault_msg, "exit status 3");
	assert_int_equal(back.nprocs, 1);
	assert_int_equal(back.procs[0].pid, 42);
	assert_string_equal(back.procs[0].comm, "hackbench");
	assert_true(back.procs[0].values[0] == 1000 && isnan(back.procs[0].values[1]));
	assert_int_equal(json_integer_value(json_object_get(back.extra, "loops")), 1);
	run_result_release(&back);

	/* the wrong number of events is refused, saying so */
	run_result_init(&back, 2);
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "3 counts"));
	run_result_release(&back);
	json_decref(j);
	run_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_run_json_roundtrip),
	};
	return cmocka_run_group_tests_name("results", tests, NULL, NULL);
}
