#include "pipeline/check.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/stats/stats.h"
#include "pipeline/check_same.h"
#include "pipeline/selfexec.h"
#include "util/array.h"
#include "util/error.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/json.h"
#include "util/json_schema.h"

/* The workload used when base/head are built-in variants and the config
 * names none: a short hackbench run through the study code. */
#define DEFAULT_VARIANT_WORKLOAD "{elf} -g 2 -f 5 -l 40 -T"
#define DEFAULT_EVENTS "instructions,L1-icache-load-misses,iTLB-load-misses"

char *check_resolve_elf(const char *arg, const char *variants_dir)
{
	struct stat st;

	if (stat(arg, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			lace_error_set(EISDIR, "is a directory, not an ELF file");
			return NULL;
		}
		/* absolute, so '{elf} ARGS' runs it whatever the shell's PATH */
		char *abs = realpath(arg, NULL);
		return abs ? abs : xstrdup(arg);
	}
	if (!strchr(arg, '/')) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s/hackbench", variants_dir, arg);
		if (stat(p.buf, &st) == 0) {
			char *abs = realpath(p.buf, NULL);
			if (abs) {
				strbuf_release(&p);
				return abs;
			}
			return strbuf_detach(&p, NULL);
		}
		strbuf_release(&p);
		lace_error_set(ENOENT, "no such file, nor a variant in %s (run 'lace build --all')",
			       variants_dir);
		return NULL;
	}
	lace_error_set(errno, "%s", strerror(errno));
	return NULL;
}

static bool is_variant_arg(const char *arg)
{
	return access(arg, F_OK) != 0 && !strchr(arg, '/');
}

static int severity_rank(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "info"))
		return 0;
	if (!strcmp(s, "warning"))
		return 1;
	if (!strcmp(s, "error"))
		return 2;
	return 3; /* never */
}

void check_add_reason(json_t *reasons, const char *kind, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (kind)
		json_array_append_new(reasons, json_pack("{s:s,s:o}", "kind", kind, "reason",
							 lace_json_string(msg)));
	else
		json_array_append_new(reasons, lace_json_string(msg));
}

/* lace diff --json with the configured thresholds; returns parsed JSON. */
static json_t *run_diff(const struct check_opts *o, const char *base, const char *head,
			json_t *errors)
{
	const struct check_config *c = &o->cfg;
	struct strvec argv = STRVEC_INIT;

	strvec_push(&argv, "diff");
	strvec_push(&argv, "--json");
	strvec_push(&argv, "--fail-on");
	strvec_push(&argv, "never");
	if (c->min_align) {
		strvec_push(&argv, "--min-align");
		strvec_push(&argv, c->min_align);
	}
	if (c->max_hot_growth) {
		strvec_push(&argv, "--max-hot-growth");
		strvec_push(&argv, c->max_hot_growth);
	}
	if (c->hot) {
		strvec_push(&argv, "--hot");
		strvec_push(&argv, c->hot);
	}
	for (size_t i = 0; i < c->nrules; i++) {
		strvec_push(&argv, "--rule");
		strvec_push(&argv, c->rules[i]);
	}
	for (size_t i = 0; i < c->nexpects; i++) {
		strvec_push(&argv, "--expect");
		strvec_push(&argv, c->expects[i]);
	}
	if (o->svg) {
		strvec_push(&argv, "--svg");
		strvec_push(&argv, o->svg);
	}
	strvec_push(&argv, base);
	strvec_push(&argv, head);

	struct strbuf why = STRBUF_INIT;
	json_t *j = selfexec_json(argv.v, NULL, 0, &why);
	if (!j)
		check_add_reason(errors, "diff", "%s", why.buf);
	strbuf_release(&why);
	strvec_clear(&argv);
	return j;
}

