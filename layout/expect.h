/* --expect: declarations of what a patch changes on purpose.
 *
 * A declaration is KIND=REGEX (POSIX extended, unanchored, matched against
 * a finding's subject, the function's display name): "entry=^do_syscall_64$"
 * says the patch moves do_syscall_64 into or out of no-probe text.  A
 * finding a declaration covers becomes an info note that names it, and no
 * longer counts for --fail-on: the purpose of a patch is not a regression.
 * A declaration that covers no finding is stale and is reported. */
#ifndef LACE_LAYOUT_EXPECT_H
#define LACE_LAYOUT_EXPECT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "layout/findings.h"

enum lace_expect_kind {
	LACE_EXPECT_ENTRY,    /* moves into or out of no-probe text (entry, irqentry, noinstr, kprobes) */
	LACE_EXPECT_MOVE,     /* any change of region */
	LACE_EXPECT_ALIGN,    /* a hot function's alignment drops */
	LACE_EXPECT_STRADDLE, /* a hot function newly straddles a page of the rule page size */
	LACE_EXPECT_COUNT
};

struct lace_expect {
	enum lace_expect_kind kind;
	char *spec;   /* "KIND=REGEX" as given */
	regex_t re;
};

struct lace_expect_set {
	struct lace_expect *v;
	size_t n, alloc;
};

/* The kinds, space-separated ("entry move align straddle"), for help text. */
extern const char expect_kinds[];

/* Add one "KIND=REGEX" declaration.  0, or -EINVAL with a message naming
 * what is wrong (unknown kind, empty or bad regex). */
int expect_add(struct lace_expect_set *s, const char *spec);
void expect_release(struct lace_expect_set *s);

/* Does a declaration of kind cover finding f?  (entry: noprobe-region,
 * noprobe-enter; move: those and
 * every region-change; align: hot-align-drop; straddle: hot-page-straddle.) */
bool expect_kind_covers(enum lace_expect_kind kind, const struct lace_finding *f);

/* Mark the findings the declarations cover: severity info, f->expected
 * set to a copy of the first covering declaration's spec.  matched[i]
 * (s->n entries, or NULL) counts the findings declaration i covered. */
void expect_apply(const struct lace_expect_set *s, struct lace_finding *v, size_t n, size_t *matched);

#endif
