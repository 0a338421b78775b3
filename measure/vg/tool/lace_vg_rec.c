/* lace-vg's recording; see lace_vg_rec.h and doc/record-format.md. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_vki.h"

#include "measure/model/record.h"
#include "measure/vg/tool/lace_vg_rec.h"

Bool rec_on;
static const HChar *rec_prefix;
static Int rec_fd = -1;
static Int rec_image;   /* the n of PREFIX.<pid>.<n> */
static uint8_t rec_buf[1u << 20];
static struct rec_packer rec;

/* the objects a MAP record was written for */
#define MAX_MAPS 1024
static const DebugInfo *maps[MAX_MAPS];
static UInt nmaps;

static void rec_flush(void)
{
	UInt off = 0;

	while (rec_fd >= 0 && off < rec.len) {
		Int n = VG_(write)(rec_fd, rec_buf + off, (Int)(rec.len - off));
		if (n <= 0)
			VG_(tool_panic)("lace-vg: cannot write the recording");
		off += (UInt)n;
	}
	rec_packer_taken(&rec, rec.len);
}

/* put one record, flushing first when the buffer is full */
#define PUT(call)                                        \
	do {                                             \
		if ((call) < 0) {                        \
			rec_flush();                     \
			if ((call) < 0)                  \
				VG_(tool_panic)("lace-vg: record too large"); \
		}                                        \
	} while (0)

static void rec_open(void)
{
	HChar path[4096];
	Int pid = VG_(getpid)(), n;

	for (n = 0; n < 1000; n++) {
		VG_(snprintf)(path, sizeof(path), "%s.%d.%d", rec_prefix, pid, n);
		rec_fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_EXCL, 0644);
		if (rec_fd >= 0)
			break;
	}
	if (rec_fd < 0)
		VG_(tool_panic)("lace-vg: cannot create the recording");
	rec_image = n;
	PUT(rec_put_image(&rec, (ULong)pid,
			  VG_(args_the_exename) ? VG_(args_the_exename) : "?"));
}

void rec_start(const HChar *prefix)
{
	rec_prefix = prefix;
	rec_packer_init(&rec, rec_buf, sizeof(rec_buf));
	rec_open();
	rec_on = True;
}

/* A MAP record the first time code of an object is defined. */
static void rec_map(Addr a)
{
	const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
	const HChar *file;
	UInt i;

	if (!di)
		return;
	for (i = 0; i < nmaps; i++)
		if (maps[i] == di)
			return;
	if (nmaps < MAX_MAPS)
		maps[nmaps++] = di;
	file = VG_(DebugInfo_get_filename)(di);
	PUT(rec_put_map(&rec, (ULong)VG_(DebugInfo_get_text_bias)(di),
			(ULong)VG_(DebugInfo_get_text_avma)(di),
			(ULong)VG_(DebugInfo_get_text_size)(di), file ? file : "?"));
}

ULong rec_def(const uint64_t *addr, const uint32_t *len, UInt n)
{
	ULong id = rec.ndefs;

	rec_map((Addr)addr[0]);
	PUT(rec_put_def(&rec, 0, addr, len, NULL, n));
	return id;
}

VG_REGPARM(1) void lace_rec_exec(UWord id)
{
	if (__builtin_expect(rec.cap - rec.len < 11, 0))
		rec_flush();
	rec_put_exec(&rec, id);
}

void rec_mark(enum rec_tag tag)
{
	if (rec_on)
		PUT(rec_put_mark(&rec, tag));
}

void rec_end(UInt reason)
{
	if (!rec_on)
		return;
	PUT(rec_put_end(&rec, reason));
	rec_flush();
	if (reason == REC_END_EXIT) {
		VG_(close)(rec_fd);
		rec_fd = -1;
	}
}

void rec_fork_child(void)
{
	ULong offset = rec_offset(&rec);
	Int parent_image = rec_image;

	if (!rec_on)
		return;
	/* the parent's unwritten bytes are the parent's */
	VG_(close)(rec_fd);
	rec_fd = -1;
	rec.len = 0;
	rec.flushed = 0;
	rec.def_addr = 0;
	rec.exec_id = 0;
	rec.def_off = 0;
	rec_open();
	PUT(rec_put_fork(&rec, (ULong)VG_(getppid)(), (ULong)parent_image, offset));
}
