/* lace-vg output files; see results.h and doc/events.md for the format. */
#include "measure/model_results.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/parse_num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Order matches struct sim_totals. */
const char *const sim_event_names[] = {
	"instructions",    "L1-icache-loads", "L1-icache-load-misses",
	"iTLB-loads",      "iTLB-load-misses", "stlb-loads",
	"stlb-misses",     "fetch-blocks",    "fetch-late-entries",
	NULL,
};

static uint64_t *totals_field(struct sim_totals *t, int i)
{
	uint64_t *f[] = {
		&t->instructions, &t->l1i_loads,   &t->l1i_misses,
		&t->itlb_loads,   &t->itlb_misses, &t->stlb_loads,
		&t->stlb_misses,  &t->fetch_blocks, &t->fetch_late,
	};
	return f[i];
}

int sim_event_index(const char *name)
{
	for (int i = 0; sim_event_names[i]; i++)
		if (!strcmp(sim_event_names[i], name))
			return i;
	return -1;
}

uint64_t sim_totals_get(const struct sim_totals *t, int index)
{
	return *totals_field((struct sim_totals *)t, index);
}

static void totals_add(struct sim_totals *a, const struct sim_totals *b)
{
	for (int i = 0; sim_event_names[i]; i++)
		*totals_field(a, i) += *totals_field((struct sim_totals *)b, i);
}

static void proc_free(struct sim_proc *p);

static int proc_parse(const char *text, struct sim_proc *p)
{
	const char *line = text;
	size_t alloc = 0;
	int lineno = 0, header = 0, done = 0;

	memset(p, 0, sizeof(*p));
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4096], *val;
		uint64_t v;
		int idx;

		lineno++;
		if (len >= sizeof(buf))
			return lace_error_set(EINVAL, "line %d: too long", lineno);
		memcpy(buf, line, len);
		buf[len] = '\0';
		line += len + (nl ? 1 : 0);
		if (!strcmp(buf, "done")) {
			done = 1;
			continue;
		}
		val = strchr(buf, ' ');
		if (!val)
			return lace_error_set(EINVAL, "line %d: expected 'key value'", lineno);
		*val++ = '\0';
		if (lineno == 1) {
			if (strcmp(buf, "lace-vg") || strcmp(val, "1"))
				return lace_error_set(EINVAL, "line 1: not a lace-vg 1 result file");
			header = 1;
			continue;
		}
		if (!strcmp(buf, "fn")) {
			struct sim_fn_result *f;
			char *name;
			unsigned long long x[6];
			int n = 0;

			if (sscanf(val, "%llu %llu %llu %llu %llu %llu %n", &x[0], &x[1], &x[2],
				   &x[3], &x[4], &x[5], &n) != 6 || !n || !val[n] || val[0] == '-')
				return lace_error_set(EINVAL, "line %d: bad function line", lineno);
			name = val + n;
			ALLOC_GROW(p->fns, p->nfns + 1, alloc);
			f = &p->fns[p->nfns++];
			f->name = xstrdup(name);
			f->s.instructions = x[0];
			f->s.l1i_misses = x[1];
			f->s.itlb_misses = x[2];
			f->s.stlb_misses = x[3];
			f->s.calls = x[4];
			f->inclusive = x[5];
			continue;
		}
		if (!strcmp(buf, "exe")) {
			snprintf(p->exe, sizeof(p->exe), "%s", val);
			continue;
		}
		if (!strcmp(buf, "profile")) {
			snprintf(p->profile, sizeof(p->profile), "%s", val);
			continue;
		}
		if (!strcmp(buf, "end")) {
			snprintf(p->end, sizeof(p->end), "%s", val);
			continue;
		}
		if (!strcmp(buf, "l1i") || !strcmp(buf, "itlb") || !strcmp(buf, "stlb"))
			continue;   /* geometry, echoed for the reader */
		if (!strcmp(buf, "more")) {
			unsigned k;
			int n = 0;

			if (sscanf(val, "%u %n", &k, &n) != 1 || !n || k != p->nmore + 1 ||
			    k > SIM_MORE_MAX || !val[n])
				return lace_error_set(EINVAL, "line %d: bad profile line", lineno);
			snprintf(p->more[p->nmore++].name, sizeof(p->more[0].name), "%s", val + n);
			continue;
		}
		if (buf[0] == 'm' && buf[1] >= '1' && buf[1] <= '9' && buf[2] == '-') {
			/* "mK-[inherited-|window-]EVENT": the other profile K's */
			unsigned k = (unsigned)(buf[1] - '0');
			struct sim_more *m = k <= p->nmore ? &p->more[k - 1] : NULL;
			const char *key = buf + 3;

			if (!m || parse_u64(val, &v))
				return lace_error_set(EINVAL, "line %d: bad profile count", lineno);
			if (!strncmp(key, "inherited-", 10) && (idx = sim_event_index(key + 10)) >= 0)
				*totals_field(&m->inherited, idx) = v;
			else if (!strncmp(key, "window-", 7) && (idx = sim_event_index(key + 7)) >= 0)
				*totals_field(&m->window, idx) = v;
			else if ((idx = sim_event_index(key)) >= 0)
				*totals_field(&m->t, idx) = v;
			continue;
		}
		if (parse_u64(val, &v))
			return lace_error_set(EINVAL, "line %d: '%s' is not a count", lineno, val);
		if (!strcmp(buf, "pid"))
			p->pid = (pid_t)v;
		else if (!strcmp(buf, "ppid"))
			p->ppid = (pid_t)v;
		else if (!strcmp(buf, "image"))
			p->image = (int)v;
		else if (!strcmp(buf, "forked-from"))
			p->forked_from = (pid_t)v;
		else if (!strncmp(buf, "inherited-", 10) && (idx = sim_event_index(buf + 10)) >= 0)
			*totals_field(&p->inherited, idx) = v;
		else if (!strcmp(buf, "windows"))
			p->windows = (unsigned)v;
		else if (!strncmp(buf, "window-", 7) && (idx = sim_event_index(buf + 7)) >= 0)
			*totals_field(&p->window, idx) = v;
		else if ((idx = sim_event_index(buf)) >= 0)
			*totals_field(&p->t, idx) = v;
		/* other keys (page, fetch-block, future ones) are informative */
	}
	if (!header)
		return lace_error_set(EINVAL, "empty result file");
	if (!done)
		return lace_error_set(EINVAL, "truncated result file (no 'done' line: the process was killed?)");
	return 0;
}

