/* Recording files: see record_file.h and doc/record-format.md. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "measure/model/record.h"
#include "measure/replay/record_file.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAGIC "lace-record "
#define HEADER_MAX (64u << 10)
#define PAYLOAD_MAX (64ull << 30)   /* decompressed: a sanity bound, not a budget */

void record_init(struct lace_record *r)
{
	memset(r, 0, sizeof(*r));
	r->version = LACE_RECORD_VERSION;
}

void record_free(struct lace_record *r)
{
	for (size_t i = 0; i < r->nbuilds; i++)
		free(r->builds[i].path);
	free(r->builds);
	free(r->streams);
	free(r->payload);
	record_init(r);
}

void record_build_add(struct lace_record *r, const char *role, const char *build_id,
		      const char *path)
{
	struct lace_record_build *b;

	r->builds = xrealloc(r->builds, (r->nbuilds + 1) * sizeof(*r->builds));
	b = &r->builds[r->nbuilds++];
	snprintf(b->role, sizeof(b->role), "%s", role);
	snprintf(b->build_id, sizeof(b->build_id), "%s", build_id && *build_id ? build_id : "");
	b->path = xstrdup(path);
}

const struct lace_record_stream *record_stream_find(const struct lace_record *r, uint64_t pid,
						    uint64_t image)
{
	for (size_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].pid == pid && r->streams[i].image == image)
			return &r->streams[i];
	return NULL;
}

/* ---- raw streams from a host ------------------------------------------ */

struct raw_name {
	uint64_t pid, image;
	char *name;
};

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->image < y->image ? -1 : x->image > y->image;
}

int record_streams_load(struct lace_record *r, const char *dir, const char *prefix)
{
	struct raw_name *names = NULL;
	size_t n = 0, plen = strlen(prefix);
	struct strbuf all = STRBUF_INIT, path = STRBUF_INIT, one = STRBUF_INIT;
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(dir);

	if (!d)
		return lace_error_set(errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		unsigned long long pid, image;
		int used = 0;
		if (strncmp(de->d_name, prefix, plen) || de->d_name[plen] != '.')
			continue;
		if (sscanf(de->d_name + plen, ".%llu.%llu%n", &pid, &image, &used) != 2 ||
		    de->d_name[plen + used])
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n].pid = pid;
		names[n].image = image;
		names[n].name = xstrdup(de->d_name);
		n++;
	}
	closedir(d);
	if (!n)
		return lace_error_set(ENOENT, "%s: the host recorded nothing", dir);
	qsort(names, n, sizeof(*names), raw_cmp);
	uint64_t *lens = xcalloc(n, sizeof(*lens));
	for (size_t i = 0; i < n && !err; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, names[i].name);
		strbuf_reset(&one);
		err = strbuf_read_file(&one, path.buf);
		lens[i] = one.len;
		strbuf_add(&all, one.buf, one.len);
	}
	if (!err) {
		free(r->streams);
		free(r->payload);
		r->streams = xcalloc(n, sizeof(*r->streams));
		r->nstreams = n;
		r->payload_len = all.len;
		r->payload = (uint8_t *)strbuf_detach(&all, NULL);
		uint64_t off = 0;
		for (size_t i = 0; i < n; i++) {
			r->streams[i].pid = names[i].pid;
			r->streams[i].image = names[i].image;
			r->streams[i].data = r->payload + off;
			r->streams[i].len = lens[i];
			off += lens[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i].name);
	free(names);
	free(lens);
	strbuf_release(&all);
	strbuf_release(&path);
	strbuf_release(&one);
	return err;
}

/* ---- writing ------------------------------------------------------------ */

