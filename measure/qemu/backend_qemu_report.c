/* What the qemu backend reads and prints; see backend_qemu_report.h. */
#include "measure/qemu/backend_qemu_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/backend.h"
#include "util/error.h"
#include "util/xalloc.h"

/* The calls of one path whose lengths lens[] ({instructions, calls,
 * interrupted}, shortest first) count: all of them, or (clean) those no
 * interrupt landed in.  min, median (the lower middle one: a length some
 * call took), mode (the most frequent; ties: the shorter) and max, null
 * without calls. */
static json_t *path_distribution(const json_t *lens, bool clean)
{
	json_int_t n = 0, sum = 0, seen = 0, best = 0, mode = 0, min = 0, max = 0, median = 0;
	const json_t *l;
	size_t i;

	json_array_foreach(lens, i, l) {
		json_int_t len = json_integer_value(json_object_get(l, "instructions"));
		json_int_t c = json_integer_value(json_object_get(l, "calls"));

		if (clean)
			c -= json_integer_value(json_object_get(l, "interrupted"));
		if (c <= 0)
			continue;
		if (!n)
			min = len;
		max = len;
		n += c;
		sum += c * len;
		if (c > best) {
			best = c;
			mode = len;
		}
	}
	json_array_foreach(lens, i, l) {
		json_int_t c = json_integer_value(json_object_get(l, "calls"));

		if (clean)
			c -= json_integer_value(json_object_get(l, "interrupted"));
		if (c <= 0)
			continue;
		seen += c;
		if (seen >= (n + 1) / 2) {
			median = json_integer_value(json_object_get(l, "instructions"));
			break;
		}
	}
	if (!n)
		return json_pack("{s:I,s:I,s:n,s:n,s:n,s:n,s:n,s:I}", "calls", (json_int_t)0,
				 "inclusive", (json_int_t)0, "per_call", "min", "median", "mode",
				 "max", "mode_calls", (json_int_t)0);
	return json_pack("{s:I,s:I,s:f,s:I,s:I,s:I,s:I,s:I}", "calls", n, "inclusive", sum,
			 "per_call", (double)sum / (double)n, "min", min, "median", median, "mode",
			 mode, "max", max, "mode_calls", best);
}

/* A path's distribution from its "lengths": the fields of all calls beside
 * calls and inclusive, and "uninterrupted" (the same over the calls no
 * interrupt landed in), whose mode is the quotable "path_length". */
static void path_summarise(json_t *p)
{
	const json_t *lens = json_object_get(p, "lengths");
	json_t *all, *clean;
	const char *k;
	json_t *v;

	if (!lens)
		return;
	all = path_distribution(lens, false);
	clean = path_distribution(lens, true);
	json_object_foreach(all, k, v)
		if (strcmp(k, "calls") && strcmp(k, "inclusive") && strcmp(k, "per_call"))
			json_object_set(p, k, v);
	json_decref(all);
	json_object_set(p, "path_length", json_object_get(clean, "mode"));
	json_object_set_new(p, "uninterrupted", clean);
}

