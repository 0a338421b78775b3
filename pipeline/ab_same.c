/* lace ab --same-execution; see ab_same.h. */
#include "pipeline/ab_same.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/symkeys.h"
#include "measure/model_results.h"
#include "measure/stats/stats.h"
#include "pipeline/selfexec.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/strbuf.h"
#include "util/time.h"
#include "util/xalloc.h"

#define COMPARED_ON "one execution: A's boot replayed through B's layout (lace replay); " \
		    "B was not booted"

/* EVENT[:k|:u] into the simulator's name and the replay's side */
static int event_split(const char *name, char *base, size_t len, const char **side)
{
	const char *colon = strrchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : strlen(name);

	*side = "counts";
	if (colon && !strcmp(colon, ":k"))
		*side = "kernel";
	else if (colon && !strcmp(colon, ":u"))
		*side = "user";
	else if (colon)
		return -EINVAL;
	if (n >= len)
		return -EINVAL;
	memcpy(base, name, n);
	base[n] = 0;
	return sim_event_index(base) < 0 ? -EINVAL : 0;
}

int ab_same_events_check(const struct strvec *events)
{
	for (size_t i = 0; i < events->nr; i++) {
		char base[64];
		const char *side;

		if (event_split(events->v[i], base, sizeof(base), &side))
			return lace_error_set(EINVAL, "-e %s: not an event the simulator counts "
					      "(--same-execution compares the model's events, "
					      "EVENT, EVENT:k or EVENT:u)", events->v[i]);
	}
	return 0;
}

static int subdir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int ab_same_noise_dir(const char *dir, struct strvec *out)
{
	struct dirent **list;
	size_t found = 0;
	int n;

	if (!fs_is_dir(dir))
		return lace_error_set(ENOTDIR, "%s: not a folder (--noise-layouts wants a folder "
				      "of builds, each SUB/vmlinux)", dir);
	n = scandir(dir, &list, subdir_filter, versionsort);
	if (n < 0)
		return lace_error_set(errno, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s/%s/vmlinux", dir, list[i]->d_name);
		if (fs_is_file(sb.buf)) {
			strvec_push(out, sb.buf);
			found++;
		}
		strbuf_release(&sb);
		free(list[i]);
	}
	free(list);
	if (!found)
		return lace_error_set(ENOENT, "%s: no subfolder holds a vmlinux (--noise-layouts "
				      "wants DIR/SUB/vmlinux, e.g. relinks of A)", dir);
	return 0;
}

/* ---- the two runs of lace ------------------------------------------------ */

/* the last line of a failed child's stderr, without its "lace: " */
static int child_failed(struct selfexec_result *r, int err, const char *what)
{
	const char *why = selfexec_why(r);

	if (!strncmp(why, "lace: ", 6))
		return lace_error_set(err, "%s", why + 6);
	return lace_error_set(err, "%s exited %d: %s", what, r->exit_code, why);
}

/* run lace argv, its stdout parsed into *j; a failure is err */
static int run_json(struct strvec *argv, int err, const char *what, json_t **j)
{
	struct selfexec_result r;
	json_error_t je;
	int rc = selfexec_run((const char *const *)argv->v, NULL, false, &r);

	if (rc < 0)
		return rc;
	/* a failed run: lace stat's document says why, its stderr does not */
	json_t *doc = r.exit_code == 1 ? json_loads(r.out.buf, 0, NULL) : NULL;
	const char *faults = json_string_value(json_object_get(doc, "fault_summary"));
	if (faults && *faults)
		rc = lace_error_set(err, "%s: %s", what, faults);
	else if (r.exit_code)
		rc = child_failed(&r, r.exit_code == 2 ? EINVAL : err, what);
	else if (!(*j = json_loads(r.out.buf, 0, &je)))
		rc = lace_error_set(EIO, "%s printed unreadable JSON: %s", what, je.text);
	json_decref(doc);
	selfexec_result_release(&r);
	return rc;
}

