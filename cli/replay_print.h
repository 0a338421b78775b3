/* lace replay's output: one row per layout (cli/replay_print.c). */
#ifndef LACE_CLI_REPLAY_PRINT_H
#define LACE_CLI_REPLAY_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/replay_layouts.h"
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"

struct replay_row {
	const char *name;
	struct replay_result res;
	bool carried;   /* another layout: how the addresses were carried */
	struct replay_row_info info;   /* which build, which draw */
};

/* The rows' counts of the events ev (sim_event_index()es); fmt 0 text,
 * 1 JSON, 2 CSV; win: the windows' counts, else the whole run's. */
void replay_print(const char *file, const struct lace_record *rec, struct replay_row *rows,
		  size_t nrows, const int *ev, int nev, bool win, int fmt);
/* The hot functions (replay_plan_hot()'s document) as a table, or JSON. */
void replay_print_hot(const json_t *h, bool as_json);
/* When more than limit percent of r's executed instructions were carried
 * approximately: print the one-line refusal naming the functions, true. */
bool replay_refuse(const char *name, const struct replay_result *r, double limit);

/* --write-edit: write the edit of the hottest pieces' hottest functions
 * (replay_hot_edit()) to write_edit; *h becomes those hot functions (what
 * --hot prints).  0, or the exit status after printing why (*h NULL). */
int replay_write_hot_edit(json_t **h, long hot, unsigned long edit_align, const char *write_edit);

#endif
