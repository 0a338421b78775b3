/* lace diff core on synthetic images: each pair differs in one known way and
 * the test asserts exactly the deltas and findings that way must produce. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/diff.h"
#include "tests/fixtures/diff/synth.h"

/* What varies between the base image and the variants. */
struct variant {
	uint64_t do_work_addr;      /* 0x1200 */
	const char *do_work_name;   /* "do_work" */
	uint64_t hot_path_addr;     /* 0x1080 */
	uint64_t helper_a_size;     /* 0x40 */
	bool swap_helpers;          /* b.c's helper first */
	bool slow_cold;             /* jump slow path in hot_path.cold (cold region) */
	uint64_t entry_start;       /* 0x9000 */
	bool extra_xbranch;         /* do_work calls into entry too */
	bool entry_in_text;         /* entry_SYSCALL_64 in .text, the entry markers enclosing nothing */
};

static const struct variant BASE = { 0x1200, "do_work", 0x1080, 0x40, false, false, 0x9000, false, false };

static void build(struct synth *s, const struct variant *v)
{
	synth_init(s);
	synth_region(s, ".text", 0x1000, 0x8000, LACE_REGION_SECTION);
	if (v->slow_cold)
		synth_region(s, "cold", 0x8000, 0x8100, LACE_REGION_COLD);
	int e = synth_region(s, "entry", v->entry_start, v->entry_start + 0x1000, LACE_REGION_MARKER);
	synth_markers(s, e, "__entry_text_start", "__entry_text_end");
	synth_func(s, "__entry_text_start", v->entry_start, 0, true, NULL);
	synth_func(s, "__entry_text_end", v->entry_start + 0x1000, 0, true, NULL);
	synth_func(s, "main", 0x1000, 0x80, true, NULL);
	synth_func(s, "hot_path", v->hot_path_addr, 0xf0, true, NULL);
	uint64_t ha = v->swap_helpers ? 0x11c0 : 0x1180, hb = v->swap_helpers ? 0x1180 : 0x11c0;
	synth_func(s, "helper", ha, v->helper_a_size, false, "a.c");
	synth_func(s, "helper", hb, 0x40, false, "b.c");
	synth_func(s, v->do_work_name, v->do_work_addr, 0x200, true, NULL);
	synth_func(s, "slow", 0x1400, 0x40, true, NULL);
	synth_func(s, "entry_SYSCALL_64", v->entry_in_text ? 0x1600 : v->entry_start, 0x100, true, NULL);
	if (v->slow_cold) {
		synth_func(s, "hot_path.cold", 0x8000, 0x40, false, "hot.c");
		synth_jump(s, v->hot_path_addr + 0x10, 0x8000, "key_a");
	} else {
		synth_jump(s, v->hot_path_addr + 0x10, v->hot_path_addr + 0x70, "key_a");
	}
	synth_branch(s, 0x1010, v->entry_start, LACE_BR_CALL);
	if (v->extra_xbranch)
		synth_branch(s, v->do_work_addr + 0x20, v->entry_start, LACE_BR_CALL);
	synth_finish(s);
}

struct pair {
	struct synth a, b;
	struct lace_hotset hs;
	struct lace_diff *d;
};

static void run_pair(struct pair *p, const struct variant *va, const struct variant *vb, const char *hot)
{
	struct lace_diff_opts o = LACE_DIFF_OPTS_DEFAULT;

	build(&p->a, va);
	build(&p->b, vb);
	memset(&p->hs, 0, sizeof(p->hs));
	if (hot) {
		assert_int_equal(hotset_parse(hot, &p->hs), 0);
		o.hot = &p->hs;
	}
	assert_int_equal(diff_images(&p->a.img, &p->b.img, &o, &p->d), 0);
}

static void pair_free(struct pair *p)
{
	diff_free(p->d);
	hotset_free(&p->hs);
	synth_free(&p->a);
	synth_free(&p->b);
}

static const struct lace_func_delta *delta(const struct lace_diff *d, const char *name, const char *file)
{
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct lace_func_delta *f = &d->funcs[i];
		const struct lace_function *fn = f->new_idx >= 0 ? &d->new->funcs[f->new_idx] : &d->old->funcs[f->old_idx];
		if (!strcmp(f->name, name) && (!file || (fn->file && !strcmp(fn->file, file))))
			return f;
	}
	return NULL;
}

