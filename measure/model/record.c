/* The raw record stream: packer and reader; see record.h and
 * doc/record-format.md.  No libc. */
#include "measure/model/record.h"

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

static uint32_t str_len(const char *s)
{
	uint32_t n = 0;

	while (s && s[n] && n < REC_MAX_STR)
		n++;
	return n;
}

void rec_packer_init(struct rec_packer *p, uint8_t *buf, uint32_t cap)
{
	p->buf = buf;
	p->cap = cap;
	p->len = 0;
	p->flushed = 0;
	p->def_addr = 0;
	p->exec_id = 0;
	p->ndefs = 0;
	p->def_off = 0;
}

void rec_packer_taken(struct rec_packer *p, uint32_t n)
{
	uint32_t i;

	if (n > p->len)
		n = p->len;
	for (i = n; i < p->len; i++)
		p->buf[i - n] = p->buf[i];
	p->len -= n;
	p->flushed += n;
}

static int room(const struct rec_packer *p, uint64_t need)
{
	return p->cap - p->len >= need;
}

int rec_put_def(struct rec_packer *p, uint32_t flags, const uint64_t *addr,
		const uint32_t *len, const uint64_t *phys, uint32_t n)
{
	uint8_t *o;
	uint64_t end;
	uint32_t i;

	if (!n || n > REC_MAX_INSNS || !room(p, 31 + 30ull * n))
		return -1;
	flags = phys ? flags | REC_DEF_PHYS : flags & ~REC_DEF_PHYS;
	o = p->buf + p->len;
	*o++ = REC_DEF;
	o = put_varint(o, flags);
	o = put_varint(o, n);
	o = put_varint(o, zigzag((int64_t)(addr[0] - p->def_addr)));
	o = put_varint(o, len[0]);
	end = addr[0] + len[0];
	for (i = 1; i < n; i++) {
		o = put_varint(o, zigzag((int64_t)(addr[i] - end)));
		o = put_varint(o, len[i]);
		end = addr[i] + len[i];
	}
	for (i = 0; phys && i < n; i++) {
		uint64_t off = phys[i] - addr[i];
		o = put_varint(o, zigzag((int64_t)(off - p->def_off)));
		p->def_off = off;
	}
	p->def_addr = addr[0];
	p->ndefs++;
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_exec(struct rec_packer *p, uint64_t id)
{
	uint8_t *o;

	if (!room(p, 11))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_EXEC;
	o = put_varint(o, zigzag((int64_t)(id - p->exec_id)));
	p->exec_id = id;
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_exec_phys(struct rec_packer *p, uint64_t id, uint64_t phys)
{
	uint8_t *o;

	if (!room(p, 21))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_EXEC_PHYS;
	o = put_varint(o, zigzag((int64_t)(id - p->exec_id)));
	o = put_varint(o, phys);
	p->exec_id = id;
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_mark(struct rec_packer *p, enum rec_tag tag)
{
	if (!room(p, 1))
		return -1;
	p->buf[p->len++] = (uint8_t)tag;
	return 0;
}

static uint8_t *put_str(uint8_t *o, const char *s, uint32_t n)
{
	uint32_t i;

	o = put_varint(o, n);
	for (i = 0; i < n; i++)
		*o++ = (uint8_t)s[i];
	return o;
}

int rec_put_image(struct rec_packer *p, uint64_t pid, const char *path)
{
	uint32_t n = str_len(path);
	uint8_t *o;

	if (!room(p, 1 + 10 + 10 + (uint64_t)n))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_IMAGE;
	o = put_varint(o, pid);
	o = put_str(o, path, n);
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_end(struct rec_packer *p, uint32_t reason)
{
	uint8_t *o;

	if (!room(p, 11))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_END;
	o = put_varint(o, reason);
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_fork(struct rec_packer *p, uint64_t ppid, uint64_t parent_image,
		 uint64_t parent_offset)
{
	uint8_t *o;

	if (!room(p, 31))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_FORK;
	o = put_varint(o, ppid);
	o = put_varint(o, parent_image);
	o = put_varint(o, parent_offset);
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_map(struct rec_packer *p, uint64_t bias, uint64_t start, uint64_t size,
		const char *path)
{
	uint32_t n = str_len(path);
	uint8_t *o;

	if (!room(p, 1 + 30 + 10 + (uint64_t)n))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_MAP;
	o = put_varint(o, bias);
	o = put_varint(o, start);
	o = put_varint(o, size);
	o = put_str(o, path, n);
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

int rec_put_take_back(struct rec_packer *p, uint32_t side, uint64_t n)
{
	uint8_t *o;

	if (side > REC_SIDE_KERNEL || !room(p, 21))
		return -1;
	o = p->buf + p->len;
	*o++ = REC_TAKE_BACK;
	o = put_varint(o, side);
	o = put_varint(o, n);
	p->len = (uint32_t)(o - p->buf);
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

void rec_reader_init(struct rec_reader *r, const uint8_t *buf, uint64_t len,
		     uint64_t *addr, uint32_t *lens, uint64_t *phys)
{
	r->phys = phys;
	r->def_off = 0;
	r->start = r->p = buf;
	r->end = buf + len;
	r->def_addr = 0;
	r->exec_id = 0;
	r->ndefs = 0;
	r->addr = addr;
	r->len = lens;
}

/* 0, or -1 when truncated or longer than 10 bytes */
static int get_varint(struct rec_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

static int get_str(struct rec_reader *r, struct rec_event *ev)
{
	uint64_t n;

	if (get_varint(r, &n) || n > REC_MAX_STR || n > (uint64_t)(r->end - r->p))
		return -1;
	ev->str = (const char *)r->p;
	ev->strlen = (uint32_t)n;
	r->p += n;
	return 0;
}

static int get_def(struct rec_reader *r, struct rec_event *ev)
{
	uint64_t flags, n, d, len, end;
	uint32_t i;

	if (get_varint(r, &flags) || get_varint(r, &n) || !n || n > REC_MAX_INSNS)
		return -1;
	if (get_varint(r, &d) || get_varint(r, &len) || len > REC_MAX_LEN)
		return -1;
	r->addr[0] = r->def_addr + (uint64_t)unzigzag(d);
	r->len[0] = (uint32_t)len;
	end = r->addr[0] + len;
	for (i = 1; i < n; i++) {
		if (get_varint(r, &d) || get_varint(r, &len) || len > REC_MAX_LEN)
			return -1;
		r->addr[i] = end + (uint64_t)unzigzag(d);
		r->len[i] = (uint32_t)len;
		end = r->addr[i] + len;
	}
	for (i = 0; (flags & REC_DEF_PHYS) && i < n; i++) {
		if (get_varint(r, &d))
			return -1;
		r->def_off += (uint64_t)unzigzag(d);
		r->phys[i] = r->addr[i] + r->def_off;
	}
	r->def_addr = r->addr[0];
	ev->flags = (uint32_t)flags;
	ev->ninsn = (uint32_t)n;
	ev->id = r->ndefs++;
	return 0;
}

int rec_next(struct rec_reader *r, struct rec_event *ev)
{
	uint64_t d;

	if (r->p >= r->end)
		return 0;
	ev->tag = (enum rec_tag)*r->p++;
	ev->str = 0;
	ev->strlen = 0;
	switch (ev->tag) {
	case REC_DEF:
		return get_def(r, ev) ? -1 : 1;
	case REC_EXEC:
	case REC_EXEC_PHYS:
		if (get_varint(r, &d))
			return -1;
		r->exec_id += (uint64_t)unzigzag(d);
		ev->id = r->exec_id;
		if (ev->tag == REC_EXEC_PHYS && get_varint(r, &ev->phys))
			return -1;
		return 1;
	case REC_CTXSW:
	case REC_WIN_OPEN:
	case REC_WIN_CLOSE:
		return 1;
	case REC_IMAGE:
		return get_varint(r, &ev->a) || get_str(r, ev) ? -1 : 1;
	case REC_END:
		return get_varint(r, &ev->a) ? -1 : 1;
	case REC_FORK:
		return get_varint(r, &ev->a) || get_varint(r, &ev->b) || get_varint(r, &ev->c)
			? -1 : 1;
	case REC_MAP:
		return get_varint(r, &ev->a) || get_varint(r, &ev->b) || get_varint(r, &ev->c) ||
			get_str(r, ev) ? -1 : 1;
	case REC_TAKE_BACK:
		if (get_varint(r, &d) || d > REC_SIDE_KERNEL || get_varint(r, &ev->a))
			return -1;
		ev->flags = (uint32_t)d;
		return 1;
	}
	return -1;
}
