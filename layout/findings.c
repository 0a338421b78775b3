/* Findings: the rule table and the severity configuration of lace diff. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "layout/findings.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const struct lace_rule_info lace_rules[LACE_RULE_COUNT] = {
	[LACE_RULE_NOPROBE_REGION] = { "noprobe-region", LACE_SEV_ERROR,
		"function moved out of a region kprobes refuse (entry, irqentry, noinstr, kprobes text)" },
	[LACE_RULE_HOT_PAGE_STRADDLE] = { "hot-page-straddle", LACE_SEV_WARNING,
		"hot function newly straddles a page boundary and alone brings that page into the hot set" },
	[LACE_RULE_HOT_ALIGN_DROP] = { "hot-align-drop", LACE_SEV_WARNING,
		"hot function's alignment dropped below --min-align" },
	[LACE_RULE_JUMP_SLOWPATH_HOT] = { "jump-slowpath-hot", LACE_SEV_WARNING,
		"jump-label slow path now in its hot region or on a page holding hot code" },
	[LACE_RULE_HOT_FOOTPRINT] = { "hot-footprint-growth", LACE_SEV_ERROR,
		"hot set touches more lines or pages than --max-hot-growth allows" },
	[LACE_RULE_REGION_CHANGE] = { "region-change", LACE_SEV_INFO,
		"function changed region" },
	[LACE_RULE_CROSS_REGION] = { "cross-region-branches", LACE_SEV_INFO,
		"more direct branches cross between two regions" },
	[LACE_RULE_HOT_CHURN] = { "hot-layout-churn", LACE_SEV_INFO,
		"hot functions' page straddles came and went (the summary of hot-page-straddle)" },
	[LACE_RULE_NOPROBE_ENTER] = { "noprobe-enter", LACE_SEV_INFO,
		"function moved into a region kprobes refuse (the purpose of such a patch)" },
};

static const char *const sev_names[] = { "info", "warning", "error", "off" };

const char *severity_name(enum lace_severity s)
{
	return (unsigned)s < 4 ? sev_names[s] : "?";
}

int severity_parse(const char *s, bool allow_never)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, sev_names[i]))
			return i;
	if (allow_never && !strcmp(s, "never"))
		return LACE_SEV_OFF;
	return -1;
}

void rule_config_init(struct lace_rule_config *rc)
{
	for (int i = 0; i < LACE_RULE_COUNT; i++)
		rc->sev[i] = lace_rules[i].severity;
}

int rule_config_set(struct lace_rule_config *rc, const char *spec)
{
	const char *eq = strchr(spec, '=');

	if (!eq)
		return lace_error_set(EINVAL, "'%s': expected RULE=SEVERITY", spec);
	int sev = strcmp(eq + 1, "off") ? severity_parse(eq + 1, false) : LACE_SEV_OFF;
	if (sev < 0)
		return lace_error_set(EINVAL, "'%s': severity must be info, warning, error or off", spec);
	for (int i = 0; i < LACE_RULE_COUNT; i++) {
		if (strlen(lace_rules[i].id) == (size_t)(eq - spec) &&
		    !strncmp(lace_rules[i].id, spec, eq - spec)) {
			rc->sev[i] = sev;
			return 0;
		}
	}
	return lace_error_set(EINVAL, "'%.*s': no such rule", (int)(eq - spec), spec);
}

void findings_add(struct lace_findings *f, const struct lace_rule_config *rc, enum lace_rule rule,
		  const char *subject, const char *fmt, ...)
{
	enum lace_severity sev = rc ? rc->sev[rule] : lace_rules[rule].severity;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (sev == LACE_SEV_OFF)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(f->v, f->n + 1, f->alloc);
	f->v[f->n++] = (struct lace_finding){ .rule = rule, .severity = sev, .subject = xstrdup(subject),
					      .reason = strbuf_detach(&sb, NULL), .rule_severity = sev };
}

static int cmp_finding(const void *a, const void *b)
{
	const struct lace_finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (!x->expected != !y->expected)
		return x->expected ? 1 : -1;
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

void findings_sort(struct lace_finding *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_finding);
}

void findings_free(struct lace_finding *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].subject);
		free(v[i].reason);
		free(v[i].expected);
	}
	free(v);
}