static size_t count_rule(const struct lace_diff *d, enum lace_rule r)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nfindings; i++)
		n += d->findings[i].rule == r;
	return n;
}

static void test_identical(void **state)
{
	struct pair p;

	run_pair(&p, &BASE, &BASE, NULL);
	assert_int_equal(p.d->counts.changed, 0);
	assert_int_equal(p.d->counts.shifted, 0);
	assert_int_equal(p.d->counts.matched, 7); /* markers are not functions */
	assert_int_equal(p.d->nfindings, 0);
	assert_int_equal(diff_max_severity(p.d), -1);
	assert_int_equal(p.d->bloat.add + p.d->bloat.remove + p.d->bloat.grow + p.d->bloat.shrink, 0);
	assert_int_equal(p.d->bloat.net, 0);
	assert_int_equal(p.d->njumps, 1);
	assert_int_equal(p.d->jumps[0].changes, 0);
	/* default hot set: entry region + jump-label holders */
	assert_true(delta(p.d, "entry_SYSCALL_64", NULL)->hot);
	assert_true(delta(p.d, "hot_path", NULL)->hot);
	assert_false(delta(p.d, "main", NULL)->hot);
	pair_free(&p);
}

static void test_moved_to_entry(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.do_work_addr = 0x9100;
	run_pair(&p, &BASE, &v, NULL);
	const struct lace_func_delta *f = delta(p.d, "do_work", NULL);
	assert_non_null(f);
	assert_int_equal(f->changes & LACE_CH_REAL, LACE_CH_REGION);
	assert_int_equal(f->addr_delta, 0x9100 - 0x1200);
	assert_int_equal(p.d->counts.changed, 1);
	assert_int_equal(p.d->counts.region, 1);
	/* into the entry text: the purpose of such a patch, a note */
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_REGION), 0);
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_ENTER), 1);
	assert_string_equal(p.d->findings[0].subject, "do_work");
	assert_int_equal(p.d->findings[0].severity, LACE_SEV_INFO);
	/* now in entry: hot by default, and the entry region grew by its size */
	assert_true(f->hot);
	for (size_t i = 0; i < p.d->nregions; i++) {
		if (!strcmp(p.d->regions[i].name, "entry")) {
			assert_int_equal(p.d->regions[i].old_bytes, 0x100);
			assert_int_equal(p.d->regions[i].new_bytes, 0x300);
		}
		if (!strcmp(p.d->regions[i].name, ".text"))
			assert_int_equal(p.d->regions[i].new_bytes + 0x200, p.d->regions[i].old_bytes);
	}
	pair_free(&p);

	/* and back out of it: it can be probed again, an error */
	run_pair(&p, &v, &BASE, NULL);
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_REGION), 1);
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_ENTER), 0);
	assert_int_equal(diff_max_severity(p.d), LACE_SEV_ERROR);
	pair_free(&p);
}

/* The kprobes regression: the entry text dissolves into .text (its markers
 * enclose nothing).  Losing every function is no sign of a patch meaning
 * it: each leaver is a noprobe-region error, unless declared. */
static void test_entry_text_dissolves(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.entry_in_text = true;
	run_pair(&p, &BASE, &v, NULL);
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_REGION), 1);
	assert_int_equal(count_rule(p.d, LACE_RULE_REGION_CHANGE), 0);
	assert_string_equal(p.d->findings[0].subject, "entry_SYSCALL_64");
	assert_int_equal(p.d->findings[0].severity, LACE_SEV_ERROR);
	assert_non_null(strstr(p.d->findings[0].reason, "holds no function any more"));
	assert_int_equal(diff_max_severity(p.d), LACE_SEV_ERROR);
	pair_free(&p);

	/* declared with --expect: a note that fails nothing */
	struct lace_expect_set es = { 0 };
	struct lace_diff_opts o = LACE_DIFF_OPTS_DEFAULT;
	assert_int_equal(expect_add(&es, "entry=^entry_SYSCALL_64$"), 0);
	o.expect = &es;
	build(&p.a, &BASE);
	build(&p.b, &v);
	memset(&p.hs, 0, sizeof(p.hs));
	assert_int_equal(diff_images(&p.a.img, &p.b.img, &o, &p.d), 0);
	assert_int_equal(count_rule(p.d, LACE_RULE_NOPROBE_REGION), 1);
	assert_string_equal(p.d->findings[0].expected, "entry=^entry_SYSCALL_64$");
	assert_int_equal(p.d->findings[0].severity, LACE_SEV_INFO);
	assert_int_equal(diff_max_severity(p.d), -1); /* expected findings count for nothing */
	pair_free(&p);
	expect_release(&es);
}

