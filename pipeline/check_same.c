/* lace check of a kernel section move on one execution: see check_same.h.
 * Two kernel builds booted are two executions, so a gate that compared
 * their boots would judge what the kernel did, not where its code sits;
 * lace ab --same-execution replays base's boot through head's layout. */
#include "pipeline/check_same.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/selfexec.h"
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
	const char *nv = json_string_value(json_object_get(ab, "no_verdict"));
	size_t i;
	json_t *ev;

	if (nv)
		check_add_reason(notes, NULL, "on '%s': %s", workload, nv);
	json_array_foreach(json_object_get(ab, "events"), i, ev) {
		const char *name = json_string_value(json_object_get(ev, "event"));
		double d = lace_json_get_num(ev, "difference"), r = lace_json_get_num(ev, "ratio");
		double margin = check_config_margin(c, name ? name : "");
		const char *v = json_string_value(json_object_get(ev, "verdict"));

		if (!name || !json_is_true(json_object_get(ev, "tested")) || !v)
			continue;
		bool beyond = !strcmp(v, "beyond placement noise"), gated = check_config_gated(c, name);

		json_object_set_new(ev, "check_margin", json_real(margin));
		json_object_set_new(ev, "gated", json_boolean(gated));
		if (beyond && d > 0 && r - 1 > margin && gated)
			check_add_reason(reasons, "slower", "%s on '%s': %+.0f (%+.2f%%) on one execution, beyond "
			    "placement noise (Holm p %.3g) and the %.3g%% margin", name, workload, d,
			    (r - 1) * 100, lace_json_get_num(ev, "p_holm"), margin * 100);
		else if (beyond && d < 0)
			check_add_reason(notes, NULL, "%s on '%s': %+.0f (%+.2f%%) on one execution, beyond placement "
			    "noise: fewer", name, workload, d, (r - 1) * 100);
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
	if (c->noise_layouts)
		strvec_pushv(&argv, (const char *[]){ "--noise-layouts", c->noise_layouts, NULL });
	if (c->events)
		strvec_pushv(&argv, (const char *[]){ "-e", c->events, NULL });
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
	size_t i, k;
	json_t *x, *ev;

	json_array_foreach(json_object_get(rep, "same_execution"), i, x) {
		strbuf_addf(out, "**Measurement** (`lace ab --same-execution`: base's boot replayed through "
				 "head's layout, head not booted; %lld relinks as placement noise): ",
			    (long long)json_integer_value(json_object_get(x, "relinks")));
		strbuf_add_md_code(out, json_string_value(json_object_get(x, "workload")) ?: "", 0);
		strbuf_addstr(out, "\n\n| event | base | head | change | Holm p | verdict |\n"
				   "|---|---:|---:|---:|---:|---|\n");
		json_array_foreach(json_object_get(x, "events"), k, ev) {
			const char *v = json_string_value(json_object_get(ev, "verdict"));

			strbuf_addstr(out, "| ");
			strbuf_add_md(out, json_string_value(json_object_get(ev, "event")) ?: "");
			strbuf_addf(out, " | %.0f | %.0f | %+.2f%% | ", lace_json_get_num(ev, "a"),
				    lace_json_get_num(ev, "b"), (lace_json_get_num(ev, "ratio") - 1) * 100);
			if (isnan(lace_json_get_num(ev, "p_holm")))
				strbuf_addstr(out, "- | ");
			else
				strbuf_addf(out, "%.3g | ", lace_json_get_num(ev, "p_holm"));
			strbuf_addstr(out, !json_is_true(json_object_get(ev, "tested"))
				      ? "the same execution: equal by construction" : v ? v : "no verdict (no relinks)");
			strbuf_addstr(out, " |\n");
		}
		strbuf_addch(out, '\n');
	}
}