/* one boot of A, recorded into rec: lace stat's document */
static int boot_a(const struct ab_same_opts *o, const char *rec, json_t **stat)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf ev = STRBUF_INIT;
	int rc;

	for (size_t i = 0; i < o->events.nr; i++)
		strbuf_addf(&ev, "%s%s", i ? "," : "", o->events.v[i]);
	strvec_pushv(&v, (const char *[]){ "stat", "--backend", "qemu", "--kernel", o->kernel_a,
					   "-e", ev.buf, "--record", rec, "--json", "--no-results",
					   NULL });
	if (o->map_a)
		strvec_pushv(&v, (const char *[]){ "--system-map", o->map_a, NULL });
	for (size_t i = 0; i < o->stat_opts.nr; i++)
		strvec_push(&v, o->stat_opts.v[i]);
	strvec_push(&v, "--");
	for (size_t i = 0; o->argv[i]; i++)
		strvec_push(&v, o->argv[i]);
	/* a failed boot is a failed run (exit 1); lace stat's usage error
	 * (a kernel that is none) is the user's input (exit 2) */
	rc = run_json(&v, EIO, "A's boot", stat);
	strvec_clear(&v);
	strbuf_release(&ev);
	return rc;
}

/* the recording through A's own build, B's and the relinks */
static int replay_all(const struct ab_same_opts *o, const char *rec, const char *va,
		      const char *vb, json_t **rep)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf ev = STRBUF_INIT;
	int rc;

	/* instructions always: each side's MPKI divides by them */
	struct strvec names = STRVEC_INIT;

	strvec_push(&names, "instructions");
	for (size_t i = 0; i < o->events.nr; i++) {
		char base[64];
		const char *side;

		if (!event_split(o->events.v[i], base, sizeof(base), &side) &&
		    strvec_find(&names, base) < 0)
			strvec_push(&names, base);
	}
	for (size_t i = 0; i < names.nr; i++)
		strbuf_addf(&ev, "%s%s", i ? "," : "", names.v[i]);
	strvec_clear(&names);
	strvec_pushv(&v, (const char *[]){ "replay", "--json", "-e", ev.buf, "--base", va,
					   "--layout", va, "--layout", vb, NULL });
	for (size_t i = 0; i < o->noise.nr; i++)
		strvec_pushv(&v, (const char *[]){ "--layout", o->noise.v[i], NULL });
	strvec_push(&v, rec);
	rc = run_json(&v, EINVAL, "lace replay", rep);
	strvec_clear(&v);
	strbuf_release(&ev);
	return rc;
}

/* ---- the analysis --------------------------------------------------------- */

/* layout i's count of an event (lace stat's name) */
static double count_of(const json_t *rep, size_t i, const char *name)
{
	const json_t *lay = json_array_get(json_object_get(rep, "layouts"), i);
	char base[64];
	const char *side;

	if (event_split(name, base, sizeof(base), &side))
		return NAN;
	return lace_json_get_num(json_object_get(lay, side), base);
}

/* misses per 1,000 instructions of the same side */
static double mpki_of(const json_t *rep, size_t i, const char *name)
{
	char ins[32];
	const char *colon = strrchr(name, ':');

	snprintf(ins, sizeof(ins), "instructions%s", colon ? colon : "");
	return 1000.0 * count_of(rep, i, name) / count_of(rep, i, ins);
}