static void test_realigned_hot(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.hot_path_addr = 0x1084;
	run_pair(&p, &BASE, &v, "hot_path 3\n");
	const struct lace_func_delta *f = delta(p.d, "hot_path", NULL);
	assert_int_equal(f->changes & LACE_CH_REAL, LACE_CH_REALIGNED);
	assert_int_equal(p.d->counts.changed, 1);
	assert_true(f->hot);
	assert_true(f->weight == 3);
	assert_int_equal(p.d->nfindings, 1);
	assert_int_equal(p.d->findings[0].rule, LACE_RULE_HOT_ALIGN_DROP);
	assert_int_equal(p.d->straddle_gained + p.d->straddle_lost, 0);
	assert_non_null(strstr(p.d->findings[0].reason, "128 -> 4"));
	pair_free(&p);

	/* 4 -> 2: never aligned to --min-align, so not a drop below it */
	struct variant w = BASE;
	v.hot_path_addr = 0x1084;
	w.hot_path_addr = 0x1082;
	run_pair(&p, &v, &w, "hot_path\n");
	assert_int_equal(delta(p.d, "hot_path", NULL)->changes & LACE_CH_REAL, LACE_CH_REALIGNED);
	assert_int_equal(p.d->nfindings, 0);
	pair_free(&p);
}

static void test_padded_across_page(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.do_work_addr = 0x1f80;
	run_pair(&p, &BASE, &v, "do_work\n");
	const struct lace_func_delta *f = delta(p.d, "do_work", NULL);
	assert_int_equal(f->changes & LACE_CH_REAL, LACE_CH_STRADDLE);
	assert_true(f->changes & LACE_CH_PADDED);
	assert_int_equal(p.d->counts.changed, 1);
	assert_int_equal(count_rule(p.d, LACE_RULE_HOT_PAGE_STRADDLE), 1);
	/* hot footprint: 8 lines either way, 1 -> 2 pages: beyond +10% */
	assert_int_equal(p.d->hot_old.lines, 8);
	assert_int_equal(p.d->hot_new.lines, 8);
	assert_int_equal(p.d->hot_old.pages, 1);
	assert_int_equal(p.d->hot_new.pages, 2);
	assert_int_equal(p.d->hot_new.ideal_pages, 1);
	assert_int_equal(count_rule(p.d, LACE_RULE_HOT_FOOTPRINT), 1);
	/* and the churn summary: one gained, none lost, one listed */
	assert_int_equal(count_rule(p.d, LACE_RULE_HOT_CHURN), 1);
	assert_int_equal(p.d->straddle_gained, 1);
	assert_int_equal(p.d->straddle_listed, 1);
	assert_int_equal(p.d->nfindings, 3);
	assert_int_equal(diff_max_severity(p.d), LACE_SEV_ERROR);
	pair_free(&p);
}

static void test_slowpath_cold_and_back(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.slow_cold = true;
	run_pair(&p, &BASE, &v, NULL);
	assert_int_equal(p.d->njumps, 1);
	const struct lace_jump_delta *j = &p.d->jumps[0];
	assert_int_equal(j->changes, LACE_JCH_REGION | LACE_JCH_DISTANCE);
	assert_true(j->old_hot);
	assert_false(j->new_hot);
	assert_string_equal(j->old_target_region, ".text");
	assert_string_equal(j->new_target_region, "cold");
	assert_int_equal(delta(p.d, "hot_path.cold", NULL)->changes, LACE_CH_ADDED);
	assert_false(delta(p.d, "hot_path.cold", NULL)->hot); /* cold pieces are never hot */
	assert_int_equal(p.d->counts.changed, 1);
	assert_int_equal(p.d->nfindings, 0);
	pair_free(&p);

	/* the other way round is the risk */
	run_pair(&p, &v, &BASE, NULL);
	assert_int_equal(p.d->jumps[0].changes, LACE_JCH_REGION | LACE_JCH_DISTANCE | LACE_JCH_HOT);
	assert_int_equal(delta(p.d, "hot_path.cold", NULL)->changes, LACE_CH_REMOVED);
	assert_int_equal(p.d->nfindings, 1);
	assert_int_equal(p.d->findings[0].rule, LACE_RULE_JUMP_SLOWPATH_HOT);
	assert_string_equal(p.d->findings[0].subject, "hot_path:key_a");
	pair_free(&p);
}

