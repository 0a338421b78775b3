/* lace-vg's other CPU profiles; see lace_vg_more.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "measure/model/model.h"
#include "measure/vg/tool/lace_vg_more.h"

struct lace_more more[MORE_MAX];
UInt nmore;

/* One segment in one more model: its compact block (b.host8[0]: 1 when
 * usable) and segment. */
struct lace_seg_x {
	struct sim_blk b;
	struct sim_seg s;
};

/* "a,b[,c]" of whole numbers; how many, or -1 */
static Int numbers(const HChar *s, const HChar *end, ULong *v, Int max)
{
	Int n = 0;

	while (s < end) {
		HChar *e;
		Long x = VG_(strtoll10)(s, &e);

		if (e == s || x < 0 || n >= max || e > end)
			return -1;
		v[n++] = (ULong)x;
		s = e;
		if (s < end && *s == ',')
			s++;
		else if (s < end)
			return -1;
	}
	return n;
}

Bool more_option(const HChar *arg)
{
	const HChar *pfx = "--lace-more=", *f[6], *p;
	struct lace_more *o;
	ULong v[3];
	Int k = 0;

	if (VG_(strncmp)(arg, pfx, VG_(strlen)(pfx)))
		return False;
	if (nmore == MORE_MAX)
		VG_(fmsg_bad_option)(arg, "more than %d other profiles\n", MORE_MAX);
	/* NAME:L1I:ITLB:STLB:PAGE:FETCH */
	p = arg + VG_(strlen)(pfx);
	f[k++] = p;
	for (; *p && k < 6; p++)
		if (*p == ':')
			f[k++] = p + 1;
	if (k != 6)
		VG_(fmsg_bad_option)(arg, "expected NAME:SIZE,WAYS,LINE:ENTRIES,WAYS:ENTRIES,WAYS:"
				     "PAGE:FETCH\n");
	o = &more[nmore];
	{
		SizeT len = (SizeT)(f[1] - 1 - f[0]);
		HChar *name = VG_(malloc)("lace.more", len + 1);

		VG_(memcpy)(name, f[0], len);
		name[len] = '\0';
		o->name = name;
	}
	o->cfg = (struct sim_config)SIM_CONFIG_SKYLAKE;
	o->cfg.large_page = 0;   /* user space: one page size */
	if (numbers(f[1], f[2] - 1, v, 3) != 3)
		VG_(fmsg_bad_option)(arg, "L1i: expected SIZE,WAYS,LINE\n");
	o->cfg.l1i_size = v[0];
	o->cfg.l1i_ways = (uint32_t)v[1];
	o->cfg.l1i_line = (uint32_t)v[2];
	if (numbers(f[2], f[3] - 1, v, 2) != 2)
		VG_(fmsg_bad_option)(arg, "iTLB: expected ENTRIES,WAYS\n");
	o->cfg.itlb_entries = (uint32_t)v[0];
	o->cfg.itlb_ways = (uint32_t)v[1];
	if (numbers(f[3], f[4] - 1, v, 2) != 2)
		VG_(fmsg_bad_option)(arg, "STLB: expected ENTRIES,WAYS\n");
	o->cfg.stlb_entries = (uint32_t)v[0];
	o->cfg.stlb_ways = (uint32_t)v[1];
	if (numbers(f[4], f[5] - 1, v, 1) != 1)
		VG_(fmsg_bad_option)(arg, "page: expected a size\n");
	o->cfg.page = v[0];
	if (numbers(f[5], f[5] + VG_(strlen)(f[5]), v, 1) != 1)
		VG_(fmsg_bad_option)(arg, "fetch: expected a size\n");
	o->cfg.fetch_block = (uint32_t)v[0];
	nmore++;
	return True;
}

static uint64_t *tags_new(uint64_t n)
{
	HChar *q;

	if (!n)
		return NULL;
	/* 128-byte aligned: a set's tags and stamps (cache.h) */
	q = VG_(malloc)("lace.more.tags", n * sizeof(uint64_t) + 128);
	return (uint64_t *)(((Addr)q + 127) & ~(Addr)127);
}

void more_init(void)
{
	for (UInt k = 0; k < nmore; k++) {
		const char *what, *why;
		uint64_t nl, ni, ns;

		if (sim_config_check(&more[k].cfg, &what, &why))
			VG_(fmsg_bad_option)("--lace-more", "%s: %s: %s\n", more[k].name, what, why);
		sim_model_ntags(&more[k].cfg, &nl, &ni, &ns, NULL);
		sim_model_init(&more[k].m, &more[k].cfg, tags_new(nl), tags_new(ni), tags_new(ns),
			       NULL);
	}
}

