/* lace replay's output (text, JSON, CSV) and its refusal line; see
 * cli/replay_print.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/replay_print.h"
#include "cli/command.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "measure/model_results.h"
#include "util/error.h"
#include "util/json.h"


void replay_print(const char *file, const struct lace_record *rec, struct replay_row *rows,
		  size_t nrows, const int *ev, int nev, bool win, int fmt)
{
	bool json = fmt == 1, csv = fmt == 2;

	if (json) {
		json_t *o = json_object(), *arr = json_array();
		json_object_set_new(o, "recording", json_string(file));
		json_object_set_new(o, "host", json_string(rec->host));
		json_object_set_new(o, "profile", json_string(rec->profile));
		json_object_set_new(o, "counted", json_string(win ? "window" : "whole run"));
		for (size_t r = 0; r < nrows; r++) {
			const struct sim_totals *t = win ? &rows[r].res.window : &rows[r].res.total;
			json_t *row = json_object(), *c = json_object();
			json_object_set_new(row, "layout", json_string(rows[r].name));
			for (int e = 0; e < nev; e++)
				json_object_set_new(c, sim_event_names[ev[e]],
						    json_integer((json_int_t)sim_totals_get(t, ev[e])));
			json_object_set_new(row, "counts", c);
			if (!strcmp(rec->host, "qemu")) {
				json_t *u = json_object(), *k = json_object();
				for (int e = 0; e < nev; e++) {
					const char *n = sim_event_names[ev[e]];
					json_object_set_new(u, n, json_integer((json_int_t)
						sim_totals_get(&rows[r].res.user, ev[e])));
					json_object_set_new(k, n, json_integer((json_int_t)
						sim_totals_get(&rows[r].res.kernel, ev[e])));
				}
				json_object_set_new(row, "user", u);
				json_object_set_new(row, "kernel", k);
			}
			if (rows[r].carried) {
				json_t *fns = json_array();
				json_object_set_new(row, "carried", json_pack(
					"{s:I,s:I,s:I}", "exact", (json_int_t)rows[r].res.exact,
					"approximate", (json_int_t)rows[r].res.approx,
					"outside", (json_int_t)rows[r].res.outside));
				for (size_t f = 0; f < rows[r].res.napprox_fns; f++)
					json_array_append_new(fns, json_pack(
						"{s:s,s:I}", "name", rows[r].res.approx_fns[f].name,
						"instructions",
						(json_int_t)rows[r].res.approx_fns[f].instructions));
				json_object_set_new(row, "approximate_functions", fns);
			}
			json_array_append_new(arr, row);
		}
		json_object_set_new(o, "layouts", arr);
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
		return;
	}
	if (csv) {
		printf("layout,event,value\n");
		for (size_t r = 0; r < nrows; r++)
			for (int e = 0; e < nev; e++) {
				printf("%s,%s,%llu\n", rows[r].name, sim_event_names[ev[e]],
				       (unsigned long long)sim_totals_get(
					       win ? &rows[r].res.window : &rows[r].res.total, ev[e]));
				if (strcmp(rec->host, "qemu"))
					continue;
				printf("%s,%s:u,%llu\n", rows[r].name, sim_event_names[ev[e]],
				       (unsigned long long)sim_totals_get(&rows[r].res.user, ev[e]));
				printf("%s,%s:k,%llu\n", rows[r].name, sim_event_names[ev[e]],
				       (unsigned long long)sim_totals_get(&rows[r].res.kernel, ev[e]));
			}
		return;
	}
	printf("\n Replay of '%s' (%s, %s; %s):\n\n", file, rec->host, rec->profile,
	       win ? "windows" : "whole run");
	for (size_t r = 0; r < nrows; r++) {
		const struct sim_totals *t = win ? &rows[r].res.window : &rows[r].res.total;
		printf(" %s\n", rows[r].name);
		for (int e = 0; e < nev; e++) {
			printf(" %18llu      %s", (unsigned long long)sim_totals_get(t, ev[e]),
			       sim_event_names[ev[e]]);
			if (!strcmp(rec->host, "qemu"))
				printf("  (user %llu, kernel %llu)",
				       (unsigned long long)sim_totals_get(&rows[r].res.user, ev[e]),
				       (unsigned long long)sim_totals_get(&rows[r].res.kernel, ev[e]));
			printf("\n");
		}
		if (rows[r].carried)
			printf(" %18llu      instructions carried exactly, %llu approximately, "
			       "%llu kept outside\n", (unsigned long long)rows[r].res.exact,
			       (unsigned long long)rows[r].res.approx,
			       (unsigned long long)rows[r].res.outside);
		printf("\n");
	}
}

bool replay_refuse(const char *name, const struct replay_result *r, double limit)
{
	uint64_t all = r->exact + r->approx + r->outside;
	double pct = all ? 100.0 * (double)r->approx / (double)all : 0;
	char list[512] = "";
	size_t len = 0;

	if (pct <= limit)
		return false;
	for (size_t i = 0; i < r->napprox_fns && i < 5; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					r->approx_fns[i].name);
	if (r->napprox_fns > 5)
		snprintf(list + len, sizeof(list) - len, " and %zu more", r->napprox_fns - 5);
	lace_err(name, "%.2f%% of the executed instructions are carried over approximately "
		 "(above --max-approx %g%%), in: %s", pct, limit, list);
	return true;
}


void replay_print_hot(const json_t *h, bool as_json)
{
	size_t i;
	json_t *o;

	if (as_json) {
		json_dumpf(h, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		return;
	}
	printf("%14s %7s  %-40s %s\n", "instructions", "share", "function", "piece+offset");
	json_array_foreach(json_object_get(h, "hot"), i, o)
		printf("%14.0f %6.2f%%  %-40s %s+%.0f\n", lace_json_get_num(o, "instructions"),
		       100 * lace_json_get_num(o, "share"), json_string_value(json_object_get(o, "function")),
		       json_string_value(json_object_get(o, "piece")) ?: "-", lace_json_get_num(o, "offset"));
}


/* --write-edit: the edit of the hottest pieces' hottest functions, and
 * *h becomes those functions (what --hot prints) */
int replay_write_hot_edit(json_t **h, long hot, unsigned long edit_align, const char *write_edit)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *chosen = json_pack("{s:O,s:O,s:[]}", "build", json_object_get(*h, "build"),
				   "instructions", json_object_get(*h, "instructions"), "hot");
	size_t n = replay_hot_edit(*h, (size_t)hot, edit_align, chosen, &sb);
	int rc = 0;

	json_decref(*h);
	*h = chosen;
	if (n < (size_t)hot)
		rc = lace_error_set(EINVAL, "--hot %ld: the recording ran code in %zu pieces of its build",
				    hot, n);
	else
		rc = fs_write_file(write_edit, sb.buf, sb.len);
	strbuf_release(&sb);
	if (rc) {
		lace_err("replay", "%s", lace_error_msg());
		json_decref(*h);
		*h = NULL;
		return LACE_EXIT_USAGE;
	}
	return 0;
}
