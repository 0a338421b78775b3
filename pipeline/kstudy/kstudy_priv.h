/* lace study --kernel's state and the helpers its steps share: kstudy.c
 * (builds, readings 1-3, running) and kstudy_r4.c (reading 4).  Not an
 * interface: only those files include it. */
#ifndef LACE_PIPELINE_KSTUDY_PRIV_H
#define LACE_PIPELINE_KSTUDY_PRIV_H

#include <limits.h>
#include <stdbool.h>

#include <jansson.h>

#include "pipeline/kstudy/kstudy.h"
#include "pipeline/kstudy/kstudy_jobs.h"

#define X86_EVENTS "instructions:k,instructions:u,L1-icache-load-misses:k," \
		   "L1-icache-load-misses:u,iTLB-load-misses:k,iTLB-load-misses:u"

/* what each job's result fills (kstudy.c's fill()) */
enum { FILL_BUILD = 1, FILL_GUEST, FILL_LAYOUT, FILL_POINT, FILL_R2, FILL_R4_LIVE, FILL_R4_REPLAY,
       FILL_DIFF };

struct ks {
	const struct kstudy_opts *o;
	json_t *res, *commands, *phases;
	double t0;
	char bin[PATH_MAX];          /* the folder of the lace binary (build/) */
	char faultbench[PATH_MAX];   /* static ppc64le, build/ppc64le/bench/ */
	char hackbench[PATH_MAX];    /* the host's, build/bench/ */
	char kernels[PATH_MAX];      /* o->kernels, absolute: jobs run in the plan folder */
	struct kjobs q;
	int stage;                   /* the stage the next job goes into */
	bool unbuilt;                /* a plan with builds: kernels are not there yet */
	char stock[128];             /* Debian's stock ppc64le kernel (its package, as
				      * scripts/downloads.manifest pins it); "": unknown */
	char stock_why[512];         /* why it is unknown */
	json_t *guest_failed;        /* once the guests were fetched: "ARCH PART" -> cause */
};

/* a kernel file the plan's builds will make, or one that is there */
bool ks_have(struct ks *s, const char *p);
/* o's "not_measured": why */
void ks_not_measured(json_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a new job of the current stage whose result fills dest */
struct kjob *ks_job(struct ks *s, const char *phase, const char *what, bool self, int fill,
		    json_t *dest);
/* A finished job into results.json's "commands"; its parsed JSON output
 * (borrowed) or NULL with why set. */
json_t *ks_record(struct ks *s, const struct kjob *jb, bool want_json, char *why, size_t whylen);
/* the index of the command ks_record() kept last */
json_int_t ks_last_command(struct ks *s);
/* KERNELS/NAME/FILE */
void ks_kernel_path(struct ks *s, char *out, size_t len, const char *name, const char *file);
/* A job of lace stat --backend qemu of kernel (a build folder's name, or
 * a Debian kernel's) running cmd, with opts (NULL-terminated, or NULL)
 * before the workload; NULL when the kernel is not built. */
struct kjob *ks_stat(struct ks *s, json_t *dest, const char *phase, const char *what,
		     const char *kernel, const char *events, const char *paths,
		     const char *const *opts, const char *const *cmd, int fill);

/* kstudy_guests.c: the guest fetches, one job per part (x86_64 busybox,
 * ppc64le busybox, the stock ppc64le kernel), in one stage */
void kstudy_guests_queue(struct ks *s);
/* a guest fetch's result; a version other than the pin's it used goes to
 * the results' not_pinned */
void kstudy_guests_fill(struct ks *s, const struct kjob *j);
/* Once the guests' stage ran: which parts failed, and why. */
void kstudy_guests_check(struct ks *s);
/* Why a boot of kernel (a build's name, or the stock kernel's) cannot run:
 * the guest part it needs failed ("guest fetch ppc64le busybox failed:
 * ..."), in buf; NULL when nothing is known to be missing. */
const char *kstudy_guest_missing(struct ks *s, const char *kernel, char *buf, size_t len);
/* s->stock: the stock ppc64le kernel scripts/fetch-deb.sh --resolve names
 * (the pin, or the successor LACE_ALLOW_NEWER=1 took), else stock_why. */
void kstudy_stock_resolve(struct ks *s);
/* A kernel built from another linux-source than the pin is noted in the
 * results' not_pinned. */
void kstudy_source_check(struct ks *s);

/* reading 4 (kstudy_r4.c): its boots, then (next stage) its replays;
 * a finished job's result; the verdicts once every job is in */
void kstudy_r4_queue_boots(struct ks *s);
void kstudy_r4_queue_replays(struct ks *s);
void kstudy_r4_fill(struct ks *s, const struct kjob *jb);
void kstudy_r4_finish(struct ks *s);

#endif
