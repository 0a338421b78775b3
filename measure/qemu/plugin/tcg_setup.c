/* The TCG plugin's arguments, installation and report at exit (the
 * execution and translation are lace_tcg_plugin.c's; the state they
 * share: tcg_plugin.h).
 *
 *   -plugin liblace-tcg.so,out=FILE[,map=System.map][,switch=0xADDR][,exc=0xADDR]...
 *           [,record=FILE]
 *           [,path=FUNCTION]...[,l1i_size=N,l1i_ways=N,l1i_line=N,itlb_entries=N,itlb_ways=N,
 *            stlb_entries=N,stlb_ways=N,page=N,fetch_block=N]
 *           [,profile=NAME[,l1i_size=N...]]...
 *
 * profile=NAME models one more CPU profile on the same blocks (the
 * geometry keys after it are its own): its window lines are "profile K
 * window N ..." (K from 1, in the order given), its events only.
 *
 * Output (out=): one "window N ..." line when each window closes
 * (tcg_split_format), then at exit one "fn NAME ..." line per kernel
 * function that ran inside a window (needs map=) and one "path NAME
 * calls=N inclusive=M interrupted=K l1i_misses=L itlb_misses=T" line
 * per path= function (misses inside the calls, callees included)
 * (tcg_paths_block), each followed by its calls' lengths, one "pathlen
 * NAME instructions=L calls=C interrupted=I" line per distinct length,
 * shortest first (I of the C calls took an asynchronous interrupt: a
 * block began at a vector tcg_is_async_vector names while they ran). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/qemu/plugin/qemu_plugin_v1.h"
#include "measure/qemu/plugin/tcg_plugin.h"
#include "measure/qemu/plugin/tcg_record.h"
#include "util/error.h"

void tcg_at_exit(qemu_plugin_id_t id, void *ud)
{
	tcg_finish();
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
	for (size_t k = 0; k < paths.n; k++) {
		const struct tcg_path_fn *f = &paths.fn[k];

		fprintf(out, "path %s calls=%" PRIu64 " inclusive=%" PRIu64 " interrupted=%" PRIu64
			" l1i_misses=%" PRIu64 " itlb_misses=%" PRIu64 "\n", f->name, f->calls,
			f->inclusive, f->interrupted, f->l1i_misses, f->itlb_misses);
		for (size_t j = 0; j < f->nlen; j++)
			fprintf(out, "pathlen %s instructions=%" PRIu64 " calls=%" PRIu64
				" interrupted=%" PRIu64 "\n", f->name, f->len[j].instructions,
				f->len[j].calls, f->len[j].interrupted);
	}
	tcg_paths_release(&paths);
	fprintf(out, "end windows=%u switches=%" PRIu64 "\n", window_no, switches);
	tcg_rec_close();
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
	static struct tcg_args args;
	struct sim_config cfg;
	const char *out_path, *map_path, *record_path, *what, *why;
	const char **path_names = args.path;
	size_t npath;
	int a;
	static uint64_t *l1i, *itlb, *stlb, *litlb;
	uint64_t nl, ni, ns, nlt;

	if (tcg_args_parse(argc, argv, &args))
		return fail(lace_error_msg(), NULL);
	cfg = args.cfg;
	out_path = args.out;
	map_path = args.map;
	record_path = args.record;
	npath = args.npath;
	switch_addr = args.switch_addr;
	null_exec = getenv("LACE_TCG_NULL_EXEC") != NULL;
	for (size_t i = 0; i < args.nexc; i++)
		exc_addr[nexc++] = args.exc[i];
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
	paths.totals = &model.t;   /* the misses are counted live (model.c) */
	if (npath) {
		irq_vec = calloc(map.n ? map.n : 1, sizeof(*irq_vec));
		if (!irq_vec)
			return fail("out of memory", NULL);
		for (size_t i = 0; i < map.n; i++)
			if (tcg_is_async_vector(arch, map.syms[i].name))
				irq_vec[nirq++] = vec_key(map.syms[i].addr);
	}
	out = fopen(out_path, "w");
	if (!out)
		return fail(strerror(errno), out_path);
	if (record_path && tcg_rec_open(record_path))
		return fail(strerror(errno), record_path);
	fprintf(out, "# lace-tcg 1 target=%s\n", info->target_name);
	fflush(out);
	sim_model_ntags(&cfg, &nl, &ni, &ns, &nlt);
	/* 128-byte aligned: a set's tags and stamps are two adjacent host
	 * cache lines (cache.h) */
	if (posix_memalign((void **)&l1i, 128, nl * sizeof(*l1i)) ||
	    posix_memalign((void **)&itlb, 128, ni * sizeof(*itlb)) ||
	    posix_memalign((void **)&stlb, 128, (ns ? ns : 1) * sizeof(*stlb)) ||
	    posix_memalign((void **)&litlb, 128, (nlt ? nlt : 1) * sizeof(*litlb)))
		return fail("out of memory", NULL);
	sim_model_init(&model, &cfg, l1i, itlb, stlb, litlb);
	for (size_t k = 0; k < args.nmore; k++) {
		uint64_t *tags;

		if (sim_config_check(&args.more[k], &what, &why))
			return fail(why, args.more_name[k]);
		sim_model_ntags(&args.more[k], &nl, &ni, &ns, &nlt);
		if (posix_memalign((void **)&tags, 128, (nl + ni + ns + nlt + 48) * sizeof(*tags)))
			return fail("out of memory", NULL);
		/* each array on 128 bytes (cache.h) */
		uint64_t *a = tags, *b = a + ((nl + 15) & ~(uint64_t)15);
		uint64_t *c = b + ((ni + 15) & ~(uint64_t)15), *d = c + ((ns + 15) & ~(uint64_t)15);
		xprof[k].name = args.more_name[k];
		sim_model_init(&xprof[k].m, &args.more[k], a, b, ns ? c : NULL, nlt ? d : NULL);
		nxprof++;
	}
	user_limit = tcg_user_page_limit(cfg.page);
	plugin_id = id;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans_boot);
	qemu_plugin_register_atexit_cb(id, tcg_at_exit, NULL);
	return 0;
}