static void test_static_duplicate(void **state)
{
	struct pair p;
	struct variant v = BASE;

	/* the two static helpers swap places and a.c's one shrinks */
	v.swap_helpers = true;
	v.helper_a_size = 0x3c;
	run_pair(&p, &BASE, &v, NULL);
	const struct lace_func_delta *a = delta(p.d, "helper", "a.c"), *b = delta(p.d, "helper", "b.c");
	assert_int_equal(a->changes & LACE_CH_REAL, LACE_CH_RESIZED);
	assert_int_equal(a->size_delta, -4);
	assert_int_equal(a->addr_delta, 0x40);
	assert_int_equal(b->changes & LACE_CH_REAL, 0);
	assert_int_equal(b->addr_delta, -0x40);
	assert_int_equal(p.d->counts.changed, 1);
	/* bloat-o-meter sums equal names: helper 0x80 -> 0x7c */
	assert_int_equal(p.d->bloat.shrink, 1);
	assert_int_equal(p.d->bloat.down, 4);
	assert_int_equal(p.d->bloat.net, -4);
	pair_free(&p);
}

static void test_suffix_change(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.do_work_name = "do_work.isra.0";
	run_pair(&p, &BASE, &v, NULL);
	const struct lace_func_delta *f = delta(p.d, "do_work.isra.0", NULL);
	assert_non_null(f);
	assert_string_equal(f->old_name, "do_work");
	assert_int_equal(f->changes & LACE_CH_REAL, 0);
	assert_int_equal(p.d->counts.added, 0);
	assert_int_equal(p.d->counts.removed, 0);
	/* bloat-o-meter only strips ".N": do_work -> do_work.isra is add + remove */
	assert_int_equal(p.d->bloat.add, 1);
	assert_int_equal(p.d->bloat.remove, 1);
	assert_int_equal(p.d->bloat.net, 0);
	pair_free(&p);
}

static void test_markers_do_not_move(void **state)
{
	struct pair p;
	struct variant v = BASE;

	/* the entry region (and its markers) moves as a whole */
	v.entry_start = 0xa000;
	run_pair(&p, &BASE, &v, NULL);
	assert_null(delta(p.d, "__entry_text_start", NULL));
	assert_null(delta(p.d, "__entry_text_end", NULL));
	const struct lace_func_delta *f = delta(p.d, "entry_SYSCALL_64", NULL);
	assert_int_equal(f->changes, LACE_CH_SHIFTED);
	assert_int_equal(p.d->counts.changed, 0);
	assert_int_equal(p.d->nfindings, 0);
	pair_free(&p);
}

static void test_cross_region_branches(void **state)
{
	struct pair p;
	struct variant v = BASE;

	v.extra_xbranch = true;
	run_pair(&p, &BASE, &v, NULL);
	assert_int_equal(p.d->nxbranches, 1);
	assert_string_equal(p.d->xbranches[0].from, ".text");
	assert_string_equal(p.d->xbranches[0].to, "entry");
	assert_int_equal(p.d->xbranches[0].old_count, 1);
	assert_int_equal(p.d->xbranches[0].new_count, 2);
	assert_int_equal(p.d->nfindings, 1);
	assert_int_equal(p.d->findings[0].rule, LACE_RULE_CROSS_REGION);
	assert_int_equal(p.d->findings[0].severity, LACE_SEV_INFO);
	pair_free(&p);
}

