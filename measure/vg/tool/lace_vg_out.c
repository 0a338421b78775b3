/* lace-vg's result files: a buffered writer (the tool has no stdio) and
 * the totals block every file holds; see lace_vg_out.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"

#include "measure/vg/tool/lace_vg_out.h"

void out_flush(struct outbuf *o)
{
	if (o->len)
		VG_(write)(o->fd, o->buf, (Int)o->len);
	o->len = 0;
}

void out_printf(struct outbuf *o, const HChar *fmt, ...)
{
	HChar line[1024];
	va_list ap;
	UInt n;

	va_start(ap, fmt);
	n = VG_(vsnprintf)(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	if (o->len + n > sizeof(o->buf))
		out_flush(o);
	VG_(memcpy)(o->buf + o->len, line, n);
	o->len += n;
}

void totals_print(struct outbuf *o, const HChar *pfx, const struct sim_totals *t)
{
	out_printf(o, "%sinstructions %llu\n", pfx, (ULong)t->instructions);
	out_printf(o, "%sL1-icache-loads %llu\n", pfx, (ULong)t->l1i_loads);
	out_printf(o, "%sL1-icache-load-misses %llu\n", pfx, (ULong)t->l1i_misses);
	out_printf(o, "%siTLB-loads %llu\n", pfx, (ULong)t->itlb_loads);
	out_printf(o, "%siTLB-load-misses %llu\n", pfx, (ULong)t->itlb_misses);
	out_printf(o, "%sstlb-loads %llu\n", pfx, (ULong)t->stlb_loads);
	out_printf(o, "%sstlb-misses %llu\n", pfx, (ULong)t->stlb_misses);
	out_printf(o, "%sfetch-blocks %llu\n", pfx, (ULong)t->fetch_blocks);
	out_printf(o, "%sfetch-late-entries %llu\n", pfx, (ULong)t->fetch_late);
}