static json_t *run_ab(const struct check_opts *o, const char *base, const char *head,
		      const char *workload, json_t *errors)
{
	const struct check_config *c = &o->cfg;
	struct strvec argv = STRVEC_INIT;
	char margin[32];

	snprintf(margin, sizeof(margin), "%g", c->margin * 100);
	strvec_push(&argv, "ab");
	strvec_push(&argv, "--json");
	strvec_push(&argv, "--output=null");
	strvec_push(&argv, "--base");
	strvec_push(&argv, base);
	strvec_push(&argv, "--head");
	strvec_push(&argv, head);
	strvec_push(&argv, "--workload");
	strvec_push(&argv, workload);
	strvec_push(&argv, "-e");
	strvec_push(&argv, c->events ? c->events : DEFAULT_EVENTS);
	strvec_push(&argv, "--margin");
	strvec_push(&argv, margin);
	struct { const char *opt, *val; } pass[] = {
		{ "--rounds", c->rounds }, { "--max-runs", c->max_runs }, { "--max-time", c->max_time },
		{ "--warmup", c->warmup }, { "--confidence", c->confidence }, { "--seed", c->seed },
		{ "--timeout", c->timeout }, { "--backend", c->backend }, { "--results", o->results },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pass); i++) {
		if (pass[i].val) {
			strvec_push(&argv, pass[i].opt);
			strvec_push(&argv, pass[i].val);
		}
	}
	if (!o->results)
		strvec_push(&argv, "--no-results");
	/* where the simulator measures, workloads that time themselves count
	 * the same in every round only on its virtual clock */
	if (!c->backend || !strcmp(c->backend, "sim") || !strcmp(c->backend, "auto"))
		strvec_push(&argv, "--virtual-clock");

	struct strbuf why = STRBUF_INIT;
	json_t *j = selfexec_json(argv.v, NULL, 0, &why);
	if (!j)
		check_add_reason(errors, "ab", "on '%s': %s", workload, why.buf);
	strbuf_release(&why);
	strvec_clear(&argv);
	return j;
}

/* Re-decide each event with its own margin from the CI and Holm p that
 * lace ab reported (stats_verdict depends on nothing else). */
static void judge_events(const struct check_opts *o, json_t *ab, const char *workload,
			 json_t *reasons, json_t *notes)
{
	const struct check_config *c = &o->cfg;
	double conf = c->confidence ? atof(c->confidence) / 100.0 : lace_json_get_num(ab, "confidence");
	if (!(conf > 0 && conf < 1))
		conf = 0.95;
	size_t i;
	json_t *ev;

	json_array_foreach(json_object_get(ab, "events"), i, ev) {
		const char *name = json_string_value(json_object_get(ev, "name"));
		if (!name)
			continue;
		double margin = check_config_margin(c, name);
		struct lace_ratio r = {
			.n = (size_t)json_integer_value(json_object_get(ev, "rounds")),
			.ratio = lace_json_get_num(ev, "ratio"), .ci_low = lace_json_get_num(ev, "ci_low"),
			.ci_high = lace_json_get_num(ev, "ci_high"), .p = lace_json_get_num(ev, "p"),
		};
		double p_adj = lace_json_get_num(ev, "p_holm");
		if (isnan(p_adj))
			p_adj = r.p;
		/* a simulated count that repeats exactly (lace ab gives it no
		 * CI): its B/A is exact, so the margin alone decides -- beyond
		 * it is a real change of this build pair, inside it equivalent */
		bool exact = json_is_true(json_object_get(ev, "deterministic"));
		if (exact) {
			r.ci_low = r.ci_high = r.ratio;
			p_adj = 0;
		}
		enum lace_verdict v = stats_verdict(&r, p_adj, conf, margin);
		bool gated = check_config_gated(c, name);
		json_object_set_new(ev, "check_margin", json_real(margin));
		json_object_set_new(ev, "check_verdict", json_string(stats_verdict_name(v)));
		json_object_set_new(ev, "gated", json_boolean(gated));
		if (!gated)
			continue;
		double pct = (r.ratio - 1) * 100, lo = (r.ci_low - 1) * 100, hi = (r.ci_high - 1) * 100;
		if (v == LACE_VERDICT_SLOWER && exact)
			check_add_reason(reasons, "slower",
				   "%s on '%s': %+.2f%% (exact: a deterministic simulated count), beyond the %.3g%% margin",
				   name, workload, pct, margin * 100);
		else if (v == LACE_VERDICT_SLOWER)
			check_add_reason(reasons, "slower",
				   "%s on '%s': %+.2f%% (CI %+.2f%% .. %+.2f%%), beyond the %.3g%% margin",
				   name, workload, pct, lo, hi, margin * 100);
		else if ((v == LACE_VERDICT_INCONCLUSIVE || v == LACE_VERDICT_UNDECIDED)) {
			char line[512];
			snprintf(line, sizeof(line),
				 "%s on '%s' is %s: %+.2f%% (CI %+.2f%% .. %+.2f%%) against a %.3g%% margin",
				 name, workload, stats_verdict_name(v), pct, lo, hi, margin * 100);
			if (c->inconclusive_fails)
				check_add_reason(reasons, "inconclusive", "%s", line);
			else
				json_array_append_new(notes, json_string(line));
		}
	}
}

