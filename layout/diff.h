/* lace diff: compare the layout of two images.
 *
 * diff_images() is a pure function over two struct lace_image: it reads
 * only the model (functions, regions, branches, jump sites), never the ELF,
 * so tests build synthetic images in memory.  Cost is O(n log n) in the
 * number of functions (matching sorts; no pairwise scans). */
#ifndef LACE_LAYOUT_DIFF_H
#define LACE_LAYOUT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/image.h"
#include "layout/hotset.h"
#include "layout/expect.h"
#include "layout/findings.h"

/* What changed about one function (bit set). */
enum lace_change {
	LACE_CH_ADDED     = 1u << 0,
	LACE_CH_REMOVED   = 1u << 1,
	LACE_CH_REGION    = 1u << 2, /* region name differs */
	LACE_CH_RESIZED   = 1u << 3, /* st_size differs */
	LACE_CH_REALIGNED = 1u << 4, /* address alignment, capped at the diff's align_unit, differs */
	LACE_CH_STRADDLE  = 1u << 5, /* line/page straddling or lines/pages spanned differ at equal size */
	LACE_CH_PADDED    = 1u << 6, /* padding before differs (reported, no CSV row) */
	LACE_CH_SHIFTED   = 1u << 7, /* address differs */
};
/* The changes that make a function "changed" (SHIFTED/PADDED alone do not). */
#define LACE_CH_REAL (LACE_CH_ADDED | LACE_CH_REMOVED | LACE_CH_REGION | LACE_CH_RESIZED | \
		      LACE_CH_REALIGNED | LACE_CH_STRADDLE)

/* CSV/JSON name of one change bit ("added", "region" ...). */
const char *change_name(unsigned bit);

struct lace_func_delta {
	const char *name;     /* new name, or the old one when removed */
	const char *old_name; /* NULL when added */
	int old_idx, new_idx; /* in old->funcs / new->funcs; -1 when absent */
	unsigned changes;     /* enum lace_change bits */
	int64_t addr_delta;   /* new - old (0 unless both present) */
	int64_t size_delta;
	bool hot;             /* in the hot set (either image) */
	double weight;        /* hot weight (1 by default, 0 when not hot) */
};

struct lace_region_delta {
	char *name;
	bool in_old, in_new;
	uint64_t old_span, new_span;   /* end - start */
	uint64_t old_own, new_own;     /* span less the regions nested inside: padding included */
	uint64_t old_bytes, new_bytes; /* sum of function sizes inside */
	size_t old_funcs, new_funcs;
};

/* Cross-region direct branches from one region to another. */
struct lace_xbranch {
	const char *from, *to;
	size_t old_count, new_count;
};

enum lace_jump_change {
	LACE_JCH_ADDED    = 1u << 0,
	LACE_JCH_REMOVED  = 1u << 1,
	LACE_JCH_REGION   = 1u << 2, /* slow path's region changed */
	LACE_JCH_DISTANCE = 1u << 3, /* target - code changed */
	LACE_JCH_HOT      = 1u << 4, /* slow path newly in a hot place */
};

struct lace_jump_delta {
	const char *func;       /* holding function's display name, or "?" */
	const char *key;        /* key symbol or "" */
	int old_idx, new_idx;   /* in ->jumps; -1 when absent */
	unsigned changes;
	int64_t old_distance, new_distance; /* target - code */
	const char *old_target_region, *new_target_region; /* "" when unknown */
	bool old_hot, new_hot;  /* slow path in the site's own region or on a hot page */
};

/* Footprint of the hot set in one image. */
struct lace_footprint {
	size_t funcs;
	uint64_t bytes;
	size_t lines, pages, hugepages;          /* distinct 64 B lines, 4 KiB, 2 MiB pages touched */
	size_t ideal_lines, ideal_pages, ideal_hugepages; /* if packed contiguously from an aligned start */
};

/* One row of bloat-o-meter's table: a name (".N" stripped) with its summed
 * sizes; old or new is -1 when the name is absent on that side. */
struct lace_bloat_row {
	char *name;
	int64_t old_size, new_size, delta;
};

/* bloat-o-meter -t semantics (layout/bloat.c): the symbols nm lists as t/T
 * with a size (aliases each counted), names with every ".N" removed, sizes
 * of equal names summed, its generated-name filters skipped.  Images built
 * in memory (no loader state: tests) count their functions instead. */
