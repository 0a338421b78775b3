/* The replay engine; see replay.h and doc/record-format.md. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/model/record.h"
#include "measure/qemu/tcg_core.h"
#include "measure/replay/replay.h"
#include "measure/replay/replay_carry.h"
#include "util/error.h"
#include "util/xalloc.h"

#define MAX_FORK_DEPTH 64

/* one defined block, compiled for this layout */
struct rp_block {
	struct sim_seg seg;
	uint64_t execs;                    /* counted runs, settled per stream */
	uint32_t exact, approx, outside;   /* its instructions by class */
	uint32_t afirst, an;               /* its approximate functions in c->afn */
	uint32_t hfirst, hn;               /* with heat: its pieces in c->hot */
	bool kernel;
};

struct rp_afn {
	uint32_t fn;     /* index in lay->old */
	uint32_t n;      /* instructions of the block in it */
};

struct rp_chunk {
	struct rp_chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* A block's instructions while it is decoded and compiled: per run, so
 * that runs go side by side (replay_run_many) */
struct rp_scratch {
	struct sim_insn insns[REC_MAX_INSNS], hinsns[REC_MAX_INSNS];
	struct sim_ref tmp[REC_MAX_INSNS * 4];
	struct sim_ref lines[REC_MAX_INSNS * 4], pages[REC_MAX_INSNS * 4];
	uint64_t sa[REC_MAX_INSNS];
	uint32_t sl[REC_MAX_INSNS];
	uint64_t addr[REC_MAX_INSNS], phys[REC_MAX_INSNS];
	uint32_t len[REC_MAX_INSNS];
};

struct rp_ctx {
	const struct lace_record *rec;
	const struct replay_layout *lay;
	struct rp_scratch *sc;
	struct rp_carry carry;   /* lay's tables, and where the object is mapped */
	uint64_t *afn_count;   /* per old function: approximate instructions run */
	uint64_t *hot_count;   /* with heat: per old function, instructions run */
	struct replay_result *out;

	struct sim_model m;
	uint64_t *tags;
	struct rp_block *blocks;
	size_t nblocks, cap;
	struct rp_afn *afn;
	size_t nafn, afn_cap;
	struct rp_afn *hot;
	size_t nhot, hot_cap;
	struct rp_chunk *chunks;

	bool win_open;
	unsigned windows;
	struct sim_totals win_start, win_sum;
	uint64_t pid;

