/* --expect declarations: parsing, and marking the findings they cover. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/expect.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char *const kind_names[LACE_EXPECT_COUNT] = {
	[LACE_EXPECT_ENTRY] = "entry",
	[LACE_EXPECT_MOVE] = "move",
	[LACE_EXPECT_ALIGN] = "align",
	[LACE_EXPECT_STRADDLE] = "straddle",
};

const char expect_kinds[] = "entry move align straddle";

int expect_add(struct lace_expect_set *s, const char *spec)
{
	const char *eq = strchr(spec, '=');
	int kind = -1;

	if (!eq)
		return lace_error_set(EINVAL, "'%s': expected KIND=REGEX (KIND: %s)", spec, expect_kinds);
	for (int k = 0; k < LACE_EXPECT_COUNT; k++)
		if (strlen(kind_names[k]) == (size_t)(eq - spec) && !strncmp(kind_names[k], spec, eq - spec))
			kind = k;
	if (kind < 0)
		return lace_error_set(EINVAL, "'%s': unknown kind '%.*s' (KIND: %s)", spec, (int)(eq - spec), spec,
				      expect_kinds);
	if (!eq[1])
		return lace_error_set(EINVAL, "'%s': empty regex (it would match every function)", spec);

	struct lace_expect e = { (enum lace_expect_kind)kind, NULL, { 0 } };
	int rc = regcomp(&e.re, eq + 1, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];
		regerror(rc, &e.re, why, sizeof(why));
		return lace_error_set(EINVAL, "'%s': bad regex: %s", spec, why);
	}
	e.spec = xstrdup(spec);
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = e;
	return 0;
}

void expect_release(struct lace_expect_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		regfree(&s->v[i].re);
		free(s->v[i].spec);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool expect_kind_covers(enum lace_expect_kind kind, const struct lace_finding *f)
{
	switch (kind) {
	case LACE_EXPECT_ENTRY:
		return f->rule == LACE_RULE_NOPROBE_REGION || f->rule == LACE_RULE_NOPROBE_ENTER;
	case LACE_EXPECT_MOVE:
		return f->rule == LACE_RULE_NOPROBE_REGION || f->rule == LACE_RULE_NOPROBE_ENTER ||
		       f->rule == LACE_RULE_REGION_CHANGE;
	case LACE_EXPECT_ALIGN:
		return f->rule == LACE_RULE_HOT_ALIGN_DROP;
	case LACE_EXPECT_STRADDLE:
		return f->rule == LACE_RULE_HOT_PAGE_STRADDLE;
	default:
		return false;
	}
}

void expect_apply(const struct lace_expect_set *s, struct lace_finding *v, size_t n, size_t *matched)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < s->n; k++) {
			const struct lace_expect *e = &s->v[k];
			if (!expect_kind_covers(e->kind, &v[i]) || regexec(&e->re, v[i].subject, 0, NULL, 0))
				continue;
			/* every covering declaration counts, so none of them
			 * is called stale; the first is the one named */
			if (matched)
				matched[k]++;
			if (!v[i].expected) {
				v[i].expected = xstrdup(e->spec);
				v[i].severity = LACE_SEV_INFO;
			}
		}
	}
}