struct lace_bloat {
	unsigned add, remove, grow, shrink;
	uint64_t up, down;
	int64_t net;
	uint64_t old_total, new_total;
	struct lace_bloat_row *rows; size_t nrows; /* every name, sorted as bloat-o-meter prints */
};


struct lace_diff_counts {
	size_t matched, added, removed, region, resized, realigned, straddle, shifted, padded;
	size_t changed; /* functions with any LACE_CH_REAL bit */
};

struct lace_diff_opts {
	uint64_t min_align;        /* hot-align-drop threshold (16) */
	double max_hot_growth;     /* hot-footprint-growth threshold, fraction (0.10) */
	const struct lace_hotset *hot; /* NULL: default hot set */
	const struct lace_rule_config *rules; /* NULL: default severities */
	uint64_t page_size;        /* page of the page rules; 0: per image (diff_rule_page()) */
	double hot_min_share;      /* a weighted hot function this share of the total weight
				    * is listed whatever it costs (0.01) */
	size_t hot_list_max;       /* at most this many other hot-page-straddle findings (10) */
	const struct lace_expect_set *expect; /* --expect declarations, or NULL */
};
#define LACE_DIFF_OPTS_DEFAULT { 16, 0.10, NULL, NULL, 0, 0.01, 10, NULL }

struct lace_diff {
	const struct lace_image *old, *new;
	struct lace_diff_opts opts;
	bool default_hot;            /* hot set was the default one */
	uint64_t align_unit;         /* the larger of the images' function alignment units */
	struct lace_func_delta *funcs; size_t nfuncs; /* every function of both; sorted by new address, removed last */
	struct lace_diff_counts counts;
	struct lace_region_delta *regions; size_t nregions;
	struct lace_xbranch *xbranches; size_t nxbranches; /* pairs with a count in either image */
	bool branches_old, branches_new; /* disassembled */
	struct lace_jump_delta *jumps; size_t njumps;
	struct lace_footprint hot_old, hot_new;
	size_t hot_unmatched;        /* --hot names found in neither image */
	uint64_t rule_page[2];       /* page size of the page rules, old and new */
	/* hot functions whose own page straddling changed (at rule_page):
	 * gained, lost, and those listed as hot-page-straddle findings */
	size_t straddle_gained, straddle_lost, straddle_listed;
	struct lace_bloat bloat;
	struct lace_finding *findings; size_t nfindings;
	size_t *expect_matched;      /* per opts.expect declaration: findings it covered */
	char **names;                /* owned strings (keys etc.) */
	size_t nnames, anames;
	int *old_to_delta, *new_to_delta; /* function index -> funcs[] index */
};

/* Compare old and new.  Returns 0 and *out, or a negative code with a
 * message (lace_error_msg()). */
int diff_images(const struct lace_image *old, const struct lace_image *new,
		const struct lace_diff_opts *opts, struct lace_diff **out);
void diff_free(struct lace_diff *d);

/* Run the finding rules over d (layout/diff_rules.c): fills findings. */
void diff_run_rules(struct lace_diff *d);

/* "entry", ".entry.text", "entry_text" -> "entry" (in buf, returned). */
const char *region_norm(const char *name, char *buf, size_t len);
/* Name of region r of img, or "" when r is none. */
const char *region_name(const struct lace_image *img, int r);

/* Fill d->bloat from d->old and d->new (layout/bloat.c). */
void diff_bloat(struct lace_diff *d);

/* Highest severity among the findings that are not expected (--expect),
 * or -1 when there are none. */
int diff_max_severity(const struct lace_diff *d);

/* True for regions that kprobes refuse: entry text, irqentry, noinstr,
 * kprobes (by region name, with or without the section spelling). */
bool region_is_noprobe(const char *name);

/* True for regions that hold the entry path of every syscall, interrupt
 * and exception (entry, irqentry, softirqentry, noinstr text): the default
 * hot set. */
bool region_is_entry_path(const char *name);

/* The page size that maps img's code: 2 MiB for x86-64 kernel text (the
 * kernel maps its text with large pages), else img->geom.page. */
uint64_t diff_rule_page(const struct lace_image *img);

/* True for functions freed after boot or kept out of the way on purpose:
 * in an init/exit section, a .text.unlikely section, the cold run, or a
 * .cold piece.  Never in the default hot set. */
bool func_is_cold_or_init(const struct lace_image *img, int idx);

/* Region name of function idx in img, or "" when outside every region. */
const char *image_func_region_name(const struct lace_image *img, int idx);

#endif
