/* lace-vg's result files (lace_vg_out.c): written through a buffer,
 * one "key value" per line (doc/events.md). */
#ifndef LACE_SIM_VG_LACE_VG_OUT_H
#define LACE_SIM_VG_LACE_VG_OUT_H

#include "pub_tool_basics.h"

#include "measure/model/model.h"

struct outbuf {
	Int fd;
	UInt len;
	HChar buf[8192];
};

void out_flush(struct outbuf *o);
void out_printf(struct outbuf *o, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
/* The totals, one line each, every key prefixed with pfx ("" or
 * "window-"). */
void totals_print(struct outbuf *o, const HChar *pfx, const struct sim_totals *t);

#endif
