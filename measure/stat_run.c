/* lace stat's run loop; see stat_run.h. */
#include "measure/stat_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "measure/session_jobs.h"
#include "util/error.h"
#include "util/xalloc.h"

int stat_begin(struct lace_session *s, char *const argv[], const struct stat_plan *p)
{
	char *cmd = session_join_argv(argv);

	session_batch_begin(s, cmd);
	free(cmd);
	json_object_set_new(s->batch.header, "repeat", json_integer(p->repeat));
	json_object_set_new(s->batch.header, "warmup", json_integer(p->warmup));
	json_object_set_new(s->batch.header, "ignore_failure", json_boolean(p->ignore_failure));
	return session_results_open(s);
}

/* a run recorded: keep its backend data for the report, and say a
 * failure where --show-output would scroll it away */
static bool stat_done(struct lace_session *s, const struct session_slot *slot,
		      const struct lace_run_result *res, void *ctx)
{
	struct stat_plan *p = ctx;

	if (res->extra && !slot->warmup) {
		p->extras = xrealloc(p->extras, (p->nextras + 1) * sizeof(*p->extras));
		p->extras[p->nextras++] = json_incref(res->extra);
	}
	if (res->fault != LACE_FAULT_NONE && !session_stop && s->ro.show_output && s->warn) {
		char msg[200];
		snprintf(msg, sizeof(msg), "run %ld: %s", slot->boot + 1, res->fault_msg);
		s->warn(NULL, msg);
	}
	return res->fault != LACE_FAULT_NONE && s->stop_on_error && !slot->warmup;
}

int stat_run(struct lace_session *s, char *const argv[], struct stat_plan *p)
{
	long total = p->warmup + p->repeat;
	struct session_queue q;

	session_queue_init(&q, s, total, stat_done, p);
	for (long i = 0; i < total; i++) {
		bool warm = i < p->warmup;
		if (s->progress)
			s->progress(&(struct session_progress){ .warmup = warm,
				.i = warm ? i + 1 : i - p->warmup + 1, .n = warm ? p->warmup : p->repeat });
		if (!session_queue_push(&q, &(struct session_slot){ .argv = argv,
				.round = (int)(warm ? i : i - p->warmup), .warmup = warm, .boot = i }))
			break;
	}
	session_queue_finish(&q);
	session_batch_end(s);
	return s->err;
}

int stat_exit_status(const struct lace_session *s, const struct stat_plan *p)
{
	int rc = session_status(s);
	size_t nok = batch_count_ok(&s->batch, false), n = batch_count_runs(&s->batch, false);

	lace_error_clear();
	if (rc)
		return rc;
	if (nok == 0)
		return LACE_EXIT_FAIL;
	if (nok < n && !p->ignore_failure) {
		lace_error_set(EIO, "%zu of %zu runs failed (--ignore-failure to accept "
			       "a batch with failed runs)", n - nok, n);
		return LACE_EXIT_FAIL;
	}
	return LACE_EXIT_OK;
}

void stat_plan_release(struct stat_plan *p)
{
	for (size_t k = 0; k < p->nextras; k++)
		json_decref(p->extras[k]);
	free(p->extras);
	p->extras = NULL;
	p->nextras = 0;
}
