/* lace-vg's recording (--lace-record=PREFIX, `lace stat --record FILE`):
 * the raw record stream (measure/model/record.h) of each process image,
 * written to PREFIX.<pid>.<n>, which lace packs into the recording. */
#ifndef LACE_SIM_VG_LACE_VG_REC_H
#define LACE_SIM_VG_LACE_VG_REC_H

#include "pub_tool_basics.h"

#include "measure/model/record.h"

/* True once rec_start() opened the stream. */
extern Bool rec_on;

/* Open this image's stream and write its start (post_clo_init). */
void rec_start(const HChar *prefix);
/* Define a segment's instructions; returns its block number. */
ULong rec_def(const uint64_t *addr, const uint32_t *len, UInt n);
/* The helper the generated code calls before each segment runs. */
VG_REGPARM(1) void lace_rec_exec(UWord id);
/* REC_WIN_OPEN, REC_WIN_CLOSE */
void rec_mark(enum rec_tag tag);
/* The image's counts end (REC_END_EXIT, REC_END_EXEC); the stream is
 * flushed, and closed at exit. */
void rec_end(UInt reason);
/* In a forked child: a stream of its own, that starts at the parent's
 * present offset. */
void rec_fork_child(void);

#endif