static void proc_free(struct sim_proc *p)
{
	for (size_t i = 0; i < p->nfns; i++)
		free(p->fns[i].name);
	free(p->fns);
	p->fns = NULL;
	p->nfns = 0;
}

int sim_proc_parse(const char *text, struct sim_proc *p)
{
	int err = proc_parse(text, p);

	if (err)
		proc_free(p);
	return err;
}

void sim_results_free(struct sim_results *r)
{
	for (size_t i = 0; i < r->nprocs; i++)
		proc_free(&r->procs[i]);
	free(r->procs);
	for (size_t i = 0; i < r->nfns; i++)
		free(r->fns[i].name);
	free(r->fns);
	memset(r, 0, sizeof(*r));
}

static int cmp_proc(const void *a, const void *b)
{
	const struct sim_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->image > y->image) - (x->image < y->image);
}

static int cmp_fn_name(const void *a, const void *b)
{
	return strcmp(((const struct sim_fn_result *)a)->name,
		      ((const struct sim_fn_result *)b)->name);
}

static int cmp_fn_hot(const void *a, const void *b)
{
	const struct sim_fn_result *x = a, *y = b;

	if (x->s.instructions != y->s.instructions)
		return x->s.instructions > y->s.instructions ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Merge the per-process function tables by name. */
static void merge_fns(struct sim_results *r)
{
	size_t n = 0, k = 0, out = 0;
	struct sim_fn_result *all;

	for (size_t i = 0; i < r->nprocs; i++)
		n += r->procs[i].nfns;
	all = xcalloc(n, sizeof(*all));
	for (size_t i = 0; i < r->nprocs; i++)
		for (size_t j = 0; j < r->procs[i].nfns; j++)
			all[k++] = r->procs[i].fns[j];   /* names borrowed for now */
	qsort(all, n, sizeof(*all), cmp_fn_name);
	for (size_t i = 0; i < n; i++) {
		if (out && !strcmp(all[out - 1].name, all[i].name)) {
			struct sim_fn_stats *d = &all[out - 1].s;
			d->instructions += all[i].s.instructions;
			d->l1i_misses += all[i].s.l1i_misses;
			d->itlb_misses += all[i].s.itlb_misses;
			d->stlb_misses += all[i].s.stlb_misses;
			d->calls += all[i].s.calls;
			all[out - 1].inclusive += all[i].inclusive;
			continue;
		}
		all[out++] = all[i];
	}
	for (size_t i = 0; i < out; i++)
		all[i].name = xstrdup(all[i].name);
	qsort(all, out, sizeof(*all), cmp_fn_hot);
	r->fns = all;
	r->nfns = out;
}

int sim_results_load(const char *dir, const char *prefix, struct sim_results *r)
{
	size_t plen = strlen(prefix), alloc = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	memset(r, 0, sizeof(*r));
	d = opendir(dir);
	if (!d)
		return lace_error_set(errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;
		char path[4096];
		struct sim_proc p;

		if (strncmp(de->d_name, prefix, plen) || de->d_name[plen] != '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strbuf_read_file(&sb, path) < 0) {
			err = lace_error_set(EIO, "%s: cannot read", path);
			strbuf_release(&sb);
			break;
		}
		err = sim_proc_parse(sb.buf, &p);
		strbuf_release(&sb);
		if (err) {
			char msg[256];
			snprintf(msg, sizeof(msg), "%s", lace_error_msg());
			err = lace_error_set(EINVAL, "%s: %s", path, msg);
			proc_free(&p);
			break;
		}
		ALLOC_GROW(r->procs, r->nprocs + 1, alloc);
		r->procs[r->nprocs++] = p;
	}
	closedir(d);
	if (!err && !r->nprocs)
		err = lace_error_set(ENOENT, "the simulator wrote no result (did the program start?)");
	if (err) {
		sim_results_free(r);
		return err;
	}
	qsort(r->procs, r->nprocs, sizeof(*r->procs), cmp_proc);
	r->nmore = r->procs[0].nmore;
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct sim_proc *p = &r->procs[i];

		if (p->nmore != r->nmore) {
			sim_results_free(r);
			return lace_error_set(EINVAL, "%s: the processes' files model different profiles",
					      dir);
		}
		totals_add(&r->total, &p->t);
		for (size_t k = 0; k < p->nmore; k++)
			totals_add(&r->more_total[k], &p->more[k].t);
		if (p->windows) {
			totals_add(&r->window, &p->window);
			for (size_t k = 0; k < p->nmore; k++)
				totals_add(&r->more_window[k], &p->more[k].window);
			r->window_procs++;
		}
	}
	merge_fns(r);
	return 0;
}