/* The path object named name in paths, or NULL */
static json_t *path_named(json_t *paths, const char *name)
{
	json_t *p;
	size_t i;

	json_array_foreach(paths, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")) ?: "", name))
			return p;
	return NULL;
}

int qemu_report_read(const char *path, struct tcg_split *w, unsigned *nwin, json_t **fns,
		     json_t **paths)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool end = false;
	json_t *p;
	size_t i;

	*nwin = 0;
	*fns = json_array();
	*paths = json_array();
	if (!f)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned n;
		struct tcg_split one;
		char name[256];
		unsigned long long ins, l1, it, st, calls, intr;

		if (!tcg_split_parse(line, &n, &one)) {
			*w = one;
			(*nwin)++;
		} else if (sscanf(line,
				  "fn %255s instructions=%llu l1i_misses=%llu itlb_misses=%llu "
				  "stlb_misses=%llu calls=%llu",
				  name, &ins, &l1, &it, &st, &calls) == 6) {
			json_array_append_new(*fns, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "name", name,
							      "instructions", (json_int_t)ins,
							      "l1i_misses", (json_int_t)l1,
							      "itlb_misses", (json_int_t)it,
							      "stlb_misses", (json_int_t)st,
							      "calls", (json_int_t)calls));
		} else if (sscanf(line, "pathlen %255s instructions=%llu calls=%llu interrupted=%llu",
				  name, &ins, &calls, &intr) == 4) {
			p = path_named(*paths, name);
			if (p)
				json_array_append_new(json_object_get(p, "lengths"),
						      json_pack("{s:I,s:I,s:I}", "instructions",
								(json_int_t)ins, "calls",
								(json_int_t)calls, "interrupted",
								(json_int_t)intr));
		} else if (sscanf(line, "path %255s calls=%llu inclusive=%llu interrupted=%llu", name,
				  &calls, &ins, &intr) == 4) {
			json_array_append_new(*paths, json_pack("{s:s,s:I,s:I,s:o,s:I,s:[]}", "name",
								name, "calls", (json_int_t)calls,
								"inclusive", (json_int_t)ins,
								"per_call", calls ? json_real((double)ins /
								(double)calls) : json_null(),
								"interrupted_calls", (json_int_t)intr,
								"lengths"));
			if (sscanf(strstr(line, " l1i_misses=") ?: "", " l1i_misses=%llu itlb_misses=%llu",
				   &l1, &it) == 2) {
				p = json_array_get(*paths, json_array_size(*paths) - 1);
				json_object_set_new(p, "l1i_misses", json_integer((json_int_t)l1));
				json_object_set_new(p, "itlb_misses", json_integer((json_int_t)it));
			}
		} else if (!strncmp(line, "end ", 4)) {
			end = true;
		}
	}
	fclose(f);
	json_array_foreach(*paths, i, p)
		path_summarise(p);
	return end ? 0 : lace_error_set(EIO, "%s: cut short (QEMU did not exit normally)", path);
}

int qemu_report_read_more(const char *path, struct tcg_split *more, size_t nmore)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t seen = 0;

	if (!f)
		return lace_error_set(errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long k;
		unsigned n;
		char *rest;

		if (strncmp(line, "profile ", 8))
			continue;
		k = strtoul(line + 8, &rest, 10);
		if (k < 1 || k > nmore || *rest != ' ' || tcg_split_parse(rest + 1, &n, &more[k - 1]))
			continue;
		seen |= (size_t)1 << (k - 1);
	}
	fclose(f);
	if (seen != ((size_t)1 << nmore) - 1)
		return lace_error_set(EIO, "%s: a profile's window is missing", path);
	return 0;
}

static int by_instructions(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "instructions"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "instructions"));

	return x < y ? 1 : x > y ? -1 : 0;
}

json_t *qemu_report_top(json_t *fns, size_t top)
{
	size_t n = json_array_size(fns), i;
	json_t **v = xcalloc(n, sizeof(*v)), *out = json_array();

	for (i = 0; i < n; i++)
		v[i] = json_array_get(fns, i);
	qsort(v, n, sizeof(*v), by_instructions);
	for (i = 0; i < n && i < top; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

json_t *qemu_report_split_json(const struct sim_totals *t)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "instructions",
			 (json_int_t)t->instructions, "L1-icache-loads", (json_int_t)t->l1i_loads,
			 "L1-icache-load-misses", (json_int_t)t->l1i_misses, "iTLB-loads",
			 (json_int_t)t->itlb_loads, "iTLB-load-misses", (json_int_t)t->itlb_misses,
			 "stlb-loads", (json_int_t)t->stlb_loads, "stlb-misses",
			 (json_int_t)t->stlb_misses, "fetch-blocks", (json_int_t)t->fetch_blocks,
			 "fetch-late-entries", (json_int_t)t->fetch_late);
}

/* one vCPU under -icount: every boot of one kernel and workload should
 * count the same; say whether these did */
static void print_determinism(FILE *out, json_t *const *extra, size_t nruns)
{
	size_t nu, nk;
	bool same_u, same_k;
	json_t *last = backend_extra_last(extra, nruns, "user", "user", &nu, &same_u);

	/* --qemu-no-plugin: nothing was counted to agree on */
	if (!last || !strcmp(json_string_value(json_object_get(last, "simulator")) ?: "", "none") ||
	    !backend_extra_last(extra, nruns, "kernel_counts", "kernel_counts", &nk, &same_k) ||
	    nu < 2)
		return;
	if (json_integer_value(json_object_get(last, "perturbation")))
		fprintf(out, "\n Execution spread: the %zu boots were perturbed (--qemu-perturb), each "
			"another execution of the same code; the spread above is the execution's "
			"own.\n", nu);
	else if (same_u && same_k)
		fprintf(out, "\n Deterministic: one vCPU under -icount; the %zu boots counted exactly the "
			"same (several vCPUs would not).\n", nu);
	else
		fprintf(out, "\n Not deterministic: the %zu boots counted differently (something in the "
			"guest or QEMU depends on the host; please report it).\n", nu);
}

