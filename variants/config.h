/* The model `lace build` builds from: linker_scripts/variants.conf (the
 * placement variants) and bench/workloads.conf (the programs and what they
 * link), both INI read with inih, plus the study sources (every .c directly
 * in probes/, hashmmu/ and util/). */
#ifndef LACE_VARIANTS_CONFIG_H
#define LACE_VARIANTS_CONFIG_H

#include "util/strvec.h"

/* One section of variants.conf. */
struct variant {
	char *name;
	char *script;       /* relative to linker_scripts/, or absolute */
	char *cflags;       /* NULL when not given */
	char *ldflags;
	char *description;
};

/* One program of workloads.conf (plus hashmmu-driver, always there). */
struct program {
	char *name;
	struct strvec srcs;  /* relative to the source root */
	int handlers;        /* links the generated handlers */
};

struct variants_config {
	char *src;                  /* the source root */
	struct variant *variants;   /* in file order */
	size_t nvariants, avariants;
	struct program *progs;
	size_t nprogs, aprogs;
	struct strvec common;       /* workloads' [common] sources */
	struct strvec libs;
	struct strvec study;        /* probes/ hashmmu/ util/ sources */
	char *gen_src, *gen_libs, *gen_args;   /* [generator] */
	struct strvec gen_outputs;
};

/* Where the sources are, as a real path into *src (the caller frees):
 * $LACE_SRCDIR, ../share/lace/src next to the executable, the tree lace was
 * built from, $PREFIX/share/lace/src.  0 or -ENOENT. */
int variants_find_srcdir(char **src);
/* Read both files under src and list the study sources.  0 or -EINVAL
 * with "<file>:<line>: bad line" and the like; release c either way. */
int variants_config_load(struct variants_config *c, const char *src);
void variants_config_release(struct variants_config *c);

const struct variant *variants_config_variant(const struct variants_config *c, const char *name);
struct program *variants_config_program(const struct variants_config *c, const char *name);
/* Keep only the programs named (in config order).  0, or -EINVAL naming
 * the first unknown one (nothing is dropped then). */
int variants_config_keep_programs(struct variants_config *c, const struct strvec *names);
/* Variant and program names become file names: plain ones only. */
int variant_name_ok(const char *s);

#endif
