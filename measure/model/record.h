/* The raw record stream of `--record` (doc/record-format.md): what a host
 * (lace-vg, the TCG plugin) fed its front-end model, so that `lace replay`
 * can feed the same instruction stream through the model again, for the
 * recording's own build or another layout of the same code.
 *
 * Freestanding like the rest of measure/model: the packer fills a buffer
 * the host owns and flushes (no libc I/O here); the reader walks a buffer
 * lace decompressed.  One packer for both hosts, one reader for lace.
 *
 * A block is defined once (REC_DEF: its instructions' addresses and
 * lengths, numbered 0, 1, 2 ... in the order of definition) and then
 * referenced by number each time it runs (REC_EXEC): exact replay needs
 * every instruction's length (an instruction straddling a line counts one
 * miss, the fetch model follows instruction ends), and a definition costs
 * nothing per execution.  Numbers are varints (LEB128), addresses and
 * block numbers deltas (zigzag) from the previous record of their kind. */
#ifndef LACE_MODEL_RECORD_H
#define LACE_MODEL_RECORD_H

#include <stdint.h>

enum rec_tag {
	REC_DEF = 1,        /* flags, ninsn, first address, lengths and gaps */
	REC_EXEC = 2,       /* block number */
	REC_CTXSW = 3,      /* context switch: the user TLB entries go */
	REC_WIN_OPEN = 4,   /* measurement window opens */
	REC_WIN_CLOSE = 5,  /* ... and closes */
	REC_IMAGE = 6,      /* a process image starts: pid, executable path */
	REC_END = 7,        /* the image's counts end here: reason */
	REC_FORK = 8,       /* this stream is a forked child's */
	REC_MAP = 9,        /* an object is mapped: bias, start, size, path */
	REC_EXEC_PHYS = 10, /* block number, physical address of its first byte */
	REC_TAKE_BACK = 11, /* side, instructions counted once too many */
};

/* REC_DEF flags */
#define REC_DEF_KERNEL 1u   /* kernel code (else user) */
#define REC_DEF_PHYS 2u     /* each instruction's physical address follows (the
			     * L1i is tagged physically: the TCG plugin) */

/* REC_TAKE_BACK sides: the window's counts it comes off */
#define REC_SIDE_USER 0u
#define REC_SIDE_KERNEL 1u

/* REC_END reasons */
#define REC_END_EXIT 0u
#define REC_END_EXEC 1u

/* Bounds the reader enforces (and the hosts keep to). */
#define REC_MAX_INSNS 4096u   /* instructions in one block */
#define REC_MAX_LEN 64u       /* bytes in one instruction */
#define REC_MAX_STR 4096u     /* bytes in one path */

/* ---- packing (hosts) ---------------------------------------------------- */

struct rec_packer {
	uint8_t *buf;        /* the host's buffer */
	uint32_t cap, len;   /* its size, bytes in it */
	uint64_t flushed;    /* bytes the host took out before (stream offset of buf[0]) */
	uint64_t def_addr;   /* first address of the last definition */
	uint64_t exec_id;    /* block number of the last execution */
	uint64_t ndefs;      /* blocks defined so far: the next one's number */
	uint64_t def_off;    /* physical - virtual of the last physical address */
};

void rec_packer_init(struct rec_packer *p, uint8_t *buf, uint32_t cap);
/* The stream offset of the next record. */
static inline uint64_t rec_offset(const struct rec_packer *p)
{
	return p->flushed + p->len;
}
/* The host took n bytes from the front of the buffer (usually all). */
void rec_packer_taken(struct rec_packer *p, uint32_t n);

/* Each put writes one record and returns 0, or -1 when the buffer has no
 * room for it (nothing written: flush and put again; a buffer of at least
 * REC_BUF_MIN bytes holds any record). */
#define REC_BUF_MIN (64u + 32u * REC_MAX_INSNS + REC_MAX_STR)
/* Define the next block (its number: ndefs before the call); phys: the
 * instructions' physical addresses (flags gets REC_DEF_PHYS), or NULL. */
int rec_put_def(struct rec_packer *p, uint32_t flags, const uint64_t *addr,
		const uint32_t *len, const uint64_t *phys, uint32_t n);
int rec_put_exec(struct rec_packer *p, uint64_t id);
int rec_put_exec_phys(struct rec_packer *p, uint64_t id, uint64_t phys);
/* REC_CTXSW, REC_WIN_OPEN, REC_WIN_CLOSE */
int rec_put_mark(struct rec_packer *p, enum rec_tag tag);
int rec_put_image(struct rec_packer *p, uint64_t pid, const char *path);
int rec_put_end(struct rec_packer *p, uint32_t reason);
int rec_put_fork(struct rec_packer *p, uint64_t ppid, uint64_t parent_image,
		 uint64_t parent_offset);
int rec_put_map(struct rec_packer *p, uint64_t bias, uint64_t start, uint64_t size,
		const char *path);
/* n instructions the host counted but the guest did not run (the TCG
 * plugin: the rest of a block a synchronous exception left, counted again
 * when the kernel returned into it; tcg_block_rest) come off the open
 * window's instructions of side (REC_SIDE_USER or REC_SIDE_KERNEL). */
int rec_put_take_back(struct rec_packer *p, uint32_t side, uint64_t n);

/* ---- reading (lace) ----------------------------------------------------- */

struct rec_event {
	enum rec_tag tag;
	uint64_t id;           /* DEF: the block's number; EXEC: the block run */
	uint64_t phys;         /* EXEC_PHYS */
	uint32_t flags;        /* DEF; TAKE_BACK: the side */
	uint32_t ninsn;        /* DEF: entries filled in addr/len */
	uint64_t a, b, c;      /* IMAGE: pid; END: reason; FORK: ppid, image,
				* offset; MAP: bias, start, size; TAKE_BACK:
				* instructions */
	const char *str;       /* IMAGE, MAP: path (not terminated) */
	uint32_t strlen;
};

struct rec_reader {
	const uint8_t *start, *p, *end;
	uint64_t def_addr, exec_id, ndefs, def_off;
	uint64_t *addr;        /* REC_MAX_INSNS entries each, the caller's */
	uint32_t *len;
	uint64_t *phys;        /* a DEF with REC_DEF_PHYS */
};

void rec_reader_init(struct rec_reader *r, const uint8_t *buf, uint64_t len,
		     uint64_t *addr, uint32_t *lens, uint64_t *phys);
/* The next record into *ev: 1, 0 at the end of the stream, -1 when the
 * stream is malformed (truncated, unknown tag, out of bounds). */
int rec_next(struct rec_reader *r, struct rec_event *ev);
/* Offset of the next record in the stream. */
static inline uint64_t rec_reader_offset(const struct rec_reader *r)
{
	return (uint64_t)(r->p - r->start);
}

#endif
