/* The driver of `lace build --kernel`: Debian's kernel source fetched
 * into lace's cache and extracted once; one build folder per arch (make
 * O=, the config from kernel/configs/ merged on a base target), built
 * once in full; each variant made again in that folder with its patches
 * applied to the shared source for that make only, so a linker-script
 * change is a relink and a patched file a small rebuild, never a full
 * build; the outputs and a manifest in OUT/<arch>-<variant>/.
 *
 * Cache layout ($LACE_CACHE, else $XDG_CACHE_HOME/lace, else ~/.cache/lace):
 *   src/<dir>/             the source, clean between builds;
 *                          src/<dir>.done names its version,
 *                          src/<dir>.applied the patches applied right now
 *   kbuild/<arch>/base/    the build folder
 *   kbuild/<arch>/<var>.log  make's output, per variant
 *   kbuild/<arch>/times    the last time of each phase, for estimates */
#ifndef LACE_VARIANTS_KERNEL_BUILD_H
#define LACE_VARIANTS_KERNEL_BUILD_H

#include <stdbool.h>

#include "variants/kernel_config.h"

/* A phase starts (end 0, estimate: seconds it took last time or 0) and
 * ends (end 1, elapsed seconds). */
typedef void kernel_progress_fn(void *data, const char *phase, double seconds, int end);

struct kernel_build {
	const struct kernel_config *cfg;
	const struct kernel_arch *arch;
	int jobs;
	kernel_progress_fn *progress;
	void *progress_data;
	/* set by kernel_build_start */
	char *cache, *src, *kdir, *out;
	char *version;          /* the source package's version */
	int lockfd;             /* src/<dir>.lock, held from start to release */
	double t_source, t_configure, t_base;  /* seconds, this run (0: nothing to do) */
	unsigned up_to_date;    /* variants already in OUT with the same inputs, kept */
	bool base_made;         /* the base configured and built, this run */
	bool base_failed;       /* ... or that failed (the error is the base's) */
};

/* Resolve the cache and output folders, fetch and extract the source if
 * the cache lacks it.  0 or -errno with the step that failed and its log
 * named.  The base is configured and built by the first variant that
 * needs building (kernel_build_variant). */
int kernel_build_start(struct kernel_build *b, const char *out);
/* Build one variant (the base first if this run has not, patches
 * applied, make, outputs copied, patches reverted) into OUT/<arch>-<variant>/ with its manifest.json; *seconds
 * is the variant's own make.  0 or -errno. */
int kernel_build_variant(struct kernel_build *b, const struct kernel_variant *v, double *seconds);
void kernel_build_release(struct kernel_build *b);

/* OUT/<arch>-<variant>/manifest.json (kernel_manifest.c): what was built
 * from what (source version, config, patches, compiler, build-id, every
 * output's SHA-256) and how long its phases took. */
/* Whether OUT/<arch>-<variant> already holds what this build would make
 * (kernel_manifest.c): then the variant is not built again. */
bool kernel_manifest_current(const struct kernel_build *b, const struct kernel_variant *v,
			     const char *odir, const char *vdir, const struct strvec *patches);
int kernel_write_manifest(const struct kernel_build *b, const struct kernel_variant *v,
			  const char *odir, const char *vdir, const struct strvec *patches,
			  double seconds);

/* The build-id of an ELF file as hex (libelf), or -errno. */
int kernel_build_id(const char *path, char *hex, size_t size);

/* The make variables every kernel build runs with, NULL-ended: a fixed
 * build time, number, user and host, so that two builds of one layout are
 * the same bytes (the version string is in the image: a relink with a new
 * build number or time ran a different kernel, measured as noise). */
extern const char *const kernel_build_env[];

#endif
