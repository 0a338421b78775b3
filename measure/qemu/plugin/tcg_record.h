/* The TCG plugin's recording (record=FILE, `lace stat --backend qemu
 * --record`): the raw record stream (measure/model/record.h) of the
 * guest's windows, which lace packs into the recording. */
#ifndef LACE_QEMU_PLUGIN_TCG_RECORD_H
#define LACE_QEMU_PLUGIN_TCG_RECORD_H

#include <stdint.h>

#include "measure/model/record.h"

/* Non-zero once tcg_rec_open() succeeded. */
extern int tcg_rec_on;
extern struct rec_packer tcg_rec;

/* 0, or -1 (errno set) when path cannot be created. */
int tcg_rec_open(const char *path);
/* Write the buffer out (it is full, or the run ends). */
void tcg_rec_flush(void);
/* Close the stream (at exit): END, flush, close. */
void tcg_rec_close(void);

/* A block's definition; returns its number. */
uint64_t tcg_rec_def(int kernel, const uint64_t *addr, const uint32_t *len,
		     const uint64_t *phys, uint32_t n);
/* REC_CTXSW, REC_WIN_OPEN, REC_WIN_CLOSE */
void tcg_rec_mark(enum rec_tag tag);
/* REC_TAKE_BACK: n instructions off the open window's side (rec_side) */
void tcg_rec_take_back(uint32_t side, uint64_t n);

/* One execution of block id (the hot path: inline). */
static inline void tcg_rec_exec(uint64_t id)
{
	if (__builtin_expect(tcg_rec.cap - tcg_rec.len < 11, 0))
		tcg_rec_flush();
	rec_put_exec(&tcg_rec, id);
}

#endif