enum check_decision check_run(const struct check_opts *o, json_t **report)
{
	json_t *rep = json_schema_object("lace-check");
	json_t *reasons = json_array(), *errors = json_array(), *notes = json_array();
	char *base = check_resolve_elf(o->base, o->variants_dir);
	char *head = base ? check_resolve_elf(o->head, o->variants_dir) : NULL;

	*report = rep;
	json_object_set_new(rep, "base", lace_json_string(o->base));
	json_object_set_new(rep, "head", lace_json_string(o->head));
	if (!base || !head) {
		check_add_reason(errors, "input", "%s: %s", base ? o->head : o->base, lace_error_msg());
		goto out;
	}
	json_object_set_new(rep, "base_elf", lace_json_string(base));
	json_object_set_new(rep, "head_elf", lace_json_string(head));

	/* layout rules */
	json_t *diff = run_diff(o, base, head, errors);
	if (diff) {
		int fail_rank = severity_rank(o->cfg.fail_on);
		size_t i;
		json_t *f;
		json_array_foreach(json_object_get(diff, "findings"), i, f) {
			const char *sev = json_string_value(json_object_get(f, "severity"));
			/* what the patch declared it does is not a reason to fail */
			if (json_object_get(f, "expected"))
				continue;
			if (severity_rank(sev) >= fail_rank && fail_rank <= 2)
				check_add_reason(reasons, "finding", "[%s] %s: %s: %s",
					   sev, json_string_value(json_object_get(f, "rule")),
					   json_string_value(json_object_get(f, "subject")),
					   json_string_value(json_object_get(f, "reason")));
		}
		json_array_foreach(json_object_get(diff, "expect"), i, f) {
			if (json_integer_value(json_object_get(f, "matched")))
				continue;
			struct strbuf line = STRBUF_INIT;
			strbuf_addf(&line, "stale declaration: --expect %s matched no finding",
				    json_string_value(json_object_get(f, "declaration")));
			json_array_append_new(notes, lace_json_string(line.buf));
			strbuf_release(&line);
		}
		json_object_set_new(rep, "diff", diff);
	}

	/* measurements */
	json_t *abs = json_array();
	json_object_set_new(rep, "ab", abs);
	if (o->measure) {
		const struct check_config *c = &o->cfg;
		size_t nw = c->nworkloads;
		const char *const *w = (const char *const *)c->workloads;
		const char *def[] = { DEFAULT_VARIANT_WORKLOAD };
		if (!nw && is_variant_arg(o->base) && is_variant_arg(o->head)) {
			w = def;
			nw = 1;
		}
		if (!nw)
			json_array_append_new(notes, json_string(
				"no workload configured: layout rules only (add [workload] run = ... or --workload)"));
		/* kernels under QEMU: one execution replayed through both
		 * layouts (two boots would be two executions) */
		bool same = c->backend && !strcmp(c->backend, "qemu");
		for (size_t k = 0; same && k < nw; k++)
			check_same_measure(o, base, head, w[k], rep, reasons, notes, errors);
		for (size_t k = 0; !same && k < nw; k++) {
			json_t *ab = run_ab(o, base, head, w[k], errors);
			if (!ab)
				continue;
			json_object_set_new(ab, "workload", json_string(w[k]));
			judge_events(o, ab, w[k], reasons, notes);
			json_array_append_new(abs, ab);
		}
	}
out:
	free(base);
	free(head);
	enum check_decision d = json_array_size(errors) ? CHECK_ERROR
				: json_array_size(reasons) ? CHECK_FAIL : CHECK_PASS;
	json_object_set_new(rep, "decision",
			    json_string(d == CHECK_PASS ? "pass" : d == CHECK_FAIL ? "fail" : "error"));
	json_object_set_new(rep, "reasons", reasons);
	json_object_set_new(rep, "errors", errors);
	json_object_set_new(rep, "notes", notes);
	json_object_set_new(rep, "fail_on", json_string(o->cfg.fail_on));
	return d;
}

