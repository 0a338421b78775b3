/* lace check of a kernel section move on one execution: see check_same.h.
 * Two kernel builds booted are two executions, so a gate that compared
 * their boots would judge what the kernel did, not where its code sits;
 * lace ab --same-execution replays base's boot through head's layout. */
#include "pipeline/check_same.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/placement_render.h"
#include "pipeline/selfexec.h"
#include "util/array.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strvec.h"

/* What QEMU boots for a build given as its vmlinux: an x86 kernel boots
 * from the bzImage beside it; a ppc64le vmlinux boots itself. */
static char *bootable(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *slash = strrchr(path, '/');

	strbuf_addf(&sb, "%.*sbzImage", slash ? (int)(slash - path + 1) : 0, path);
	if (fs_is_file(sb.buf))
		return strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	return strdup(path);
}

static void judge(const struct check_opts *o, json_t *ab, const char *workload, json_t *reasons,
		  json_t *notes)
{
	const struct check_config *c = &o->cfg;
	size_t i;
	json_t *ev;

	json_array_foreach(json_object_get(ab, "events"), i, ev) {
		const char *name = json_string_value(json_object_get(ev, "event"));
		const char *v = json_string_value(json_object_get(ev, "verdict"));
		double eff = lace_json_get_num(ev, "effect_percent");
		bool gated;

		if (!name || !v)   /* an estimate, no verdict asked */
			continue;
		gated = check_config_gated(c, name);
		json_object_set_new(ev, "gated", json_boolean(gated));
		if (!strcmp(v, "slower") && gated)
			check_add_reason(reasons, "slower", "%s on '%s': slower, %+.2f%% [%+.2f%%, %+.2f%%] over %.0f "
			    "executions x %.0f layouts, Holm p %.3g", name, workload, eff,
			    lace_json_get_num(ev, "ci_low_percent"), lace_json_get_num(ev, "ci_high_percent"),
			    lace_json_get_num(ev, "executions"), lace_json_get_num(ev, "draws_per_execution"),
			    lace_json_get_num(ev, "p_holm"));
		else if (!strcmp(v, "faster") || (!strcmp(v, "slower") && !gated))
			check_add_reason(notes, NULL, "%s on '%s': %s, %+.2f%%", name, workload, v, eff);
		else if (!strcmp(v, "no verdict possible"))
			check_add_reason(c->no_verdict_fails && gated ? reasons : notes,
			    c->no_verdict_fails && gated ? "no verdict" : NULL,
			    "%s on '%s': no verdict possible: smallest detectable effect %.2f%% (the design "
			    "cannot see an effect of the margin; %s)", name, workload,
			    lace_json_get_num(ev, "mde_percent"), c->no_verdict_fails ?
			    "check.no_verdict = fail" : "this does not block: check.no_verdict = fail would");
		else if (!strcmp(v, "inconclusive"))
			check_add_reason(c->inconclusive_fails && gated ? reasons : notes,
			    c->inconclusive_fails && gated ? "inconclusive" : NULL,
			    "%s on '%s': inconclusive, %+.2f%%", name, workload, eff);
	}
}

void check_same_measure(const struct check_opts *o, const char *base, const char *head,
			const char *workload, json_t *rep, json_t *reasons, json_t *notes,
			json_t *errors)
{
	const struct check_config *c = &o->cfg;
	struct strvec argv = STRVEC_INIT;
	struct strbuf why = STRBUF_INIT;
	char *a = bootable(base), *b = bootable(head);
	json_t *all = json_object_get(rep, "same_execution");

	if (!all) {
		all = json_array();
		json_object_set_new(rep, "same_execution", all);
	}
	strvec_pushv(&argv, (const char *[]){ "ab", "--same-execution", "--backend", "qemu", "--json",
					      "--kernel-a", a, "--kernel-b", b, NULL });
	strvec_push(&argv, "--margin");
	strvec_pushf(&argv, "%g", 100 * c->margin);
	const struct { const char *opt, *val; } design[] = {
		{ "-e", c->events }, { "--executions", c->executions }, { "--draws", c->draws },
		{ "--primary", c->primary }, { "--target", c->target }, { "--budget", c->budget },
		{ "--family", c->family }, { "--seed", c->seed }, { "--timeout", c->timeout },
	};
	for (size_t i = 0; i < ARRAY_SIZE(design); i++)
		if (design[i].val)
			strvec_pushv(&argv, (const char *[]){ design[i].opt, design[i].val, NULL });
	strvec_push(&argv, "--");
	strvec_split(&argv, workload);
	json_t *j = selfexec_json(argv.v, NULL, 0, &why);

	if (!j) {
		check_add_reason(errors, "ab", "on '%s': %s", workload, why.buf);
	} else {
		json_object_set_new(j, "workload", json_string(workload));
		judge(o, j, workload, reasons, notes);
		json_array_append_new(all, j);
	}
	strbuf_release(&why);
	strvec_clear(&argv);
	free(a);
	free(b);
}

void check_same_md(const json_t *rep, struct strbuf *out)
{
	size_t i;
	json_t *x;

	json_array_foreach(json_object_get(rep, "same_execution"), i, x) {
		strbuf_addstr(out, "**Measurement** (`lace ab --same-execution`: executions of base and "
				   "head recorded, each replayed through virtual layouts of both, paired): ");
		strbuf_add_md_code(out, json_string_value(json_object_get(x, "workload")) ?: "", 0);
		strbuf_addstr(out, "\n\n");
		placement_render_md(out, x);
		strbuf_addch(out, '\n');
	}
}
