/* Risk findings of lace diff: rule table, severities, configuration.
 *
 * Each rule has a stable id (documented in doc/lace-diff.1), a default
 * severity and a one-line reason per finding.  Severities can be changed or
 * a rule switched off with --rule ID=SEVERITY|off. */
#ifndef LACE_LAYOUT_FINDINGS_H
#define LACE_LAYOUT_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

enum lace_severity {
	LACE_SEV_INFO = 0,
	LACE_SEV_WARNING = 1,
	LACE_SEV_ERROR = 2,
	LACE_SEV_OFF = 3,  /* rule disabled (configuration only) */
};

enum lace_rule {
	LACE_RULE_NOPROBE_REGION,     /* function moved out of entry/noinstr/kprobes text */
	LACE_RULE_HOT_PAGE_STRADDLE,  /* hot function newly straddles a page */
	LACE_RULE_HOT_ALIGN_DROP,     /* hot function's alignment dropped below --min-align */
	LACE_RULE_JUMP_SLOWPATH_HOT,  /* jump-label slow path now in a hot region/page */
	LACE_RULE_HOT_FOOTPRINT,      /* hot footprint grew beyond --max-hot-growth */
	LACE_RULE_REGION_CHANGE,      /* function changed region (not into a no-probe one) */
	LACE_RULE_CROSS_REGION,       /* more branches cross from one region to another */
	LACE_RULE_HOT_CHURN,          /* hot functions' straddles came and went: the summary */
	LACE_RULE_NOPROBE_ENTER,      /* function moved into entry/noinstr/kprobes text */
	LACE_RULE_COUNT
};

struct lace_rule_info {
	const char *id;
	enum lace_severity severity; /* default */
	const char *summary;
};
extern const struct lace_rule_info lace_rules[LACE_RULE_COUNT];

/* Effective severities, one per rule. */
struct lace_rule_config {
	enum lace_severity sev[LACE_RULE_COUNT];
};
void rule_config_init(struct lace_rule_config *rc);
/* Apply "ID=SEVERITY" (severity: info, warning, error, off).  Returns 0 or
 * -EINVAL with a message. */
int rule_config_set(struct lace_rule_config *rc, const char *spec);

const char *severity_name(enum lace_severity s);
/* Parse "info" / "warning" / "error" (and "never" -> LACE_SEV_OFF when
 * allow_never); returns -1 when unknown. */
int severity_parse(const char *s, bool allow_never);

struct lace_finding {
	enum lace_rule rule;
	enum lace_severity severity;
	char *subject;  /* function, site or region pair the finding is about */
	char *reason;   /* one line */
	enum lace_severity rule_severity; /* the rule's configured severity */
	char *expected; /* the --expect declaration that covers it (severity
			 * is then info, and it fails nothing), or NULL */
};

struct lace_findings {
	struct lace_finding *v;
	size_t n, alloc;
};
/* Add a finding unless its rule is off in rc (rc NULL: defaults). */
void findings_add(struct lace_findings *f, const struct lace_rule_config *rc, enum lace_rule rule,
		  const char *subject, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Sort by severity (highest first), then rule, then subject; expected
 * findings after the other info ones. */
void findings_sort(struct lace_finding *v, size_t n);
void findings_free(struct lace_finding *v, size_t n);

#endif
