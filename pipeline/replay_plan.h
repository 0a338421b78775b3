/* lace replay's layouts (pipeline/replay_plan.c): the builds a recorded
 * execution is carried to, as they are and as virtual layouts drawn from
 * them (layout/vlayout.h), each as the table of pieces
 * measure/replay/replay.h carries addresses by.  The pieces are the
 * input sections of the builds' link maps when every build has one (a
 * vmlinux.map beside it), else their functions. */
#ifndef LACE_PIPELINE_REPLAY_PLAN_H
#define LACE_PIPELINE_REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "layout/image.h"
#include "layout/linkmap.h"
#include "layout/vlayout.h"
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"
#include "util/strvec.h"

struct replay_build {
	char *path;                 /* the ELF; an edit: its name (the file's, less .edit) */
	bool edit;                  /* the recorded build with an edit (its image is [0]'s) */
	struct lace_image *img;
	struct linkmap lm;
	bool has_map;
	struct vl_base vb;
	struct replay_sym *base;    /* its pieces where the build has them */
	size_t nbase;
};

struct replay_plan {
	/* what was asked */
	unsigned nvirtual;          /* --virtual: draws 1..N of each build */
	struct vl_family fam;
	const char *pad_points;     /* --pad-points */
	struct strvec pads;         /* --pads: one pad vector ("P1,P2") each */
	struct strvec pads_from;    /* --pads-from: a relink's manifest.json each (its
				     * padding's first points, in order: one more
				     * pad vector, after the --pads ones) */
	bool no_map;
	struct strvec edits;        /* --edit FILE: the recorded build edited (vl_edit) */
	/* [0] the recorded build, then each --layout, then each --edit */
	struct replay_build *builds;
	size_t nbuilds;
	bool mapped;                /* pieces are input sections */
	struct vl_pad *points;
	size_t npoints;
	uint64_t **pad_vectors;     /* parsed --pads */
	/* the recording's large pages (0: none): each layout's own range is
	 * worked out by the same rule (replay_layout.large_set) */
	uint64_t large_page, page;
};

/* One row of the replay: a build's layout, real (draw 0, no pads) or
 * virtual. */
struct replay_row_info {
	size_t build;
	unsigned draw;              /* 0: as built */
	const uint64_t *pads;       /* --pads' vector, or NULL */
};

/* Load the builds (recorded: the recorded build's ELF; layouts: the
 * --layout ones) with their maps and units.  0, or -errno with the
 * message set ("PATH: reason"). */
int replay_plan_load(struct replay_plan *p, const char *recorded, const char *const *layouts,
		     size_t nlayouts);
void replay_plan_free(struct replay_plan *p);
/* The rows: each build as built (the recorded one first), then draw k of
 * every build for k = 1..N, then each --pads vector on every build. */
size_t replay_plan_nrows(const struct replay_plan *p);
void replay_plan_row(const struct replay_plan *p, size_t r, struct replay_row_info *info);
/* Row r's pieces (lay->new; lay->old is the recorded build's) and a name
 * for it ("recorded", the --layout's path, "virtual-K", "PATH@virtual-K",
 * "pads-P1-P2" ...): malloc'd, the caller frees lay->new and *name.  0 or
 * -EINVAL with the message set. */
int replay_plan_layout(const struct replay_plan *p, size_t r, const char *object,
		       struct replay_layout *lay, char **name);
/* The n hottest functions of the recorded build in the recording (rec),
 * each with its piece and its offset there: the document `lace replay
 * --hot N --json` prints.  NULL with the message set. */
json_t *replay_plan_hot(const struct replay_plan *p, const struct lace_record *rec, size_t n);
/* Of a replay_plan_hot() document of every function, the hottest
 * function of each of the n hottest pieces, as an edit (lace-replay(1),
 * EDITS; of the hottest piece's group) that starts them all at one offset modulo align: their first
 * lines share one L1i set when align is the L1i's set stride.  Into hot
 * (those n functions, as --hot prints them) and the edit's text; the
 * number of pieces found (fewer than n when the recording ran fewer). */
size_t replay_hot_edit(const json_t *all, size_t n, uint64_t align, json_t *hot, struct strbuf *edit);
/* Row r as a System.map into dir/NAME.System.map, and its order
 * (vl_order()) into dir/NAME.order; 0 or -errno. */
int replay_plan_write_map(const struct replay_plan *p, size_t r, const char *dir);

#endif