static void test_hot_footprint_and_rules(void **state)
{
	struct pair p;
	struct variant v = BASE;
	struct lace_rule_config rc;
	struct lace_diff *d;
	struct lace_diff_opts o = LACE_DIFF_OPTS_DEFAULT;

	v.hot_path_addr = 0x5000;
	run_pair(&p, &BASE, &v, "main\nhot_path 2 # the fast path\n\nnot_there\n");
	/* main 0x1000+0x80 (2 lines) and hot_path 0x1080+0xf0 (4 lines) */
	assert_int_equal(p.d->hot_old.funcs, 2);
	assert_int_equal(p.d->hot_old.bytes, 0x170);
	assert_int_equal(p.d->hot_old.lines, 6);
	assert_int_equal(p.d->hot_old.pages, 1);
	assert_int_equal(p.d->hot_old.hugepages, 1);
	assert_int_equal(p.d->hot_old.ideal_lines, 6);
	assert_int_equal(p.d->hot_new.lines, 6);
	assert_int_equal(p.d->hot_new.pages, 2);
	assert_int_equal(p.d->hot_unmatched, 1);
	assert_int_equal(count_rule(p.d, LACE_RULE_HOT_FOOTPRINT), 1);

	/* switched off, and a looser threshold: no finding */
	rule_config_init(&rc);
	assert_int_equal(rule_config_set(&rc, "hot-footprint-growth=off"), 0);
	o.rules = &rc;
	o.hot = &p.hs;
	assert_int_equal(diff_images(&p.a.img, &p.b.img, &o, &d), 0);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_FOOTPRINT), 0);
	diff_free(d);
	o.rules = NULL;
	o.max_hot_growth = 1.0;
	assert_int_equal(diff_images(&p.a.img, &p.b.img, &o, &d), 0);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_FOOTPRINT), 0);
	diff_free(d);
	/* pages are counted at the rule page: with 2 MiB pages (x86-64
	 * kernel text) one more 4 KiB page is no growth, the lines did not grow */
	o.max_hot_growth = 0.10;
	o.page_size = 2u << 20;
	assert_int_equal(diff_images(&p.a.img, &p.b.img, &o, &d), 0);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_FOOTPRINT), 0);
	diff_free(d);
	pair_free(&p);
}

/* A uniform shift by 16 changes every function's address alignment by
 * accident; it is not a realignment.  -falign-functions=64 is. */
static void test_align_unit(void **state)
{
	struct synth a, b, c;
	struct lace_diff *d;
	char name[16];

	synth_init(&a);
	synth_init(&b);
	synth_init(&c);
	synth_region(&a, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_region(&b, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	synth_region(&c, ".text", 0x1000, 0x9000, LACE_REGION_SECTION);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		synth_func(&a, name, 0x1010 + 0x30 * i, 0x20, true, NULL);
		synth_func(&b, name, 0x1020 + 0x30 * i, 0x20, true, NULL);
		synth_func(&c, name, 0x1040 + 0x40 * i, 0x20, true, NULL);
	}
	synth_finish(&a);
	synth_finish(&b);
	synth_finish(&c);
	assert_int_equal(diff_images(&a.img, &b.img, NULL, &d), 0);
	assert_int_equal(d->align_unit, 16);
	assert_int_equal(d->counts.shifted, 10);
	assert_int_equal(d->counts.realigned, 0);
	diff_free(d);
	assert_int_equal(diff_images(&a.img, &c.img, NULL, &d), 0);
	assert_int_equal(d->align_unit, 64);
	/* old addresses 0x1010 + 0x30 i: 64-aligned only for i = 1, 5, 9 */
	assert_int_equal(d->counts.realigned, 7);
	diff_free(d);
	synth_free(&a);
	synth_free(&b);
	synth_free(&c);
}

/* Ten hot functions of half a page each, laid end to end, shifted by one
 * function: the even ones start to straddle a page, the odd ones stop, and
 * the hot set touches 6 pages before and after.  A stable update looks like
 * this by the hundred: one summary line, no per-function warning. */
static void halves(struct synth *s, uint64_t start, bool kernel)
{
	char name[16];

	synth_init(s);
	if (kernel) {
		s->img.arch = LACE_ARCH_X86_64;
		s->img.sections = xcalloc(1, sizeof(*s->img.sections));
		s->img.sections[0] = (struct lace_section){ .name = xstrdup(".text"), .addr = start & ~0xffffull,
							   .size = 0x10000, .code = true, .alloc = true };
		s->img.nsections = 1;
	}
	synth_region(s, ".text", start & ~0xffffull, (start & ~0xffffull) + 0x10000, LACE_REGION_SECTION);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		synth_func(s, name, start + 0x800 * (uint64_t)i, 0x800, true, NULL);
	}
	synth_finish(s);
}

