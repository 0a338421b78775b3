/* lace check: the pre-merge gate for patches that move code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "layout/expect.h"
#include "pipeline/check.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/parse_options.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static struct check_opts o;
static const char *md_file, *json_file, *config;
static struct strvec sets, workloads, expects;
static bool quiet;

static const struct lace_option check_options[] = {
	OPT_STRING(0, "base", &o.base, "B", "the build before the patch: ELF or variant name"),
	OPT_STRING(0, "head", &o.head, "H", "the build after it"),
	OPT_STRING_LIST(0, "workload", &workloads, "CMD",
			"a workload, {elf} standing for each build; repeatable\n"
			"(adds to [workload] run = ... of the config)"),
	OPT_STRING_LIST(0, "expect", &expects, "KIND=RE",
			"a change the patch makes on purpose (lace diff --expect;\n"
			"KIND: entry, move, align, straddle); repeatable (adds to\n"
			"[diff] expect = ... of the config)"),
	OPT_STRING(0, "config", &config, "FILE",
		   "INI file: [check] fail_on, inconclusive, gate, backend;\n"
		   "[diff] min_align, max_hot_growth, hot, rule.<id>, expect;\n"
		   "[ab] rounds, max_runs, max_time, warmup, confidence,\n"
		   "margin, events, seed, timeout; [margin] <event> = PCT;\n"
		   "[workload] run (see doc/lace-check.ini)"),
	OPT_STRING_LIST(0, "set", &sets, "S.K=V", "override one setting of the config; repeatable"),
	OPT_STRING(0, "md", &md_file, "FILE", "also write the Markdown summary to FILE"),
	OPT_STRING(0, "json", &json_file, "FILE", "write the whole report (diff and ab JSON included)"),
	OPT_STRING(0, "svg", &o.svg, "FILE", "write the layout map of base vs head"),
	OPT_STRING(0, "results", &o.results, "FILE", "keep every measured run (JSON lines)"),
	OPT_SET_BOOL(0, "no-measure", &o.measure, false, "layout rules only"),
	OPT_STRING(0, "variants", &o.variants_dir, "DIR",
		   "where variant names are found (default build/variants)"),
	OPT_BOOLEAN('q', "quiet", &quiet, "print only the decision line"),
	OPT_END(),
};

/* fs_write_file(), then the one line on failure */
static int save(const char *path, const char *data, size_t len)
{
	int rc = fs_write_file(path, data, len);

	if (rc < 0)
		lace_err(NULL, "%s", lace_error_msg());
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	int first, rc = LACE_EXIT_USAGE;

	o = (struct check_opts){ .measure = true };
	md_file = json_file = config = NULL;
	quiet = false;
	check_config_init(&o.cfg);
	o.variants_dir = getenv("LACE_VARIANTS") ? getenv("LACE_VARIANTS") : "build/variants";
	first = lace_parse_options("check", argc, argv, check_options, 0);
	if (first < 0)
		goto out;
	if (first < argc) {
		rc = lace_usage_error("check", "unexpected argument '%s'", argv[first]);
		goto out;
	}
	if (!o.base || !o.head) {
		rc = lace_usage_error("check", "--base and --head are required");
		goto out;
	}
	if (config && check_config_load(&o.cfg, config) < 0) {
		lace_err(config, "%s", lace_error_msg());
		goto out;
	}
	for (size_t i = 0; i < sets.nr; i++) {
		char *s = strdup(sets.v[i]);
		char *dot = strchr(s, '.'), *eq = strchr(s, '=');
		if (!dot || !eq || dot > eq) {
			free(s);
			rc = lace_usage_error("check", "--set '%s' is not SECTION.KEY=VALUE", sets.v[i]);
			goto out;
		}
		*dot = *eq = '\0';
		int r = check_config_set(&o.cfg, s, dot + 1, eq + 1);
		free(s);
		if (r < 0) {
			rc = lace_usage_error("check", "--set: %s", lace_error_msg());
			goto out;
		}
	}
	for (size_t i = 0; i < workloads.nr; i++) {
		if (check_config_set(&o.cfg, "workload", "run", workloads.v[i]) < 0) {
			rc = lace_usage_error("check", "--workload: %s", lace_error_msg());
			goto out;
		}
	}

	for (size_t i = 0; i < expects.nr; i++) {
		struct lace_expect_set es = { 0 };
		int bad = expect_add(&es, expects.v[i]);
		expect_release(&es);
		if (bad < 0) {
			rc = lace_usage_error("check", "--expect %s", lace_error_msg());
			goto out;
		}
		check_config_set(&o.cfg, "diff", "expect", expects.v[i]);
	}

	json_t *rep = NULL;
	enum check_decision d = check_run(&o, &rep);
	struct strbuf md = STRBUF_INIT;
	check_render_md(rep, &md);
	if (quiet) {
		printf("lace check: %s\n", json_string_value(json_object_get(rep, "decision")));
	} else {
		fputs(md.buf, stdout);
	}
	fflush(stdout);
	rc = (int)d;
	if (md_file && save(md_file, md.buf, md.len) < 0)
		rc = LACE_EXIT_USAGE;
	if (json_file) {
		char *s = json_dumps(rep, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!s || save(json_file, s, strlen(s)) < 0)
			rc = LACE_EXIT_USAGE;
		free(s);
	}
	if (d == CHECK_ERROR) {
		/* one line naming why, for scripts reading stderr */
		json_t *e = json_array_get(json_object_get(rep, "errors"), 0);
		lace_err("check", "%s", json_string_value(json_object_get(e, "reason")));
	}
	strbuf_release(&md);
	json_decref(rep);
out:
	strvec_clear(&sets);
	strvec_clear(&workloads);
	strvec_clear(&expects);
	check_config_release(&o.cfg);
	return rc;
}

LACE_COMMAND(check, .name = "check", .summary = "pre-merge gate: layout rules and A/B measurement, pass or fail",
	     .usage = "usage: lace check --base B --head H [--workload 'CMD {elf} ARGS']... [--config FILE]\n"
		      "                  [--set SECTION.KEY=VALUE]... [--md FILE] [--json FILE] [--svg FILE]\n"
		      "                  [--expect KIND=RE]... [--results FILE] [--no-measure] [--variants DIR]\n"
		      "\n"
		      "The pre-merge gate for patches that move code: runs the layout rules of\n"
		      "'lace diff' on B and H, then 'lace ab' on each workload, applies the\n"
		      "thresholds of the configuration and prints a Markdown summary for a review.\n"
		      "B and H are ELF files or variant names of the built-in study\n"
		      "(build/variants/<name>/hackbench, see 'lace build').\n"
		      "\n",
	     .options = check_options,
	     .usage_tail = "\n"
			   "Exit status: 0 pass, 1 fail (the reasons are listed), 2 could not run.\n",
	     .run = cmd_check, .order = 60);
