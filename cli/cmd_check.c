/* lace check: the pre-merge gate for patches that move code. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "pipeline/check.h"
#include "util/error.h"
#include "util/strbuf.h"

static const char check_usage[] =
"usage: lace check --base B --head H [--workload 'CMD {elf} ARGS']... [--config FILE]\n"
"                  [--set SECTION.KEY=VALUE]... [--md FILE] [--json FILE] [--svg FILE]\n"
"                  [--results FILE] [--no-measure] [--variants DIR]\n"
"\n"
"The pre-merge gate for patches that move code: runs the layout rules of\n"
"'lace diff' on B and H, then 'lace ab' on each workload, applies the\n"
"thresholds of the configuration and prints a Markdown summary for a review.\n"
"B and H are ELF files or variant names of the built-in study\n"
"(build/variants/<name>/hackbench, see 'lace build').\n"
"\n"
"  --base B, --head H   the builds to compare\n"
"  --workload CMD       a workload, {elf} standing for each build; repeatable\n"
"                       (adds to [workload] run = ... of the config)\n"
"  --config FILE        INI file: [check] fail_on, inconclusive, gate, backend;\n"
"                       [diff] min_align, max_hot_growth, hot, rule.<id>;\n"
"                       [ab] rounds, max_runs, max_time, warmup, confidence,\n"
"                       margin, events, seed, timeout; [margin] <event> = PCT;\n"
"                       [workload] run (see doc/lace-check.ini)\n"
"  --set S.K=V          override one setting of the config\n"
"  --md FILE            also write the Markdown summary to FILE\n"
"  --json FILE          write the whole report (diff and ab JSON included)\n"
"  --svg FILE           write the layout map of base vs head\n"
"  --results FILE       keep every measured run (JSON lines)\n"
"  --no-measure         layout rules only\n"
"  --variants DIR       where variant names are found (default build/variants)\n"
"  -q, --quiet          print only the decision line\n"
"\n"
"Exit status: 0 pass, 1 fail (the reasons are listed), 2 could not run.\n";

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		lace_err(path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'H' },
		{ "workload", required_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "md", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 'g' },
		{ "results", required_argument, NULL, 'r' },
		{ "no-measure", no_argument, NULL, 'n' },
		{ "variants", required_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_opts o = { .measure = true };
	const char *md_file = NULL, *json_file = NULL;
	char **sets = NULL, **workloads = NULL;
	size_t nsets = 0, nwork = 0;
	const char *config = NULL;
	bool quiet = false;
	int c, rc = LACE_EXIT_USAGE;

	check_config_init(&o.cfg);
	o.variants_dir = getenv("LACE_VARIANTS") ? getenv("LACE_VARIANTS") : "build/variants";
	while ((c = getopt_long(argc, argv, ":qb:H:w:c:s:m:j:g:r:nV:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.base = optarg; break;
		case 'H': o.head = optarg; break;
		case 'w':
			workloads = realloc(workloads, (nwork + 1) * sizeof(*workloads));
			workloads[nwork++] = optarg;
			break;
		case 'c': config = optarg; break;
		case 's':
			sets = realloc(sets, (nsets + 1) * sizeof(*sets));
			sets[nsets++] = optarg;
			break;
		case 'm': md_file = optarg; break;
		case 'j': json_file = optarg; break;
		case 'g': o.svg = optarg; break;
		case 'r': o.results = optarg; break;
		case 'n': o.measure = false; break;
		case 'V': o.variants_dir = optarg; break;
		case 'q': quiet = true; break;
		default:
			rc = lace_bad_option("check", c, argv);
			goto out;
		}
	}
	if (optind < argc) {
		rc = lace_usage_error("check", "unexpected argument '%s'", argv[optind]);
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
	for (size_t i = 0; i < nsets; i++) {
		char *s = strdup(sets[i]);
		char *dot = strchr(s, '.'), *eq = strchr(s, '=');
		if (!dot || !eq || dot > eq) {
			free(s);
			rc = lace_usage_error("check", "--set '%s' is not SECTION.KEY=VALUE", sets[i]);
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
	for (size_t i = 0; i < nwork; i++) {
		if (check_config_set(&o.cfg, "workload", "run", workloads[i]) < 0) {
			rc = lace_usage_error("check", "--workload: %s", lace_error_msg());
			goto out;
		}
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
	if (md_file && write_file(md_file, md.buf, md.len) < 0)
		rc = LACE_EXIT_USAGE;
	if (json_file) {
		char *s = json_dumps(rep, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!s || write_file(json_file, s, strlen(s)) < 0)
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
	free(sets);
	free(workloads);
	check_config_release(&o.cfg);
	return rc;
}

LACE_COMMAND(check, .name = "check", .summary = "pre-merge gate: layout rules and A/B measurement, pass or fail",
	     .usage = check_usage, .run = cmd_check, .order = 60);
