/* lace ab --same-execution: its checks and its report; see ab_same.h and
 * pipeline/ab_same.h. */
#include "cli/ab_same.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/command.h"
#include "cli/session_cli.h"
#include "pipeline/ab_same.h"
#include "util/error.h"
#include "util/json.h"

/* the qemu options that name A's and B's files; the rest go to lace stat */
static int backend_opts(struct ab_same_opts *o)
{
	const struct lace_session *s = &session_cli.sess;

	for (size_t i = 0; i < s->nbackend_opts; i++) {
		const char *n = s->backend_opts[i].name, *v = s->backend_opts[i].value;

		if (!strcmp(n, "kernel-a"))
			o->kernel_a = v;
		else if (!strcmp(n, "kernel-b"))
			o->kernel_b = v;
		else if (!strcmp(n, "system-map-a"))
			o->map_a = v;
		else if (!strcmp(n, "system-map-b"))
			; /* B is not booted: its vmlinux gives its addresses */
		else if (!strcmp(n, "kernel") || !strcmp(n, "system-map"))
			return lace_usage_error("ab", "--%s: --same-execution takes --kernel-a and "
						"--kernel-b", n);
		else if (strvec_pushf(&o->stat_opts, "--%s", n) && v)
			strvec_push(&o->stat_opts, v);
	}
	if (!o->kernel_a || !o->kernel_b)
		return lace_usage_error("ab", "--same-execution needs --kernel-a A and --kernel-b B "
					"(two builds of the same kernel)");
	/* the run options that apply to A's one boot */
	if (s->ro.timeout_s > 0) {
		strvec_push(&o->stat_opts, "--timeout");
		strvec_pushf(&o->stat_opts, "%g", s->ro.timeout_s);
	}
	if (s->ro.cpu_list)
		strvec_pushv(&o->stat_opts, (const char *[]){ "-C", s->ro.cpu_list, NULL });
	return 0;
}

static int options(struct ab_same_cli *c, struct ab_same_opts *o, char **argv)
{
	const struct lace_session *s = &session_cli.sess;
	int rc;

	if (s->mode != LACE_BACKEND_QEMU)
		return lace_usage_error("ab", "--same-execution needs --backend qemu (it replays "
					"one recorded boot of A)");
	if (!argv[0])
		return lace_usage_error("ab", "--same-execution needs the workload: -- CMD [ARGS]");
	if (session_cli.rdr.fmt != LACE_FMT_TEXT && session_cli.rdr.fmt != LACE_FMT_JSON)
		return lace_usage_error("ab", "--same-execution reports as text or --json");
	if ((rc = backend_opts(o)))
		return rc;
	for (size_t i = 0; i < s->evl.n; i++)
		strvec_push(&o->events, s->evl.ev[i].name);
	for (const char *e = o->events.nr ? "" : AB_SAME_DEFAULT_EVENTS; *e;) {
		size_t l = strcspn(e, ",");

		strvec_pushf(&o->events, "%.*s", (int)l, e);
		e += l + (e[l] == ',');
	}
	if (ab_same_events_check(&o->events))
		return lace_usage_error("ab", "%s", lace_error_msg());
	if (c->noise_dir && ab_same_noise_dir(c->noise_dir, &o->noise)) {
		lace_err(NULL, "%s", lace_error_msg());
		return LACE_EXIT_USAGE;
	}
	for (size_t i = 0; i < c->noise.nr; i++)
		strvec_push(&o->noise, c->noise.v[i]);
	o->argv = argv;
	return 0;
}

static const char *num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static void print_row(FILE *f, const json_t *r, bool noise)
{
	char b[8][32];
	bool tested = json_is_true(json_object_get(r, "tested"));

	fprintf(f, "%-26s %12s %12s %+10.0f %8s %7s %7s",
		json_string_value(json_object_get(r, "event")),
		num(b[0], 32, lace_json_get_num(r, "a"), "%.0f"),
		num(b[1], 32, lace_json_get_num(r, "b"), "%.0f"), lace_json_get_num(r, "difference"),
		num(b[2], 32, lace_json_get_num(r, "ratio"), "%.4f"),
		num(b[3], 32, lace_json_get_num(r, "a_mpki"), "%.3f"),
		num(b[4], 32, lace_json_get_num(r, "b_mpki"), "%.3f"));
	if (noise && tested)
		fprintf(f, " %3.0f %5.0f %5.0f %6s %6s  %s",
			lace_json_get_num(r, "relinks"), lace_json_get_num(r, "relinks_above"),
			lace_json_get_num(r, "relinks_below"),
			num(b[5], 32, lace_json_get_num(r, "p"), "%.3g"),
			num(b[6], 32, lace_json_get_num(r, "p_holm"), "%.3g"),
			json_string_value(json_object_get(r, "verdict")));
	else if (noise)
		fprintf(f, "  (the same execution: equal by construction, not tested)");
	fputc('\n', f);
}