static double live_of(const json_t *stat, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(stat, "events"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", name))
			return lace_json_get_num(e, "mean");
	return NAN;
}

static bool is_instructions(const char *name)
{
	return !strncmp(name, "instructions", 12) && (!name[12] || name[12] == ':');
}

/* layouts: 0 recorded, 1 A's own build, 2 B's, 3.. the relinks */
enum { L_OWN = 1, L_B = 2, L_NOISE = 3 };

static json_t *event_row(const struct ab_same_opts *o, const json_t *rep, const json_t *stat,
			 const char *e, bool *same)
{
	double a = count_of(rep, L_OWN, e), b = count_of(rep, L_B, e), live = live_of(stat, e);
	json_t *r = json_object();

	*same = live == a;
	json_object_set_new(r, "event", json_string(e));
	json_object_set_new(r, "a", lace_json_real(a));
	json_object_set_new(r, "b", lace_json_real(b));
	json_object_set_new(r, "difference", lace_json_real(b - a));
	json_object_set_new(r, "ratio", lace_json_real(a ? b / a : NAN));
	json_object_set_new(r, "a_live", lace_json_real(live));
	json_object_set_new(r, "replay_equals_live", json_boolean(*same));
	if (!is_instructions(e)) {
		json_object_set_new(r, "a_mpki", lace_json_real(mpki_of(rep, L_OWN, e)));
		json_object_set_new(r, "b_mpki", lace_json_real(mpki_of(rep, L_B, e)));
	}
	/* one execution: its instructions are the same through every
	 * layout by construction, nothing to test */
	json_object_set_new(r, "tested", json_boolean(!is_instructions(e)));
	return r;
}

/* the rank tests of the tested events, Holm-adjusted together */
static void rank_tests(const struct ab_same_opts *o, const json_t *rep, json_t *rows)
{
	size_t n = o->noise.nr, nt = 0, i;
	double *ref = xcalloc(n + 1, sizeof(*ref));
	double *p = xcalloc(json_array_size(rows) + 1, sizeof(*p));
	double *adj = xcalloc(json_array_size(rows) + 1, sizeof(*adj));
	json_t *r;

	json_array_foreach(rows, i, r) {
		const char *e = json_string_value(json_object_get(r, "event"));
		struct lace_rank rk;

		if (!json_is_true(json_object_get(r, "tested")))
			continue;
		for (size_t k = 0; k < n; k++)
			ref[k] = count_of(rep, L_NOISE + k, e) - count_of(rep, L_OWN, e);
		p[nt] = stats_rank_p(lace_json_get_num(r, "difference"), ref, n, LACE_ALT_TWO_SIDED, &rk);
		json_object_set_new(r, "relinks", json_integer((json_int_t)rk.n));
		json_object_set_new(r, "relinks_above", json_integer((json_int_t)rk.above));
		json_object_set_new(r, "relinks_below", json_integer((json_int_t)rk.below));
		json_object_set_new(r, "p", lace_json_real(p[nt]));
		nt++;
	}
	stats_holm(p, nt, adj);
	nt = 0;
	json_array_foreach(rows, i, r) {
		if (!json_is_true(json_object_get(r, "tested")))
			continue;
		double h = adj[nt++];
		json_object_set_new(r, "p_holm", lace_json_real(h));
		json_object_set_new(r, "verdict", json_string(h < 0.05 ? "beyond placement noise"
								       : "within placement noise"));
	}
	free(ref);
	free(p);
	free(adj);
}

static json_t *analyze(const struct ab_same_opts *o, const json_t *stat, const json_t *rep)
{
	json_t *doc = json_schema_object("lace-ab-same"), *rows = json_array();
	json_t *lays = json_object_get(rep, "layouts");
	bool all_same = true;

	json_object_set_new(doc, "compared_on", json_string(COMPARED_ON));
	json_object_set(doc, "command", json_object_get(stat, "command"));
	json_object_set_new(doc, "kernel_a", json_string(o->kernel_a));
	json_object_set_new(doc, "kernel_b", json_string(o->kernel_b));
	json_object_set(doc, "layout_a", json_object_get(json_array_get(lays, L_OWN), "layout"));
	json_object_set(doc, "layout_b", json_object_get(json_array_get(lays, L_B), "layout"));
	json_object_set(doc, "carried_b", json_object_get(json_array_get(lays, L_B), "carried"));
	json_object_set(doc, "counted", json_object_get(rep, "counted"));
	json_t *noise = json_array();
	for (size_t k = 0; k < o->noise.nr; k++)
		json_array_append_new(noise, json_string(o->noise.v[k]));
	json_object_set_new(doc, "noise_layouts", noise);
	json_object_set_new(doc, "relinks", json_integer((json_int_t)o->noise.nr));
	json_object_set_new(doc, "min_p", lace_json_real(o->noise.nr ? fmin(1.0, 2.0 /
								(double)(o->noise.nr + 1)) : NAN));
	for (size_t i = 0; i < o->events.nr; i++) {
		bool same;

		json_array_append_new(rows, event_row(o, rep, stat, o->events.v[i], &same));
		all_same &= same;
	}
	if (o->noise.nr)
		rank_tests(o, rep, rows);
	else
		json_object_set_new(doc, "no_verdict", json_string("no relink family given "
			"(--noise-layouts): the difference only, no verdict"));
	json_object_set_new(doc, "replay_equals_live", json_boolean(all_same));
	json_object_set_new(doc, "events", rows);
	return doc;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Before A's boot: is B a build of A's code at all?  Replay decides by
 * the executed code, after the boot; a B that holds few of A's function
 * names (another program, another kernel) is refused now.  Half is far
 * below what two builds of one source share (a relink or a placement
 * variant all of them, a stable update nearly all) and far above what
 * unrelated ELFs do. */
static int same_code_precheck(const char *va, const char *vb, const char *kernel_b)
{
	struct symkeys a, b;
	size_t found = 0;
	int rc;

	if ((rc = symkeys_load(va, &a)))
		return rc;
	if ((rc = symkeys_load(vb, &b))) {
		symkeys_free(&a);
		return rc;
	}
	char **names = xcalloc(b.n, sizeof(*names));
	for (size_t i = 0; i < b.n; i++)
		names[i] = b.v[i].key;
	qsort(names, b.n, sizeof(*names), key_cmp);
	for (size_t i = 0; i < a.n; i++)
		found += bsearch(&a.v[i].key, names, b.n, sizeof(*names), key_cmp) != NULL;
	if (!a.n || found * 2 < a.n)
		rc = lace_error_set(EINVAL, "%s is not a build of A's code: %zu of A's %zu functions "
				    "have their name in it", kernel_b, found, a.n);
	free(names);
	symkeys_free(&a);
	symkeys_free(&b);
	return rc;
}

int ab_same_run(const struct ab_same_opts *o, json_t **out)
{
	json_t *stat = NULL, *rep = NULL;
	char *dir = NULL, *va = NULL, *vb = NULL;
	struct strbuf rec = STRBUF_INIT;
	double t0, t1, t2;
	int rc;

	*out = NULL;
	if ((rc = ab_same_events_check(&o->events)))
		return rc;
	if (!(va = symkeys_build_of(o->kernel_a)) || !(vb = symkeys_build_of(o->kernel_b))) {
		rc = -EINVAL;
		goto out;
	}
	if ((rc = same_code_precheck(va, vb, o->kernel_b)))
		goto out;
	if ((rc = fs_temp_dir("lace-ab-same", &dir)))
		goto out;
	strbuf_addf(&rec, "%s/a.lrec", dir);
	t0 = time_now_s();
	if ((rc = boot_a(o, rec.buf, &stat)))
		goto out;
	t1 = time_now_s();
	if ((rc = replay_all(o, rec.buf, va, vb, &rep)))
		goto out;
	t2 = time_now_s();
	*out = analyze(o, stat, rep);
	json_object_set_new(*out, "cost", json_pack("{s:f,s:f}", "boot_seconds", t1 - t0,
						    "replay_seconds", t2 - t1));
out:
	if (dir) {
		/* the recording goes; a failure to remove it must not
		 * replace the reason the comparison stopped */
		char *why = rc ? xstrdup(lace_error_msg()) : NULL;

		fs_remove_tree(dir);
		if (why)
			lace_error_set(-rc, "%s", why);
		free(why);
	}
	free(dir);
	free(va);
	free(vb);
	strbuf_release(&rec);
	json_decref(stat);
	json_decref(rep);
	return rc;
}