static void put_u64(uint8_t *o, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		o[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void header_text(const struct lace_record *r, struct strbuf *sb)
{
	const struct sim_config *c = &r->cfg;

	strbuf_addf(sb, MAGIC "%d\n", LACE_RECORD_VERSION);
	strbuf_addf(sb, "arch %s\n", r->arch[0] ? r->arch : "x86_64");
	strbuf_addf(sb, "host %s\n", r->host);
	strbuf_addf(sb, "profile %s\n", r->profile[0] ? r->profile : "custom");
	strbuf_addf(sb, "l1i %" PRIu64 " %u %u\n", c->l1i_size, c->l1i_ways, c->l1i_line);
	strbuf_addf(sb, "itlb %u %u\n", c->itlb_entries, c->itlb_ways);
	strbuf_addf(sb, "stlb %u %u\n", c->stlb_entries, c->stlb_ways);
	strbuf_addf(sb, "page %" PRIu64 "\n", c->page);
	strbuf_addf(sb, "fetch-block %u\n", c->fetch_block);
	/* a later addition: without it, one page size */
	if (c->large_page)
		strbuf_addf(sb, "large-page %" PRIu64 " %u %u %u 0x%" PRIx64 " 0x%" PRIx64 "\n",
			    c->large_page, c->litlb_entries, c->litlb_ways, c->stlb_large,
			    c->large_lo, c->large_hi);
	strbuf_addf(sb, "window %d\n", r->window);
	for (size_t i = 0; i < r->nbuilds; i++)
		strbuf_addf(sb, "build %s %s %s\n", r->builds[i].role,
			    r->builds[i].build_id[0] ? r->builds[i].build_id : "-",
			    r->builds[i].path);
	strbuf_addf(sb, "streams %zu\n\n", r->nstreams);
}

int record_file_write(const char *path, const struct lace_record *r)
{
	struct strbuf sb = STRBUF_INIT;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_CStreamOutSize();
	uint8_t *out = xmalloc(cap), hdr[24];
	int err = 0;
	FILE *f;

	header_text(r, &sb);
	f = fopen(path, "wb");
	if (!f) {
		err = lace_error_set(errno, "%s: %s", path, strerror(errno));
		goto done;
	}
	fwrite(sb.buf, 1, sb.len, f);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 6);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (size_t i = 0; i <= r->nstreams && !err; i++) {
		/* each stream: pid, image, length (u64 LE), then its bytes;
		 * the frame ends after the last */
		ZSTD_inBuffer in[2];
		int nin = 0;
		if (i < r->nstreams) {
			put_u64(hdr, r->streams[i].pid);
			put_u64(hdr + 8, r->streams[i].image);
			put_u64(hdr + 16, r->streams[i].len);
			in[nin++] = (ZSTD_inBuffer){ hdr, sizeof(hdr), 0 };
			in[nin++] = (ZSTD_inBuffer){ r->streams[i].data, r->streams[i].len, 0 };
		} else {
			in[nin++] = (ZSTD_inBuffer){ hdr, 0, 0 };
		}
		for (int k = 0; k < nin && !err; k++) {
			ZSTD_EndDirective mode = i == r->nstreams ? ZSTD_e_end : ZSTD_e_continue;
			size_t left;
			do {
				ZSTD_outBuffer o = { out, cap, 0 };
				left = ZSTD_compressStream2(cc, &o, &in[k], mode);
				if (ZSTD_isError(left)) {
					err = lace_error_set(EIO, "%s: zstd: %s", path,
							     ZSTD_getErrorName(left));
					break;
				}
				fwrite(out, 1, o.pos, f);
			} while (mode == ZSTD_e_end ? left != 0 : in[k].pos < in[k].size);
		}
	}
	if (ferror(f) && !err)
		err = lace_error_set(EIO, "%s: write failed", path);
	if (fclose(f) && !err)
		err = lace_error_set(errno, "%s: %s", path, strerror(errno));
done:
	ZSTD_freeCCtx(cc);
	free(out);
	strbuf_release(&sb);
	return err;
}

/* ---- reading ------------------------------------------------------------ */

static int bad(const char *name, const char *what)
{
	return lace_error_set(EINVAL, "%s: %s", name, what);
}

/* One header line "key rest" into r; 0 or -1. */
static int header_line(struct lace_record *r, char *line)
{
	char *sp = strchr(line, ' ');
	const char *v;
	struct sim_config *c = &r->cfg;
	unsigned long long a = 0;
	unsigned b = 0, d = 0;

	if (!sp)
		return -1;
	*sp = 0;
	v = sp + 1;
	if (!strcmp(line, "arch"))
		snprintf(r->arch, sizeof(r->arch), "%s", v);
	else if (!strcmp(line, "host"))
		snprintf(r->host, sizeof(r->host), "%s", v);
	else if (!strcmp(line, "profile"))
		snprintf(r->profile, sizeof(r->profile), "%s", v);
	else if (!strcmp(line, "l1i")) {
		if (sscanf(v, "%llu %u %u", &a, &b, &d) != 3)
			return -1;
		c->l1i_size = a, c->l1i_ways = b, c->l1i_line = d;
	} else if (!strcmp(line, "itlb")) {
		if (sscanf(v, "%u %u", &b, &d) != 2)
			return -1;
		c->itlb_entries = b, c->itlb_ways = d;
	} else if (!strcmp(line, "stlb")) {
		if (sscanf(v, "%u %u", &b, &d) != 2)
			return -1;
		c->stlb_entries = b, c->stlb_ways = d;
	} else if (!strcmp(line, "page")) {
		if (sscanf(v, "%llu", &a) != 1)
			return -1;
		c->page = a;
	} else if (!strcmp(line, "fetch-block")) {
		if (sscanf(v, "%u", &b) != 1)
			return -1;
		c->fetch_block = b;
	} else if (!strcmp(line, "large-page")) {
		unsigned long long lo, hi;
		unsigned e;
		if (sscanf(v, "%llu %u %u %u %llx %llx", &a, &b, &d, &e, &lo, &hi) != 6)
			return -1;
		c->large_page = a, c->litlb_entries = b, c->litlb_ways = d, c->stlb_large = e != 0;
		c->large_lo = lo, c->large_hi = hi;
	} else if (!strcmp(line, "window")) {
		r->window = atoi(v) != 0;
	} else if (!strcmp(line, "build")) {
		char role[16], id[81];
		int used = 0;
		if (sscanf(v, "%15s %80s %n", role, id, &used) != 2 || !used || !v[used])
			return -1;
		record_build_add(r, role, strcmp(id, "-") ? id : "", v + used);
	} else if (!strcmp(line, "streams")) {
		if (sscanf(v, "%llu", &a) != 1 || a > (1u << 20))
			return -1;
		r->nstreams = a;
	}
	/* other keys: a later minor addition, ignored */
	return 0;
}

static int payload_inflate(const char *name, const uint8_t *buf, size_t len,
			   struct lace_record *r)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	size_t cap = 1u << 20, used = 0, ret = 1;
	uint8_t *out = xmalloc(cap);
	ZSTD_inBuffer in = { buf, len, 0 };
	int err = 0;

	for (;;) {
		if (used == cap) {
			if (cap >= PAYLOAD_MAX) {
				err = bad(name, "stream too large");
				break;
			}
			cap *= 2;
			out = xrealloc(out, cap);
		}
		ZSTD_outBuffer o = { out + used, cap - used, 0 };
		ret = ZSTD_decompressStream(dc, &o, &in);
		used += o.pos;
		if (ZSTD_isError(ret)) {
			err = lace_error_set(EINVAL, "%s: corrupt stream (zstd: %s)", name,
					     ZSTD_getErrorName(ret));
			break;
		}
		if (ret == 0) {
			if (in.pos < in.size)
				err = bad(name, "data after the end of the stream");
			break;
		}
		if (in.pos == in.size && o.pos < o.size)
			break;   /* all input taken, the frame unfinished */
	}
	if (!err && ret != 0)
		err = bad(name, "truncated (the compressed stream ends early)");
	ZSTD_freeDCtx(dc);
	if (err) {
		free(out);
		return err;
	}
	r->payload = out;
	r->payload_len = used;
	return 0;
}