static void test_straddle_churn_summarised(void **state)
{
	struct synth a, b;
	struct lace_hotset hs;
	struct lace_diff_opts o = LACE_DIFF_OPTS_DEFAULT;
	struct lace_diff *d;

	halves(&a, 0x1400, false);
	halves(&b, 0x1c00, false);
	assert_int_equal(hotset_parse("h0\nh1\nh2\nh3\nh4\nh5\nh6\nh7\nh8\nh9\n", &hs), 0);
	o.hot = &hs;
	assert_int_equal(diff_images(&a.img, &b.img, &o, &d), 0);
	assert_int_equal(d->counts.straddle, 10);
	assert_int_equal(d->hot_old.pages, 6);
	assert_int_equal(d->hot_new.pages, 6);
	assert_int_equal(d->straddle_gained, 5);
	assert_int_equal(d->straddle_lost, 5);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_PAGE_STRADDLE), 0);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_CHURN), 1);
	assert_int_equal(diff_max_severity(d), LACE_SEV_INFO);
	assert_non_null(strstr(d->findings[0].reason, "5 hot functions newly straddle a 4K page, 5 no longer do"));
	diff_free(d);
	hotset_free(&hs);

	/* a profile that puts most weight on h4: its own straddle is news */
	assert_int_equal(hotset_parse("h0\nh1\nh2\nh3\nh4 500\nh5\nh6\nh7\nh8\nh9\n", &hs), 0);
	o.hot = &hs;
	assert_int_equal(diff_images(&a.img, &b.img, &o, &d), 0);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_PAGE_STRADDLE), 1);
	assert_string_equal(d->findings[0].subject, "h4");
	assert_non_null(strstr(d->findings[0].reason, "heavy in the profile"));
	diff_free(d);
	hotset_free(&hs);
	synth_free(&a);
	synth_free(&b);
}

/* x86-64 kernel text is mapped with 2 MiB pages: the same shift in the
 * kernel half of the address space straddles no page at all. */
static void test_kernel_text_2m_pages(void **state)
{
	struct synth a, b, u;
	struct lace_hotset hs;
	struct lace_diff_opts o = LACE_DIFF_OPTS_DEFAULT;
	struct lace_diff *d;

	halves(&a, 0xffffffff81001400ull, true);
	halves(&b, 0xffffffff81001c00ull, true);
	halves(&u, 0x1400, true); /* x86-64, but user space */
	assert_int_equal(diff_rule_page(&a.img), 2u << 20);
	assert_int_equal(diff_rule_page(&u.img), 4096);
	assert_int_equal(hotset_parse("h0\nh1\nh2\nh3\nh4 500\nh5\nh6\nh7\nh8\nh9\n", &hs), 0);
	o.hot = &hs;
	assert_int_equal(diff_images(&a.img, &b.img, &o, &d), 0);
	assert_int_equal(d->rule_page[1], 2u << 20);
	assert_int_equal(d->counts.straddle, 10); /* 4 KiB geometry still shows */
	assert_int_equal(d->straddle_gained + d->straddle_lost, 0);
	assert_int_equal(d->nfindings, 0);
	diff_free(d);
	/* --page-size 4K puts the 4 KiB rule back */
	o.page_size = 4096;
	assert_int_equal(diff_images(&a.img, &b.img, &o, &d), 0);
	assert_int_equal(d->straddle_gained, 5);
	assert_int_equal(count_rule(d, LACE_RULE_HOT_PAGE_STRADDLE), 1);
	diff_free(d);
	hotset_free(&hs);
	synth_free(&a);
	synth_free(&b);
	synth_free(&u);
}

/* The default hot set: entry-path regions, innermost (irqentry nested in
 * entry, softirqentry, noinstr), and jump-label holders, but never init
 * text (freed after boot), .text.unlikely or the cold run. */