/* One row of the path table: d's calls, mean and distribution. */
static void print_path_row(FILE *out, const json_t *d, const char *label)
{
	const char *k[] = { "min", "median", "mode", "max" };
	json_int_t calls = json_integer_value(json_object_get(d, "calls"));
	char per[32] = "-";

	if (calls)
		snprintf(per, sizeof(per), "%.1f", (double)json_integer_value(json_object_get(d,
			 "inclusive")) / (double)calls);
	fprintf(out, " %8" JSON_INTEGER_FORMAT " %10s", calls, per);
	for (size_t i = 0; i < 4; i++) {
		const json_t *v = json_object_get(d, k[i]);

		if (json_is_integer(v))
			fprintf(out, " %8" JSON_INTEGER_FORMAT, json_integer_value(v));
		else
			fprintf(out, " %8s", "-");
	}
	fprintf(out, "  %s\n", label);
}

/* --path-length: the named functions' calls, the mean and distribution of
 * their lengths, then the same without the calls an interrupt landed in
 * (a mean spreads one interrupt's thousands over every call), from the
 * last run, and whether every run agreed */
static void print_paths(FILE *out, json_t *const *extra, size_t nruns)
{
	json_t *last, *fn, *pv;
	size_t i, nvalid;
	bool same;

	last = backend_extra_last(extra, nruns, "paths", "paths", &nvalid, &same);
	if (!last)
		return;
	pv = json_object_get(last, "paths");
	fprintf(out, "\n Kernel path lengths (qemu, instructions from entry to return, callees "
		"included; %s):\n\n", backend_extra_agreement(nvalid, same));
	fprintf(out, " %8s %10s %8s %8s %8s %8s  %s\n", "calls", "instr/call", "min", "median",
		"mode", "max", "function");
	json_array_foreach(pv, i, fn) {
		const json_t *clean = json_object_get(fn, "uninterrupted");
		char label[320];

		print_path_row(out, fn, json_string_value(json_object_get(fn, "name")));
		if (!clean)
			continue;
		snprintf(label, sizeof(label), "  uninterrupted (%" JSON_INTEGER_FORMAT
			 " interrupted calls left out)",
			 json_integer_value(json_object_get(fn, "interrupted_calls")));
		print_path_row(out, clean, label);
	}
}

/* The kernel functions of the last run (runs of one kernel and workload
 * are identical under -icount; lace says when they are not). */
void qemu_report_print(FILE *out, json_t *const *extra, size_t nruns, bool per_function)
{
	json_t *last, *fns, *fn;
	size_t i, nvalid;
	bool same;

	print_determinism(out, extra, nruns);
	print_paths(out, extra, nruns);
	if (!per_function)
		return;
	last = backend_extra_last(extra, nruns, "functions", "kernel_counts", &nvalid, &same);
	if (!last)
		return;
	fns = json_object_get(last, "functions");
	fprintf(out, "\n Hottest kernel functions (qemu, %s; %s):\n\n",
		json_string_value(json_object_get(last, "profile")), backend_extra_agreement(nvalid, same));
	fprintf(out, " %14s %10s %12s %10s %10s %10s  %s\n", "instructions", "calls", "instr/call",
		"L1i-miss", "iTLB-miss", "STLB-miss", "function");
	json_array_foreach(fns, i, fn) {
		json_int_t ins = json_integer_value(json_object_get(fn, "instructions"));
		json_int_t calls = json_integer_value(json_object_get(fn, "calls"));
		char per[32] = "-";

		if (calls)
			snprintf(per, sizeof(per), "%.1f", (double)ins / (double)calls);
		fprintf(out, " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %12s %10"
			JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT
			"  %s\n", ins, calls, per,
			json_integer_value(json_object_get(fn, "l1i_misses")),
			json_integer_value(json_object_get(fn, "itlb_misses")),
			json_integer_value(json_object_get(fn, "stlb_misses")),
			json_string_value(json_object_get(fn, "name")));
	}
}