static void print_text(FILE *f, const json_t *d)
{
	const json_t *c = json_object_get(d, "carried_b");
	size_t n = (size_t)json_integer_value(json_object_get(d, "relinks")), i;
	double minp = lace_json_get_num(d, "min_p");
	json_t *r;

	fprintf(f, "lace ab: compared on %s\n", json_string_value(json_object_get(d, "compared_on")));
	fprintf(f, "  A: %s (addresses of %s)\n", json_string_value(json_object_get(d, "kernel_a")),
		json_string_value(json_object_get(d, "layout_a")));
	fprintf(f, "  B: %s (addresses of %s)\n", json_string_value(json_object_get(d, "kernel_b")),
		json_string_value(json_object_get(d, "layout_b")));
	fprintf(f, "  command: %s\n", json_string_value(json_object_get(d, "command")) ?: "");
	fprintf(f, "  A's boot replayed through A's own build: %s\n",
		json_is_true(json_object_get(d, "replay_equals_live"))
			? "equals the live counts, every event"
			: "DIFFERS from the live counts (a replay bug: see a_live)");
	fprintf(f, "  carried into B: %.0f instructions exactly, %.0f approximately, %.0f outside "
		"the kernel\n", lace_json_get_num(c, "exact"), lace_json_get_num(c, "approximate"),
		lace_json_get_num(c, "outside"));
	if (n) {
		fprintf(f, "  placement noise: %zu relinks of A, each replayed; B-A ranked among their "
			"differences from A (two-sided), Holm-adjusted across the tested events\n", n);
		if (minp >= 0.05)
			fprintf(f, "  with %zu relinks no p below 2/(n+1) = %.3g is possible: "
				"\"beyond placement noise\" needs at least 39\n", n, minp);
	} else {
		fprintf(f, "  no relink family given (--noise-layouts DIR): the difference only; "
			"no verdict is possible without one\n");
	}
	fprintf(f, "\n%-26s %12s %12s %10s %8s %7s %7s", "event", "A", "B", "B-A", "B/A", "A MPKI",
		"B MPKI");
	if (n)
		fprintf(f, " %3s %5s %5s %6s %6s  %s", "n", "above", "below", "p", "Holm", "verdict");
	fputc('\n', f);
	json_array_foreach(json_object_get(d, "events"), i, r)
		print_row(f, r, n > 0);
	const json_t *cost = json_object_get(d, "cost");
	fprintf(f, "\ncost (not a result): one boot of A %.1f s, the replays %.1f s\n",
		lace_json_get_num(cost, "boot_seconds"), lace_json_get_num(cost, "replay_seconds"));
}

int ab_same_main(struct ab_same_cli *c, char **argv)
{
	struct ab_same_opts o = { .events = STRVEC_INIT, .noise = STRVEC_INIT,
				  .stat_opts = STRVEC_INIT };
	json_t *doc = NULL;
	int rc = options(c, &o, argv);

	if (rc)
		goto out;
	int err = ab_same_run(&o, &doc);
	if (err) {
		lace_err(NULL, "%s", lace_error_msg());
		rc = err == -EIO ? LACE_EXIT_FAIL : LACE_EXIT_USAGE;
		goto out;
	}
	FILE *f = session_cli_report_begin();
	if (session_cli.rdr.fmt == LACE_FMT_JSON) {
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
	} else {
		print_text(f, doc);
	}
	rc = session_cli_report_end();
	if (!rc && !json_is_true(json_object_get(doc, "replay_equals_live"))) {
		lace_err("ab", "the replay through A's own build differs from A's live counts");
		rc = LACE_EXIT_FAIL;
	}
out:
	json_decref(doc);
	strvec_clear(&o.events);
	strvec_clear(&o.noise);
	strvec_clear(&o.stat_opts);
	return rc;
}