struct lace_seg_x *more_seg_build(const struct sim_insn *insns, UInt n, uint64_t *sa,
				  uint32_t *sl)
{
	/* room for every lookup before dropping: an instruction of at most
	 * 16 bytes touches two lines and two pages of any geometry */
	enum { CAP = 512 * 4 };
	static struct sim_ref lines[CAP], pages[CAP];
	struct lace_seg_x *x = VG_(malloc)("lace.more.seg", nmore * sizeof(*x));

	tl_assert(n <= CAP / 4);
	for (UInt k = 0; k < nmore; k++) {
		struct sim_seg s;

		if (sim_seg_build(&more[k].m, insns, n, &s, lines, CAP, pages, CAP, NULL, 0, sa, sl))
			VG_(tool_panic)("lace-vg: segment buffer too small");
		/* + 1: VG_(malloc) of 0 bytes */
		sim_seg_keep(&x[k].s, &s, VG_(malloc)("lace.more.refs",
						      sim_seg_nrefs(&s) * sizeof(struct sim_ref) + 1));
		x[k].b.host8[0] = !sim_blk_build(&x[k].b, &more[k].m, &x[k].s);
	}
	return x;
}

/* sim_seg_run() of a segment without functions, in each other model */
VG_REGPARM(1) void lace_more_helper(struct lace_seg_x *x)
{
	for (UInt k = 0; k < nmore; k++, x++) {
		struct sim_model *m = &more[k].m;

		m->t.instructions += x->s.ninsn;
		m->t.l1i_loads += x->s.l1i_loads;
		m->t.itlb_loads += x->s.itlb_loads;
		if (x->b.host8[0]) {
			sim_blk_run_caches(m, &x->b, NULL);
			sim_blk_fetch(&m->fetch, &x->b);
			m->fetch.entries += x->s.fetch.empty_entries;
			m->fetch.late += x->s.fetch.seq_late;
		} else {
			sim_seg_run_caches_inline(m, &x->s);
			sim_fetch_seg_apply(&m->fetch, &x->s.fetch);
		}
	}
}

void more_totals_sync(void)
{
	for (UInt k = 0; k < nmore; k++)
		sim_model_fetch_sync(&more[k].m);
}

/* sum += now - start, counter by counter (every field is a ULong) */
static void span_add(struct sim_totals *sum, const struct sim_totals *now,
		     const struct sim_totals *start)
{
	ULong *s = (ULong *)sum;
	const ULong *n = (const ULong *)now, *b = (const ULong *)start;

	for (UInt i = 0; i < sizeof(*sum) / sizeof(ULong); i++)
		s[i] += n[i] - b[i];
}

void more_window_open(void)
{
	more_totals_sync();
	for (UInt k = 0; k < nmore; k++)
		more[k].window_start = more[k].m.t;
}

void more_window_close(void)
{
	more_totals_sync();
	for (UInt k = 0; k < nmore; k++)
		span_add(&more[k].window_sum, &more[k].m.t, &more[k].window_start);
}

void more_window_reset(void)
{
	for (UInt k = 0; k < nmore; k++)
		VG_(memset)(&more[k].window_sum, 0, sizeof(more[k].window_sum));
}

void more_fork_child(void)
{
	more_totals_sync();
	for (UInt k = 0; k < nmore; k++)
		more[k].inherited = more[k].m.t;
}

void more_reset_counts(void)
{
	for (UInt k = 0; k < nmore; k++)
		sim_model_reset_counts(&more[k].m);
}

void more_print(struct outbuf *o, Bool inherited, UInt windows, Bool window_open)
{
	HChar pfx[32];

	more_totals_sync();
	for (UInt k = 0; k < nmore; k++) {
		out_printf(o, "more %u %s\n", k + 1, more[k].name);
		if (inherited) {
			VG_(snprintf)(pfx, sizeof(pfx), "m%u-inherited-", k + 1);
			totals_print(o, pfx, &more[k].inherited);
		}
		VG_(snprintf)(pfx, sizeof(pfx), "m%u-", k + 1);
		totals_print(o, pfx, &more[k].m.t);
		if (windows) {
			struct sim_totals w = more[k].window_sum;

			if (window_open)
				span_add(&w, &more[k].m.t, &more[k].window_start);
			VG_(snprintf)(pfx, sizeof(pfx), "m%u-window-", k + 1);
			totals_print(o, pfx, &w);
		}
	}
}
