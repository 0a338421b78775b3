/* lace's TCG plugin: lace's front-end models (measure/sim: L1i, iTLB,
 * STLB, fetch blocks; compiled in, the same code as the Valgrind tool's)
 * fed with every instruction a full-system QEMU guest executes inside the
 * windows the guest opens and closes (tcg_core.h), counts split user/kernel.
 *
 *   -plugin liblace-tcg.so,out=FILE[,map=System.map][,switch=0xADDR]
 *           [,path=FUNCTION]...[,l1i_size=N,l1i_ways=N,l1i_line=N,itlb_entries=N,itlb_ways=N,
 *            stlb_entries=N,stlb_ways=N,page=N,fetch_block=N]
 *
 * Each translation block is compiled once, at translation, into a model
 * segment (its distinct lines and pages, sim_seg_build), and costs one
 * callback per execution.  The L1i is looked up by the host address of the
 * guest's code (guest RAM is one page-aligned host mapping, so this is the
 * guest-physical line: processes sharing virtual addresses do not alias);
 * the TLBs by the guest-virtual page.  QEMU shows no CR3/PCID, so the
 * non-global (user) TLB entries are flushed whenever the guest enters its
 * context-switch function (switch=, found by the caller in System.map).
 *
 * Output (out=): one "window N ..." line when each window closes
 * (tcg_split_format), then at exit one "fn NAME ..." line per kernel
 * function that ran inside a window (needs map=) and one "path NAME
 * calls=N inclusive=M" line per path= function (tcg_paths_block).
 *
 * Guests: x86_64 and ppc64 (little-endian).  On ppc64 callers in the
 * kernel enter most functions at their local entry point, 8 bytes past
 * the System.map address; a block starting there counts as an entry when
 * the function's first two instructions set up the TOC. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/qemu/plugin/qemu_plugin_v1.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/sim/model.h"

LACE_QEMU_PLUGIN_EXPORT int qemu_plugin_version = LACE_QEMU_PLUGIN_VERSION;

/* one translated block, compiled */
struct tb_info {
	struct sim_seg seg;
	int kernel;
	int is_switch;
	uint64_t vaddr;
	long path_fn;        /* the path= function this block enters, or -1 */
	uint64_t call_ret;   /* ends in a call returning here, or 0 */
};

static struct sim_model model;
static struct sim_totals last;
static struct tcg_split win;
static int window_open;
static int cur_kernel;   /* the side the model's counts since `last` belong to */
static unsigned window_no;
static uint64_t switch_addr;
static uint64_t user_limit;
static FILE *out;
static struct symmap map;
static struct sim_fn_stats *fn_stats;   /* map.n, by symbol index */
static uint64_t switches;
static enum tcg_arch arch;
static struct tcg_paths paths;
static long *path_sym;   /* paths.n symbol indices */

static void tb_exec(unsigned int vcpu, void *ud)
{
	struct tb_info *t = ud;

	if (!window_open)
		return;
	if (t->is_switch) {
		/* a new address space may follow: forget the user pages */
		sim_cache_flush_below(&model.itlb, user_limit);
		if (model.has_stlb)
			sim_cache_flush_below(&model.stlb, user_limit);
		switches++;
	}
	if (paths.n)
		tcg_paths_block(&paths, t->vaddr, t->path_fn, t->call_ret, model.t.instructions);
	/* the split is taken when the side changes, not after every block:
	 * a per-block copy of the totals cost as much as the model */
	if (t->kernel != cur_kernel) {
		tcg_split_account(&win, cur_kernel, &model.t, &last);
		cur_kernel = t->kernel;
	}
	sim_seg_run(&model, &t->seg);
}

static void mark_open(unsigned int vcpu, void *ud)
{
	if (window_open)
		return;
	window_open = 1;
	window_no++;
	memset(&win, 0, sizeof(win));
	last = model.t;
	cur_kernel = 0;   /* the marker runs in user space */
}

static void mark_close(unsigned int vcpu, void *ud)
{
	char line[1024];

	if (!window_open)
		return;
	window_open = 0;
	tcg_split_account(&win, cur_kernel, &model.t, &last);
	tcg_split_format(line, sizeof(line), window_no, &win);
	fputs(line, out);
	fflush(out);
}

/* Does the instruction at va (host copy ha) enter symbol s? */
static int is_entry(const struct symmap_sym *s, uint64_t va, const void *ha)
{
	if (s->addr == va)
		return 1;
	/* the global entry's 8 bytes lie just before, on the same guest page
	 * (so in the same host mapping) */
	if (arch != TCG_ARCH_PPC64 || va != s->addr + 8 || !ha || (va & 0xfff) < 8)
		return 0;
	return tcg_ppc64_has_local_entry((const uint8_t *)ha - 8);
}