int record_file_parse(const char *name, const uint8_t *buf, size_t len, struct lace_record *r)
{
	size_t hlen, pos, nstreams;
	char *hdr, *line, *next;
	int err;

	if (len < strlen(MAGIC) || memcmp(buf, MAGIC, strlen(MAGIC)))
		return bad(name, "not a lace recording");
	for (hlen = 0; hlen + 1 < len && hlen < HEADER_MAX; hlen++)
		if (buf[hlen] == '\n' && buf[hlen + 1] == '\n')
			break;
	if (hlen + 1 >= len || hlen >= HEADER_MAX)
		return bad(name, "truncated (no end of header)");
	if (memchr(buf, 0, hlen))
		return bad(name, "malformed header");
	hdr = xmalloc(hlen + 2);
	memcpy(hdr, buf, hlen + 1);
	hdr[hlen + 1] = 0;
	r->version = atoi(hdr + strlen(MAGIC));
	if (r->version < 1) {
		free(hdr);
		return bad(name, "not a lace recording");
	}
	if (r->version > LACE_RECORD_VERSION) {
		free(hdr);
		return lace_error_set(EINVAL, "%s: recording format %d is newer than this lace's %d",
				      name, r->version, LACE_RECORD_VERSION);
	}
	err = 0;
	for (line = strchr(hdr, '\n') + 1; *line && !err; line = next) {
		next = strchr(line, '\n');
		*next++ = 0;
		if (header_line(r, line))
			err = bad(name, "malformed header");
	}
	free(hdr);
	if (err)
		return err;
	const char *what, *why;
	if (sim_config_check(&r->cfg, &what, &why))
		return lace_error_set(EINVAL, "%s: header: %s: %s", name, what, why);
	uint64_t nl, ni, ns, nlt;
	if (r->cfg.l1i_size > (1u << 26) || r->cfg.itlb_entries > (1u << 20) ||
	    r->cfg.stlb_entries > (1u << 20) || r->cfg.page > (1ull << 30) ||
	    r->cfg.litlb_entries > (1u << 20) || r->cfg.large_page > (1ull << 34) ||
	    sim_model_ntags(&r->cfg, &nl, &ni, &ns, &nlt) > (1u << 24))
		return bad(name, "header: a geometry larger than any CPU's");
	nstreams = r->nstreams;
	r->nstreams = 0;
	err = payload_inflate(name, buf + hlen + 2, len - hlen - 2, r);
	if (err)
		return err;
	r->streams = xcalloc(nstreams, sizeof(*r->streams));
	for (pos = 0; r->nstreams < nstreams; r->nstreams++) {
		struct lace_record_stream *s = &r->streams[r->nstreams];
		if (r->payload_len - pos < 24)
			return bad(name, "truncated (fewer streams than the header says)");
		s->pid = get_u64(r->payload + pos);
		s->image = get_u64(r->payload + pos + 8);
		s->len = get_u64(r->payload + pos + 16);
		pos += 24;
		if (s->len > r->payload_len - pos)
			return bad(name, "truncated (a stream ends early)");
		s->data = r->payload + pos;
		pos += s->len;
	}
	if (pos != r->payload_len)
		return bad(name, "more data than the header's streams");
	return 0;
}

