/* What one `lace build` run builds: the variants selected (from
 * variants.conf, --ldscript, --shuffle), each with everything derived from
 * it computed once here: its own compile flags, the object folder they
 * name, the resolved script and its output folders. */
#ifndef LACE_VARIANTS_PLAN_H
#define LACE_VARIANTS_PLAN_H

#include <stdint.h>

#include "util/strvec.h"
#include "variants/config.h"

struct plan_variant {
	char *name;
	char *script;          /* as configured (or the --ldscript path) */
	char *script_path;     /* resolved under <src>/linker_scripts/ */
	char *ldflags;         /* NULL when none */
	char *description;
	unsigned shuffle;      /* 1..K for baseline-shuffle-<i>, 0 otherwise */
	unsigned long long seed;
	/* Only what differs between variants: its cflags, -ffunction-sections
	 * when shuffled, then --cflags.  The common flags name OUT, and the
	 * object folder's name must not depend on where OUT is. */
	struct strvec cflags;
	uint64_t flags_hash;   /* FNV-1a of cflags */
	char *dir;             /* OUT/<name>, once plan_set_out() ran */
	char *objdir;          /* OUT/.obj-<flags_hash>/obj */
};

struct plan {
	const struct variants_config *cfg;
	char *extra_cflags;    /* --cflags, NULL when none */
	struct plan_variant *v;
	size_t nr, alloc;
};

void plan_init(struct plan *p, const struct variants_config *cfg, const char *extra_cflags);
void plan_release(struct plan *p);

/* Every variant of variants.conf, in file order. */
void plan_add_all(struct plan *p);
/* One by name; -EINVAL "no variant 'X' (known: ...)". */
int plan_add_named(struct plan *p, const char *name);
/* A variant named after FILE (without its extension) linked with FILE and
 * the baseline's flags: -errno (the message is strerror) when FILE cannot
 * be resolved, -EINVAL when its name is not a usable variant name. */
int plan_add_ldscript(struct plan *p, const char *file);
/* baseline-shuffle-1..k; -ENOENT when there is no baseline. */
int plan_add_shuffled(struct plan *p, unsigned long k, unsigned long long seed);

/* Set every variant's dir and objdir under out (a real path). */
void plan_set_out(struct plan *p, const char *out);

#endif