	/* the TCG plugin's ways (host "qemu"): the model runs inside windows
	 * only, counts split by the side a block is on, a context switch
	 * flushes the user pages */
	bool qemu;
	int cur_kernel;
	struct sim_totals last;
	struct tcg_split split;
	uint64_t user_limit;
	/* REC_TAKE_BACK: instructions counted, not run, since the counts
	 * were last reset (off the totals at the image's end) */
	uint64_t taken_back;
};

static void *arena_alloc(struct rp_ctx *c, size_t n)
{
	struct rp_chunk *k = c->chunks;

	n = (n + 15) & ~(size_t)15;
	if (!k || k->cap - k->used < n) {
		size_t cap = n > (1u << 20) ? n : (1u << 20);
		k = xmalloc(sizeof(*k) + cap);
		k->next = c->chunks;
		k->used = 0;
		k->cap = cap;
		c->chunks = k;
	}
	k->used += n;
	return k->data + k->used - n;
}

static void arena_free(struct rp_ctx *c)
{
	while (c->chunks) {
		struct rp_chunk *k = c->chunks;
		c->chunks = k->next;
		free(k);
	}
}

/* ---- carrying addresses over (replay_carry.c) ----------------------------- */

static void layout_prepare(struct rp_ctx *c)
{
	const struct replay_layout *l = c->lay;

	carry_prepare(&c->carry, l);
	c->afn_count = xcalloc(l->nold, sizeof(*c->afn_count));
	c->hot_count = l->heat ? xcalloc(l->nold, sizeof(*c->hot_count)) : NULL;
}

/* ---- the stream ------------------------------------------------------------ */

static int bad(const struct rp_ctx *c, const struct lace_record_stream *s, const char *what)
{
	return lace_error_set(EINVAL, "stream of pid %llu: %s", (unsigned long long)s->pid, what);
}

static int block_define(struct rp_ctx *c, const struct rec_event *ev, uint64_t *addr,
			uint32_t *len, uint64_t *phys)
{
	struct sim_insn *insns = c->sc->insns, *hinsns = c->sc->hinsns;
	struct sim_ref *tmp = c->sc->tmp, *lines = c->sc->lines, *pages = c->sc->pages;
	uint64_t *sa = c->sc->sa;
	uint32_t *sl = c->sc->sl;
	struct rp_block *b;

	if (c->nblocks == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 4096;
		c->blocks = xrealloc(c->blocks, c->cap * sizeof(*c->blocks));
	}
	b = &c->blocks[c->nblocks++];
	memset(b, 0, sizeof(*b));
	b->afirst = (uint32_t)c->nafn;
	b->hfirst = (uint32_t)c->nhot;
	b->kernel = ev->flags & REC_DEF_KERNEL;
	for (uint32_t i = 0; i < ev->ninsn; i++) {
		uint64_t a = addr[i];
		if (c->lay) {
			int cls;
			long fn = -1;
			a = carry_addr(&c->carry, a, &cls, &fn);
			if (c->hot_count && fn >= 0) {
				if (b->hn && c->hot[c->nhot - 1].fn == (uint32_t)fn) {
					c->hot[c->nhot - 1].n++;
				} else {
					if (c->nhot == c->hot_cap) {
						c->hot_cap = c->hot_cap ? 2 * c->hot_cap : 256;
						c->hot = xrealloc(c->hot, c->hot_cap * sizeof(*c->hot));
					}
					c->hot[c->nhot++] = (struct rp_afn){ (uint32_t)fn, 1 };
					b->hn++;
				}
			}
			if (cls == CL_EXACT) {
				b->exact++;
			} else if (cls == CL_OUTSIDE) {
				b->outside++;
			} else {
				b->approx++;
				if (b->an && c->afn[c->nafn - 1].fn == (uint32_t)fn) {
					c->afn[c->nafn - 1].n++;
				} else {
					if (c->nafn == c->afn_cap) {
						c->afn_cap = c->afn_cap ? 2 * c->afn_cap : 256;
						c->afn = xrealloc(c->afn, c->afn_cap * sizeof(*c->afn));
					}
					c->afn[c->nafn++] = (struct rp_afn){ (uint32_t)fn, 1 };
					b->an++;
				}
			}
		}
		insns[i] = (struct sim_insn){ .addr = a, .len = len[i] };
		/* the physical address moves with the virtual one: the code's
		 * own virtual-to-physical offset */
		if (ev->flags & REC_DEF_PHYS)
			hinsns[i] = (struct sim_insn){ .addr = phys[i] - addr[i] + a, .len = len[i] };
	}
	if (ev->flags & REC_DEF_PHYS) {
		/* as the TCG plugin: lines from the physical addresses, pages
		 * and fetch blocks from the virtual ones */
		struct sim_seg segh;
		if (sim_seg_build(&c->m, hinsns, ev->ninsn, &segh, lines, REC_MAX_INSNS * 4, tmp,
				  REC_MAX_INSNS * 4, NULL, 0, sa, sl) ||
		    sim_seg_build(&c->m, insns, ev->ninsn, &b->seg, tmp, REC_MAX_INSNS * 4, pages,
				  REC_MAX_INSNS * 4, NULL, 0, sa, sl))
			return -1;
		b->seg.lines = segh.lines;
		b->seg.nlines = segh.nlines;
		b->seg.l1i_loads = segh.l1i_loads;
	} else if (sim_seg_build(&c->m, insns, ev->ninsn, &b->seg, lines, REC_MAX_INSNS * 4, pages,
				 REC_MAX_INSNS * 4, NULL, 0, sa, sl)) {
		return -1;
	}
	/* keep the compacted lookups (the large pages' follow the small) */
	uint32_t np = b->seg.npages + b->seg.nlpages;
	struct sim_ref *keep = arena_alloc(c, (b->seg.nlines + np) * sizeof(*keep));
	memcpy(keep, b->seg.lines, b->seg.nlines * sizeof(*keep));
	memcpy(keep + b->seg.nlines, b->seg.pages, np * sizeof(*keep));
	b->seg.lines = keep;
	b->seg.pages = keep + b->seg.nlines;
	b->seg.lpages = b->seg.pages + b->seg.npages;
	return 0;
}

static void block_run(struct rp_ctx *c, struct rp_block *b, bool counting)
{
	if (c->qemu && (int)b->kernel != c->cur_kernel) {
		tcg_split_account(&c->split, c->cur_kernel, &c->m.t, &c->last);
		c->cur_kernel = b->kernel;
	}
	/* sim_seg_run() of a segment without functions, inline */
	c->m.t.instructions += b->seg.ninsn;
	c->m.t.l1i_loads += b->seg.l1i_loads;
	c->m.t.itlb_loads += b->seg.itlb_loads;
	sim_seg_run_caches_inline(&c->m, &b->seg);
	sim_fetch_seg_apply(&c->m.fetch, &b->seg.fetch);
	c->m.t.fetch_blocks = c->m.fetch.entries;
	c->m.t.fetch_late = c->m.fetch.late;
	b->execs += counting;
}

/* How the counted runs' instructions were carried over, from each
 * block's runs (settled once, not on every run). */
static void blocks_settle(struct rp_ctx *c)
{
	for (size_t i = 0; i < c->nblocks && c->lay; i++) {
		struct rp_block *b = &c->blocks[i];

		c->out->exact += b->execs * b->exact;
		c->out->approx += b->execs * b->approx;
		c->out->outside += b->execs * b->outside;
		for (uint32_t k = 0; k < b->an; k++)
			c->afn_count[c->afn[b->afirst + k].fn] += b->execs * c->afn[b->afirst + k].n;
		for (uint32_t k = 0; k < b->hn; k++)
			c->hot_count[c->hot[b->hfirst + k].fn] += b->execs * c->hot[b->hfirst + k].n;
		b->execs = 0;
	}
}

static void span_add(struct sim_totals *sum, const struct sim_totals *now,
		     const struct sim_totals *start)
{
	uint64_t *s = (uint64_t *)sum;
	const uint64_t *n = (const uint64_t *)now, *b = (const uint64_t *)start;

	for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
		s[i] += n[i] - b[i];
}

static void window_reset(struct rp_ctx *c)
{
	c->win_open = false;
	c->windows = 0;
	memset(&c->win_sum, 0, sizeof(c->win_sum));
}

/* The image's counts end (lace-vg writes its result file here). */
static void proc_end(struct rp_ctx *c)
{
	struct replay_result *o = c->out;
	struct replay_proc *p;

	o->procs = xrealloc(o->procs, (o->nprocs + 1) * sizeof(*o->procs));
	p = &o->procs[o->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = c->pid;
	p->t = c->m.t;
	p->t.instructions -= c->taken_back;
	p->windows = c->windows;
	p->window = c->win_sum;
	if (c->win_open)
		span_add(&p->window, &c->m.t, &c->win_start);
}

static int feed(struct rp_ctx *c, const struct lace_record_stream *s, uint64_t upto, int depth,
		bool counting);

static int fork_from(struct rp_ctx *c, const struct lace_record_stream *s,
		     const struct rec_event *ev, int depth)
{
	const struct lace_record_stream *parent = record_stream_find(c->rec, ev->a, ev->b);

	if (!parent || depth >= MAX_FORK_DEPTH || ev->c > parent->len || c->nblocks)
		return bad(c, s, "a fork from a stream that is not in the recording");
	if (feed(c, parent, ev->c, depth + 1, false))
		return -1;
	/* the child starts counting from zero with the parent's warm caches,
	 * inside a window when the parent was in one */
	bool open = c->win_open;
	sim_model_reset_counts(&c->m);
	c->taken_back = 0;
	window_reset(c);
	if (open) {
		c->windows = 1;
		c->win_open = true;
		c->win_start = c->m.t;
	}
	return 0;
}

/* The MAP record names the object (the same file, however spelled). */
static bool map_is_object(const char *object, const struct rec_event *ev)
{
	char *path = strndup(ev->str, ev->strlen), *abs;
	bool same;

	if (!path)
		return false;
	abs = realpath(path, NULL);
	same = !strcmp(abs ? abs : path, object);
	free(abs);
	free(path);
	return same;
}

static int feed(struct rp_ctx *c, const struct lace_record_stream *s, uint64_t upto, int depth,
		bool counting)
{
	/* the decoder's arrays: a fork's replay of the parent reuses them,
	 * and the next record is decoded into them again */
	uint64_t *addr = c->sc->addr, *phys = c->sc->phys;
	uint32_t *len = c->sc->len;
	struct rec_reader rd;
	struct rec_event ev;
	int rc = 0;

	rec_reader_init(&rd, s->data, s->len, addr, len, phys);
	rd.ndefs = c->nblocks;
	for (;;) {
		/* the common record, a run of a block one or a few numbers
		 * from the last one, read here */
		if (rd.end - rd.p >= 2 && rd.p[0] == REC_EXEC && !(rd.p[1] & 0x80) &&
		    rec_reader_offset(&rd) < upto) {
			rd.exec_id += (uint64_t)((int64_t)(rd.p[1] >> 1) ^ -(int64_t)(rd.p[1] & 1));
			rd.p += 2;
			if (rd.exec_id >= c->nblocks)
				return bad(c, s, "a block run before it was defined");
			block_run(c, &c->blocks[rd.exec_id], counting);
			continue;
		}
		if (rec_reader_offset(&rd) >= upto || (rc = rec_next(&rd, &ev)) <= 0)
			break;
		switch (ev.tag) {
		case REC_DEF:
			if (ev.id != c->nblocks)
				return bad(c, s, "blocks out of order");
			if (block_define(c, &ev, addr, len, phys))
				return bad(c, s, "a block the model cannot hold");
			break;
		case REC_EXEC:
		case REC_EXEC_PHYS:
			if (ev.id >= c->nblocks)
				return bad(c, s, "a block run before it was defined");
			block_run(c, &c->blocks[ev.id], counting);
			break;
		case REC_IMAGE:
			if (counting)
				c->pid = ev.a;
			break;
		case REC_FORK:
			if (fork_from(c, s, &ev, depth))
				return -1;
			rd.ndefs = c->nblocks;   /* the child numbers on from the parent */
			break;
		case REC_MAP:
			if (c->lay && c->lay->object && !c->carry.have_map &&
			    map_is_object(c->lay->object, &ev)) {
				c->carry.have_map = true;
				c->carry.bias = ev.a;
				c->carry.map_start = ev.b;
				c->carry.map_size = ev.c;
			}
			break;
		case REC_WIN_OPEN:
			if (!c->win_open) {
				c->windows++;
				c->win_open = true;
				c->win_start = c->m.t;
				memset(&c->split, 0, sizeof(c->split));
				c->last = c->m.t;
				c->cur_kernel = 0;   /* the marker runs in user space */
			}
			break;
		case REC_WIN_CLOSE:
			if (c->win_open) {
				span_add(&c->win_sum, &c->m.t, &c->win_start);
				c->win_open = false;
				tcg_split_account(&c->split, c->cur_kernel, &c->m.t, &c->last);
				if (counting) {
					span_add(&c->out->user, &c->split.u, &(struct sim_totals){ 0 });
					span_add(&c->out->kernel, &c->split.k, &(struct sim_totals){ 0 });
				}
			}
			break;
		case REC_END:
			if (counting)
				proc_end(c);
			sim_model_reset_counts(&c->m);
			c->taken_back = 0;
			window_reset(c);
			break;
		case REC_TAKE_BACK:
			/* as the plugin: off the open window's count of that
			 * side (the split), and so off its totals too */
			if (c->win_open) {
				uint64_t *n = ev.flags == REC_SIDE_KERNEL ? &c->split.k.instructions
									  : &c->split.u.instructions;
				*n -= ev.a;
				c->win_sum.instructions -= ev.a;
				c->taken_back += ev.a;
			}
			break;
		case REC_CTXSW:
			/* a new address space may follow: the user pages go */
			sim_cache_flush_below(&c->m.itlb, c->user_limit);
			if (c->m.has_stlb)
				sim_cache_flush_below(&c->m.stlb, c->user_limit);
			break;
		}
	}
	if (rec_reader_offset(&rd) < upto && rc < 0)
		return bad(c, s, "malformed or truncated record");
	return 0;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct replay_fn *x = a, *y = b;

	return x->instructions < y->instructions ? 1 : x->instructions > y->instructions ? -1 : 0;
}

int replay_run(const struct lace_record *rec, const struct replay_layout *lay,
	       struct replay_result *out)
{
	struct rp_ctx c = { .rec = rec, .lay = lay, .out = out, .qemu = !strcmp(rec->host, "qemu") };
	struct sim_config cfg = rec->cfg;
	uint64_t nl, ni, ns, nlt;
	const char *what, *why;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (lay && lay->large_set && cfg.large_page) {
		cfg.large_lo = lay->large_lo;
		cfg.large_hi = lay->large_hi;
	}
	if (sim_config_check(&cfg, &what, &why))
		return lace_error_set(EINVAL, "%s: %s", what, why);
	sim_model_ntags(&cfg, &nl, &ni, &ns, &nlt);
	c.tags = xcalloc(nl + ni + ns + nlt, sizeof(uint64_t));
	c.sc = xmalloc(sizeof(*c.sc));
	c.user_limit = tcg_user_page_limit(rec->cfg.page);
	if (lay)
		layout_prepare(&c);
	for (size_t i = 0; i < rec->nstreams && !err; i++) {
		/* each stream a process of its own: cold caches, unless it
		 * forked (then feed() replays its parent's part first) */
		sim_model_init(&c.m, &cfg, c.tags, c.tags + nl, ns ? c.tags + nl + ni : NULL,
			       nlt ? c.tags + nl + ni + ns : NULL);
		c.nblocks = 0;
		c.nafn = 0;
		c.nhot = 0;
		c.taken_back = 0;
		c.carry.have_map = false;
		c.pid = rec->streams[i].pid;
		window_reset(&c);
		arena_free(&c);
		if (feed(&c, &rec->streams[i], rec->streams[i].len, 0, true))
			err = -EINVAL;
		blocks_settle(&c);
	}
	for (size_t i = 0; i < out->nprocs; i++) {
		span_add(&out->total, &out->procs[i].t, &(struct sim_totals){ 0 });
		if (out->procs[i].windows) {
			span_add(&out->window, &out->procs[i].window, &(struct sim_totals){ 0 });
			out->window_procs++;
		}
	}
	if (lay) {
		for (size_t i = 0; i < lay->nold; i++)
			if (c.afn_count[i]) {
				out->approx_fns = xrealloc(out->approx_fns, (out->napprox_fns + 1) *
							   sizeof(*out->approx_fns));
				out->approx_fns[out->napprox_fns++] =
					(struct replay_fn){ lay->old[i].name, c.afn_count[i] };
			}
		if (out->napprox_fns)   /* qsort wants a non-NULL base even for 0 */
			qsort(out->approx_fns, out->napprox_fns, sizeof(*out->approx_fns), fn_cmp);
		for (size_t i = 0; c.hot_count && i < lay->nold; i++)
			if (c.hot_count[i]) {
				out->hot_fns = xrealloc(out->hot_fns, (out->nhot_fns + 1) *
							sizeof(*out->hot_fns));
				out->hot_fns[out->nhot_fns++] =
					(struct replay_fn){ lay->old[i].name, c.hot_count[i] };
			}
		if (out->nhot_fns)
			qsort(out->hot_fns, out->nhot_fns, sizeof(*out->hot_fns), fn_cmp);
	}
	arena_free(&c);
	free(c.sc);
	free(c.blocks);
	free(c.afn);
	free(c.tags);
	carry_free(&c.carry);
	free(c.afn_count);
	free(c.hot_count);
	free(c.hot);
	return err;
}

struct many {
	const struct lace_record *rec;
	const struct replay_layout *const *lays;
	struct replay_result *out;
	size_t n;
	atomic_size_t next;
	int *err;
	char (*msg)[512];
};

static void *many_worker(void *arg)
{
	struct many *m = arg;

	for (size_t i; (i = atomic_fetch_add(&m->next, 1)) < m->n;) {
		m->err[i] = replay_run(m->rec, m->lays[i], &m->out[i]);
		if (m->err[i])
			snprintf(m->msg[i], sizeof(m->msg[i]), "%s", lace_error_msg());
	}
	return NULL;
}

int replay_run_many(const struct lace_record *rec, const struct replay_layout *const *lays,
		    size_t n, struct replay_result *out, unsigned jobs, size_t *failed)
{
	struct many m = { rec, lays, out, n, 0, xcalloc(n, sizeof(int)),
			  xcalloc(n, sizeof(*m.msg)) };
	pthread_t *t;
	unsigned nt = jobs < 1 ? 1 : jobs > n ? (unsigned)n : jobs, started = 0;
	int err = 0;

	t = xcalloc(nt, sizeof(*t));
	for (unsigned i = 1; i < nt; i++)   /* this thread is one of them */
		started += !pthread_create(&t[started], NULL, many_worker, &m);
	many_worker(&m);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < n && !err; i++)
		if (m.err[i]) {
			err = lace_error_set(-m.err[i], "%s", m.msg[i]);
			if (failed)
				*failed = i;
		}
	free(t);
	free(m.err);
	free(m.msg);
	return err;
}

void replay_result_free(struct replay_result *r)
{
	free(r->procs);
	free(r->approx_fns);
	free(r->hot_fns);
	memset(r, 0, sizeof(*r));
}