int record_file_read(const char *path, struct lace_record *r)
{
	struct strbuf sb = STRBUF_INIT;
	int err = strbuf_read_file(&sb, path);

	if (err)
		err = lace_error_set(-err, "%s: %s", path, strerror(-err));
	else
		err = record_file_parse(path, (const uint8_t *)sb.buf, sb.len, r);
	strbuf_release(&sb);
	return err;
}

/* ---- packing a host's run ----------------------------------------------- */

int (*record_build_id_reader)(const char *path, char *hex, size_t len);

/* The executable of the first IMAGE record of s, into buf ("" if none). */
static void stream_exe(const struct lace_record_stream *s, char *buf, size_t len)
{
	static uint64_t addr[REC_MAX_INSNS];
	static uint32_t lens[REC_MAX_INSNS];
	static uint64_t phys[REC_MAX_INSNS];
	struct rec_reader rd;
	struct rec_event ev;

	buf[0] = 0;
	rec_reader_init(&rd, s->data, s->len, addr, lens, phys);
	while (rec_next(&rd, &ev) > 0)
		if (ev.tag == REC_IMAGE) {
			snprintf(buf, len, "%.*s", (int)ev.strlen, ev.str);
			return;
		}
}

int record_pack(const char *path, const char *dir, const char *prefix, const char *host,
		const char *profile, const struct sim_config *cfg, int window,
		const char *kernel, const char *kernel_build_id)
{
	struct lace_record r;
	char exe[4096], id[81] = "";
	int err;

	record_init(&r);
	snprintf(r.arch, sizeof(r.arch), "x86_64");
	snprintf(r.host, sizeof(r.host), "%s", host);
	snprintf(r.profile, sizeof(r.profile), "%s", profile);
	r.cfg = *cfg;
	r.window = window;
	err = record_streams_load(&r, dir, prefix);
	if (!err && kernel) {
		char *abs = realpath(kernel, NULL);
		snprintf(id, sizeof(id), "%s", kernel_build_id ? kernel_build_id : "");
		if (!id[0] && record_build_id_reader && record_build_id_reader(kernel, id, sizeof(id)))
			id[0] = 0;
		lace_error_clear();
		record_build_add(&r, "kernel", id, abs ? abs : kernel);
		free(abs);
		err = record_file_write(path, &r);
	} else if (!err) {
		stream_exe(&r.streams[0], exe, sizeof(exe));
		if (exe[0]) {
			char *abs = realpath(exe, NULL);
			if (abs) {
				snprintf(exe, sizeof(exe), "%s", abs);
				free(abs);
			}
			if (record_build_id_reader && record_build_id_reader(exe, id, sizeof(id)))
				id[0] = 0;
			lace_error_clear();
			record_build_add(&r, "user", id, exe);
		}
		err = record_file_write(path, &r);
	}
	record_free(&r);
	return err;
}