static enum tcg_mark mark_at(struct qemu_plugin_tb *tb, size_t i, size_t n,
			     struct qemu_plugin_insn *insn, size_t len)
{
	if (arch == TCG_ARCH_PPC64) {
		if (i + 1 >= n || len != 4 || qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i + 1)) != 4)
			return TCG_MARK_NONE;
		return tcg_mark_kind_ppc64(qemu_plugin_insn_data(insn),
					   qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i + 1)));
	}
	return tcg_mark_kind(qemu_plugin_insn_data(insn), len);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint32_t cap_l, cap_p, nfns = 0;
	struct sim_insn *iv, *ih;
	struct sim_ref *lines, *pages, *tmp_l, *tmp_p;
	struct sim_seg_fn *fns;
	struct sim_seg segh;
	struct tb_info *t;
	uint64_t *sa;
	uint32_t *sl;
	long fn_sym[64];

	if (!n)
		return;
	cap_l = (uint32_t)n * sim_seg_refs_per_insn(model.cfg.l1i_line, 16);
	cap_p = (uint32_t)n * sim_seg_refs_per_insn((uint32_t)model.cfg.page, 16);
	t = calloc(1, sizeof(*t));
	iv = calloc(n, sizeof(*iv));
	ih = calloc(n, sizeof(*ih));
	lines = calloc(cap_l, sizeof(*lines));
	pages = calloc(cap_p, sizeof(*pages));
	tmp_l = calloc(cap_l, sizeof(*tmp_l));
	tmp_p = calloc(cap_p, sizeof(*tmp_p));
	fns = calloc(64, sizeof(*fns));
	sa = calloc(n, sizeof(*sa));
	sl = calloc(n, sizeof(*sl));
	if (!t || !iv || !ih || !lines || !pages || !tmp_l || !tmp_p || !fns || !sa || !sl)
		abort();   /* QEMU itself aborts on allocation failure */

	t->vaddr = qemu_plugin_tb_vaddr(tb);
	t->kernel = tcg_is_kernel(t->vaddr);
	t->is_switch = switch_addr && t->vaddr == switch_addr;
	t->path_fn = -1;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		void *ha = qemu_plugin_insn_haddr(insn);
		size_t len = qemu_plugin_insn_size(insn);
		long sym = map.n && tcg_is_kernel(va) ? symmap_lookup(&map, va) : -1;
		uint16_t slot = 0xffff;

		switch (mark_at(tb, i, n, insn, len)) {
		case TCG_MARK_OPEN:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_open,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
			break;
		case TCG_MARK_CLOSE:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_close,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
			break;
		default:
			break;
		}
		if (sym >= 0) {
			for (uint32_t f = 0; f < nfns; f++)
				if (fn_sym[f] == sym)
					slot = (uint16_t)f;
			if (slot == 0xffff && nfns < 64) {
				fn_sym[nfns] = sym;
				fns[nfns].stats = &fn_stats[sym];
				slot = (uint16_t)nfns++;
			}
		}
		iv[i].addr = va;
		iv[i].len = (uint32_t)len;
		iv[i].fn = slot;
		iv[i].entry = sym >= 0 && is_entry(&map.syms[sym], va, ha);
		if (i == 0 && iv[i].entry)
			for (size_t k = 0; k < paths.n; k++)
				if (path_sym[k] == sym)
					t->path_fn = (long)k;
		if (i == n - 1 && tcg_insn_is_call(arch, qemu_plugin_insn_data(insn), len))
			t->call_ret = va + len;
		ih[i] = iv[i];
		/* MMIO code has no host address: fall back to the virtual one */
		ih[i].addr = ha ? (uint64_t)(uintptr_t)ha : va;
	}
	/* lines from the host (physical) addresses, pages and fetch blocks
	 * from the virtual ones: two compilations, one segment */
	if (sim_seg_build(&model, ih, (uint32_t)n, &segh, lines, cap_l, tmp_p, cap_p, fns, nfns,
			  sa, sl) ||
	    sim_seg_build(&model, iv, (uint32_t)n, &t->seg, tmp_l, cap_l, pages, cap_p, fns, nfns,
			  sa, sl))
		abort();   /* the caps hold every lookup: cannot happen */
	t->seg.lines = segh.lines;
	t->seg.nlines = segh.nlines;
	t->seg.l1i_loads = segh.l1i_loads;
	free(tmp_l);
	free(tmp_p);
	free(iv);
	free(ih);
	free(sa);
	free(sl);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
	if (window_open)
		mark_close(0, NULL);
	for (size_t i = 0; i < map.n; i++) {
		const struct sim_fn_stats *s = &fn_stats[i];

		if (!s->instructions)
			continue;
		fprintf(out,
			"fn %s instructions=%" PRIu64 " l1i_misses=%" PRIu64
			" itlb_misses=%" PRIu64 " stlb_misses=%" PRIu64 " calls=%" PRIu64 "\n",
			map.syms[i].name, s->instructions, s->l1i_misses, s->itlb_misses,
			s->stlb_misses, s->calls);
	}
	for (size_t k = 0; k < paths.n; k++)
		fprintf(out, "path %s calls=%" PRIu64 " inclusive=%" PRIu64 "\n", paths.fn[k].name,
			paths.fn[k].calls, paths.fn[k].inclusive);
	fprintf(out, "end windows=%u switches=%" PRIu64 "\n", window_no, switches);
	fclose(out);
}