static void test_default_hot_set(void **state)
{
	struct synth s;
	struct lace_diff *d;
	static const char *const secs[] = { ".text", ".init.text", ".text.unlikely" };

	synth_init(&s);
	s.img.sections = xcalloc(3, sizeof(*s.img.sections));
	for (int i = 0; i < 3; i++)
		s.img.sections[i] = (struct lace_section){ .name = xstrdup(secs[i]), .addr = 0x10000 * (uint64_t)(i + 1),
							  .size = 0x10000, .code = true, .alloc = true };
	s.img.nsections = 3;
	int t = synth_region(&s, ".text", 0x10000, 0x20000, LACE_REGION_SECTION);
	int e = synth_region(&s, "entry", 0x11000, 0x13000, LACE_REGION_MARKER);
	int ie = synth_region(&s, "irqentry", 0x12000, 0x12800, LACE_REGION_MARKER);
	int si = synth_region(&s, "softirqentry", 0x12800, 0x13000, LACE_REGION_MARKER);
	int ni = synth_region(&s, "noinstr", 0x14000, 0x15000, LACE_REGION_MARKER);
	int c = synth_region(&s, "cold", 0x18000, 0x19000, LACE_REGION_COLD);
	synth_region(&s, ".init.text", 0x20000, 0x30000, LACE_REGION_SECTION);
	synth_region(&s, ".text.unlikely", 0x30000, 0x40000, LACE_REGION_SECTION);
	s.img.regions[e].parent = t;
	s.img.regions[ie].parent = e;
	s.img.regions[si].parent = e;
	s.img.regions[ni].parent = t;
	s.img.regions[c].parent = t;
	synth_func(&s, "plain", 0x10000, 0x40, true, NULL);
	synth_func(&s, "entry_SYSCALL_64", 0x11000, 0x100, true, NULL);
	synth_func(&s, "asm_exc_page_fault", 0x12000, 0x40, true, NULL);
	synth_func(&s, "__do_softirq", 0x12800, 0x40, true, NULL);
	synth_func(&s, "irqentry_enter", 0x14000, 0x40, true, NULL);
	synth_func(&s, "keyed", 0x16000, 0x40, true, NULL);
	synth_func(&s, "keyed_cold_run", 0x18000, 0x40, true, NULL);
	synth_func(&s, "init_keyed", 0x20000, 0x40, true, NULL);
	synth_func(&s, "unlikely_keyed", 0x30000, 0x40, true, NULL);
	synth_jump(&s, 0x16004, 0x16020, "k");
	synth_jump(&s, 0x18004, 0x18020, "k");
	synth_jump(&s, 0x20004, 0x20020, "k");
	synth_jump(&s, 0x30004, 0x30020, "k");
	synth_finish(&s);
	for (size_t i = 0; i < s.img.nfuncs; i++)
		s.img.funcs[i].section = (int)(s.img.funcs[i].addr / 0x10000) - 1;
	assert_int_equal(diff_images(&s.img, &s.img, NULL, &d), 0);
	assert_false(delta(d, "plain", NULL)->hot);
	assert_true(delta(d, "entry_SYSCALL_64", NULL)->hot);
	assert_true(delta(d, "asm_exc_page_fault", NULL)->hot);
	assert_true(delta(d, "__do_softirq", NULL)->hot);
	assert_true(delta(d, "irqentry_enter", NULL)->hot);
	assert_true(delta(d, "keyed", NULL)->hot);
	assert_false(delta(d, "keyed_cold_run", NULL)->hot);
	assert_false(delta(d, "init_keyed", NULL)->hot);
	assert_false(delta(d, "unlikely_keyed", NULL)->hot);
	/* own spans: entry's 0x2000 less irqentry's and softirqentry's */
	for (size_t i = 0; i < d->nregions; i++)
		if (!strcmp(d->regions[i].name, "entry"))
			assert_int_equal(d->regions[i].new_own, 0x1000);
	diff_free(d);
	synth_free(&s);
}

static void test_bad_model(void **state)
{
	struct synth s;
	struct lace_diff *d;

	build(&s, &BASE);
	s.img.funcs[0].region = 99;
	assert_true(diff_images(&s.img, &s.img, NULL, &d) < 0);
	assert_null(d);
	synth_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_moved_to_entry),
		cmocka_unit_test(test_entry_text_dissolves),
		cmocka_unit_test(test_realigned_hot),
		cmocka_unit_test(test_padded_across_page),
		cmocka_unit_test(test_slowpath_cold_and_back),
		cmocka_unit_test(test_static_duplicate),
		cmocka_unit_test(test_suffix_change),
		cmocka_unit_test(test_markers_do_not_move),
		cmocka_unit_test(test_cross_region_branches),
		cmocka_unit_test(test_hot_footprint_and_rules),
		cmocka_unit_test(test_align_unit),
		cmocka_unit_test(test_straddle_churn_summarised),
		cmocka_unit_test(test_kernel_text_2m_pages),
		cmocka_unit_test(test_default_hot_set),
		cmocka_unit_test(test_bad_model),
	};
	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