static const char *js(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* "- TEXT" with TEXT shown as it is */
static void md_item(struct strbuf *out, const char *text)
{
	strbuf_addstr(out, "- ");
	strbuf_add_md(out, text);
	strbuf_addch(out, '\n');
}

/* The --expect declarations and what each covered: the findings a patch
 * declared as its purpose, listed apart so a reviewer sees what was
 * waved through and why. */
static void expected_md(const json_t *diff, struct strbuf *out)
{
	const json_t *decls = json_object_get(diff, "expect");
	size_t i, k;
	json_t *x, *f;

	if (!json_array_size(decls))
		return;
	strbuf_addstr(out, "**Expected** (declared with `--expect`; these fail nothing):\n\n");
	json_array_foreach(decls, i, x) {
		const char *decl = js(x, "declaration");
		size_t n = 0;
		strbuf_addstr(out, "- ");
		strbuf_add_md_code(out, decl, 0);
		strbuf_addstr(out, ": ");
		json_array_foreach(json_object_get(diff, "findings"), k, f) {
			if (strcmp(js(f, "expected"), decl))
				continue;
			/* a kernel's entry patch moves hundreds: the table has them all */
			if (n++ >= 5)
				continue;
			strbuf_addf(out, "%s%s ", n > 1 ? ", " : "", js(f, "rule"));
			strbuf_add_md_code(out, js(f, "subject"), 0);
			strbuf_addf(out, " (was %s)", js(f, "rule_severity"));
		}
		if (n > 5)
			strbuf_addf(out, " and %zu more", n - 5);
		if (!n && json_integer_value(json_object_get(x, "matched")))
			strbuf_addstr(out, "its findings are named under an earlier declaration");
		else if (!n)
			strbuf_addstr(out, "matched no finding (a stale declaration?)");
		strbuf_addch(out, '\n');
	}
	strbuf_addch(out, '\n');
}

void check_render_md(const json_t *rep, struct strbuf *out)
{
	const char *d = js(rep, "decision");
	size_t i;
	json_t *x;

	strbuf_addf(out, "### lace check: %s\n\n",
		    !strcmp(d, "pass") ? "PASS" : !strcmp(d, "fail") ? "FAIL" : "ERROR (could not run)");
	strbuf_addstr(out, "base ");
	strbuf_add_md_code(out, js(rep, "base"), 0);
	strbuf_addstr(out, " → head ");
	strbuf_add_md_code(out, js(rep, "head"), 0);
	strbuf_addstr(out, "\n\n");
	if (json_array_size(json_object_get(rep, "errors"))) {
		strbuf_addstr(out, "**Could not run:**\n\n");
		json_array_foreach(json_object_get(rep, "errors"), i, x)
			md_item(out, js(x, "reason"));
		strbuf_addch(out, '\n');
	}
	if (json_array_size(json_object_get(rep, "reasons"))) {
		strbuf_addstr(out, "**Fails because:**\n\n");
		json_array_foreach(json_object_get(rep, "reasons"), i, x)
			md_item(out, js(x, "reason"));
		strbuf_addch(out, '\n');
	}
	const json_t *diff = json_object_get(rep, "diff");
	if (diff) {
		const json_t *b = json_object_get(diff, "bloat");
		strbuf_addstr(out, "**Layout** (`lace diff`): ");
		strbuf_add_md_code(out, js(b, "line"), 0);
		strbuf_addstr(out, "\n\n");
		const json_t *f = json_object_get(diff, "findings");
		if (json_array_size(f)) {
			strbuf_addstr(out, "| severity | rule | subject | reason |\n|---|---|---|---|\n");
			json_array_foreach(f, i, x) {
				strbuf_addf(out, "| %s%s | %s | ", js(x, "severity"),
					    json_object_get(x, "expected") ? " (expected)" : "", js(x, "rule"));
				strbuf_add_md_code(out, js(x, "subject"), 1);
				strbuf_addstr(out, " | ");
				strbuf_add_md(out, js(x, "reason"));
				if (json_object_get(x, "expected")) {
					strbuf_addstr(out, "; expected: ");
					strbuf_add_md_code(out, js(x, "expected"), 1);
				}
				strbuf_addstr(out, " |\n");
			}
			strbuf_addch(out, '\n');
		} else {
			strbuf_addstr(out, "No layout findings.\n\n");
		}
		expected_md(diff, out);
		const json_t *hot = json_object_get(diff, "hot");
		const json_t *ho = json_object_get(hot, "old"), *hn = json_object_get(hot, "new");
		if (ho && hn) {
			strbuf_addstr(out, "| hot set | lines | 4 KiB pages | 2 MiB pages |\n|---|---:|---:|---:|\n");
			const char *k[] = { "lines", "pages", "hugepages" };
			strbuf_addstr(out, "| base |");
			for (int t = 0; t < 3; t++)
				strbuf_addf(out, " %lld |", (long long)json_integer_value(json_object_get(ho, k[t])));
			strbuf_addstr(out, "\n| head |");
			for (int t = 0; t < 3; t++)
				strbuf_addf(out, " %lld |", (long long)json_integer_value(json_object_get(hn, k[t])));
			strbuf_addstr(out, "\n\n");
		}
	}
	json_array_foreach(json_object_get(rep, "ab"), i, x) {
		strbuf_addf(out, "**Measurement** (`lace ab`, %lld rounds, backend %s): ",
			    (long long)json_integer_value(json_object_get(x, "rounds")), js(x, "backend"));
		strbuf_add_md_code(out, js(x, "workload"), 0);
		strbuf_addstr(out, "\n\n");
		strbuf_addstr(out, "| event | base | head | change | CI | margin | verdict |\n"
				   "|---|---:|---:|---:|---|---:|---|\n");
		size_t k;
		json_t *ev;
		json_array_foreach(json_object_get(x, "events"), k, ev) {
			double r = lace_json_get_num(ev, "ratio"), lo = lace_json_get_num(ev, "ci_low"), hi = lace_json_get_num(ev, "ci_high");
			strbuf_addstr(out, "| ");
			strbuf_add_md(out, js(ev, "name"));
			strbuf_addf(out, "%s | %.6g | %.6g | %+.2f%% | ",
				    json_is_true(json_object_get(ev, "simulated")) ? " (sim)" : "",
				    lace_json_get_num(ev, "a_mean"), lace_json_get_num(ev, "b_mean"), (r - 1) * 100);
			if (json_is_true(json_object_get(ev, "deterministic")))
				strbuf_addstr(out, "exact (deterministic)");
			else
				strbuf_addf(out, "%+.2f%% .. %+.2f%%", (lo - 1) * 100, (hi - 1) * 100);
			strbuf_addf(out, " | ±%.3g%% | %s%s |\n", lace_json_get_num(ev, "check_margin") * 100,
				    js(ev, "check_verdict"),
				    json_is_true(json_object_get(ev, "gated")) ? "" : " (not gated)");
		}
		strbuf_addch(out, '\n');
	}
	check_same_md(rep, out);
	if (json_array_size(json_object_get(rep, "notes"))) {
		json_array_foreach(json_object_get(rep, "notes"), i, x) {
			strbuf_addstr(out, "- note: ");
			strbuf_add_md(out, json_string_value(x) ? json_string_value(x) : "");
			strbuf_addch(out, '\n');
		}
		strbuf_addch(out, '\n');
	}
}