static int fail(const char *msg, const char *arg)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "lace-tcg: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	qemu_plugin_outs(buf);
	return -1;
}

LACE_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
						int argc, char **argv)
{
	/* a Skylake-like front end unless the caller says otherwise (lace
	 * passes its CPU profile) */
	struct sim_config cfg = {
		.l1i_size = 32768, .l1i_ways = 8, .l1i_line = 64,
		.itlb_entries = 128, .itlb_ways = 8, .stlb_entries = 1536, .stlb_ways = 12,
		.page = 4096, .fetch_block = 16,
	};
	const char *out_path = NULL, *map_path = NULL, *what, *why;
	static const char *path_names[64];
	size_t npath = 0;
	int a;
	static uint64_t *l1i, *itlb, *stlb;
	uint64_t nl, ni, ns;

	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *v;
		unsigned long long x;

		if (!eq)
			return fail("argument is not key=value", argv[i]);
		*eq = '\0';
		v = eq + 1;
		x = strtoull(v, NULL, 0);
		if (!strcmp(k, "out"))
			out_path = v;
		else if (!strcmp(k, "map"))
			map_path = v;
		else if (!strcmp(k, "path") && npath < 64)
			path_names[npath++] = v;
		else if (!strcmp(k, "switch"))
			switch_addr = x;
		else if (!strcmp(k, "l1i_size"))
			cfg.l1i_size = x;
		else if (!strcmp(k, "l1i_ways"))
			cfg.l1i_ways = (uint32_t)x;
		else if (!strcmp(k, "l1i_line"))
			cfg.l1i_line = (uint32_t)x;
		else if (!strcmp(k, "itlb_entries"))
			cfg.itlb_entries = (uint32_t)x;
		else if (!strcmp(k, "itlb_ways"))
			cfg.itlb_ways = (uint32_t)x;
		else if (!strcmp(k, "stlb_entries"))
			cfg.stlb_entries = (uint32_t)x;
		else if (!strcmp(k, "stlb_ways"))
			cfg.stlb_ways = (uint32_t)x;
		else if (!strcmp(k, "page"))
			cfg.page = x;
		else if (!strcmp(k, "fetch_block"))
			cfg.fetch_block = (uint32_t)x;
		else
			return fail("unknown argument", k);
	}
	if (!info->system_emulation)
		return fail("needs full-system emulation (qemu-system-*)", NULL);
	if (!out_path)
		return fail("missing out=FILE", NULL);
	a = tcg_arch_from_target(info->target_name);
	if (a < 0)
		return fail("guest architecture not supported (x86_64, ppc64)", info->target_name);
	arch = (enum tcg_arch)a;
	if (sim_config_check(&cfg, &what, &why))
		return fail(why, what);
	if (map_path) {
		if (symmap_load(&map, map_path))
			return fail("cannot read the System.map", map_path);
		fn_stats = calloc(map.n, sizeof(*fn_stats));
		if (!fn_stats)
			return fail("out of memory", NULL);
	}
	if (npath && !map_path)
		return fail("path= needs map=", NULL);
	paths.fn = calloc(npath ? npath : 1, sizeof(*paths.fn));
	path_sym = calloc(npath ? npath : 1, sizeof(*path_sym));
	if (!paths.fn || !path_sym)
		return fail("out of memory", NULL);
	for (size_t k = 0; k < npath; k++) {
		uint64_t addr = symmap_addr(&map, path_names[k]);

		if (!addr)
			return fail("path= function not in the System.map", path_names[k]);
		path_sym[k] = symmap_lookup(&map, addr);
		paths.fn[k].name = path_names[k];
	}
	paths.n = npath;
	out = fopen(out_path, "w");
	if (!out)
		return fail(strerror(errno), out_path);
	fprintf(out, "# lace-tcg 1 target=%s\n", info->target_name);
	fflush(out);
	sim_model_ntags(&cfg, &nl, &ni, &ns);
	l1i = calloc(nl, sizeof(*l1i));
	itlb = calloc(ni, sizeof(*itlb));
	stlb = calloc(ns ? ns : 1, sizeof(*stlb));
	if (!l1i || !itlb || !stlb)
		return fail("out of memory", NULL);
	sim_model_init(&model, &cfg, l1i, itlb, stlb);
	user_limit = tcg_user_page_limit(cfg.page);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
