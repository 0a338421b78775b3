/* The simulator backend: CPU profiles and overrides, the result-file
 * parser, and (when the Valgrind tool is built) one real run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/backend.h"
#include "measure/cpu_profile.h"
#include "measure/model/model.h"
#include "measure/model_results.h"
#include "util/error.h"
#include "util/paths.h"

/* build/tests/test_sim_backend -> the source tree's profiles */
static int setup(void **state)
{
	const char *exe = paths_exe_dir();
	char dir[PATH_MAX + 64];

	if (exe && !getenv("LACE_PROFILE_DIR")) {
		snprintf(dir, sizeof(dir), "%s/../../measure/model/profiles", exe);
		setenv("LACE_PROFILE_DIR", dir, 1);
	}
	return 0;
}

static void test_profiles_load(void **state)
{
	const char *names[] = { "skylake-client", "golden-cove", "zen3", "power9" };
	struct sim_profile p;

	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(sim_profile_load(names[i], &p), 0);
		assert_string_equal(p.name, names[i]);
		assert_int_equal(p.cfg.l1i_size, 32768);
		assert_int_equal(p.cfg.l1i_ways, 8);
	}
	assert_int_equal(sim_profile_load("power9", &p), 0);
	assert_int_equal(p.cfg.l1i_line, 128);
	assert_int_equal(p.cfg.page, 65536);
	assert_int_equal(sim_profile_load("skylake-client", &p), 0);
	assert_int_equal(p.cfg.itlb_entries, 128);
	assert_int_equal(p.cfg.stlb_entries, 1536);
	assert_int_equal(p.cfg.stlb_ways, 12);
	/* the hosts' built-in default (measure/model/model.h) is this profile */
	const struct sim_config sky = SIM_CONFIG_SKYLAKE;
	assert_int_equal(p.cfg.l1i_size, sky.l1i_size);
	assert_int_equal(p.cfg.l1i_ways, sky.l1i_ways);
	assert_int_equal(p.cfg.l1i_line, sky.l1i_line);
	assert_int_equal(p.cfg.itlb_entries, sky.itlb_entries);
	assert_int_equal(p.cfg.itlb_ways, sky.itlb_ways);
	assert_int_equal(p.cfg.stlb_entries, sky.stlb_entries);
	assert_int_equal(p.cfg.stlb_ways, sky.stlb_ways);
	assert_int_equal(p.cfg.page, sky.page);
	assert_int_equal(p.cfg.fetch_block, sky.fetch_block);
	assert_int_equal(p.cfg.large_page, sky.large_page);
	assert_int_equal(p.cfg.litlb_entries, sky.litlb_entries);
	assert_int_equal(p.cfg.litlb_ways, sky.litlb_ways);
	assert_int_equal(p.cfg.stlb_large, sky.stlb_large);
	/* the seed's machine: Nehalem's 4-way L1i, 7 large-page entries, an
	 * STLB of 4 KiB pages only */
	assert_int_equal(sim_profile_load("nehalem", &p), 0);
	assert_int_equal(p.cfg.l1i_ways, 4);
	assert_int_equal(p.cfg.litlb_entries, 7);
	assert_int_equal(p.cfg.stlb_entries, 512);
	assert_int_equal(p.cfg.stlb_large, 0);
	assert_int_equal(p.cfg.large_page, 2 << 20);
	/* --kernel-page 4K: the kernel's text in the ordinary pages */
	assert_int_equal(sim_profile_set_kernel_page(&p, "4K"), 0);
	assert_int_equal(p.cfg.large_page, 0);
	assert_int_equal(sim_profile_set_kernel_page(&p, "2M"), 0);
	assert_int_equal(p.cfg.large_page, 2 << 20);
	assert_int_equal(sim_profile_load("power9", &p), 0);
	assert_int_equal(sim_profile_set_kernel_page(&p, "16M"), -EINVAL);   /* no large-page TLB */
	assert_int_equal(sim_profile_load("zen3", &p), 0);
	assert_int_equal(p.cfg.itlb_ways, 64);   /* fully associative */

	assert_int_equal(sim_profile_load("nehalem-xx", &p), -ENOENT);
	assert_non_null(strstr(lace_error_msg(), "unknown CPU profile"));
	assert_int_not_equal(sim_profile_load("../etc", &p), 0);
}

static void test_bad_profile_file(void **state)
{
	char path[] = "/tmp/lace-prof-XXXXXX";
	int fd = mkstemp(path);
	struct sim_profile p;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("[l1i]\nsize = 32768\nways = 8\nline = 64\n[itlb]\nentries = 64\nways = 3\n"
	      "[page]\nsize = 4096\n[fetch]\nblock = 16\n", f);
	fclose(f);
	assert_int_equal(sim_profile_load(path, &p), -EINVAL);   /* 64/3 ways */
	assert_non_null(strstr(lace_error_msg(), "itlb"));
	f = fopen(path, "w");
	fputs("[l1i]\nsize = lots\n", f);
	fclose(f);
	assert_int_equal(sim_profile_load(path, &p), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "line 2"));
	unlink(path);
}

static void test_overrides(void **state)
{
	struct sim_profile p;

	assert_int_equal(sim_profile_load("skylake-client", &p), 0);
	assert_int_equal(sim_profile_set_l1i(&p, "16k,4,64"), 0);
	assert_int_equal(p.cfg.l1i_size, 16384);
	assert_int_equal(sim_profile_set_itlb(&p, "64,4"), 0);
	assert_int_equal(sim_profile_set_stlb(&p, "0"), 0);
	assert_int_equal(p.cfg.stlb_entries, 0);
	assert_int_equal(sim_profile_set_page(&p, "2M"), 0);
	assert_int_equal(p.cfg.page, 2 << 20);
	assert_int_equal(sim_profile_check(&p), 0);
	assert_int_equal(sim_profile_set_l1i(&p, "32768,8"), -EINVAL);
	assert_int_equal(sim_profile_set_itlb(&p, "64,-4"), -EINVAL);
	assert_int_equal(sim_profile_set_fetch_block(&p, "x"), -EINVAL);
	assert_int_equal(sim_profile_set_l1i(&p, "30000,8,64"), 0);
	assert_int_equal(sim_profile_check(&p), -EINVAL);        /* sets not a power of 2 */
}

static const char good[] =
	"lace-vg 1\npid 42\nppid 41\nimage 0\nend exit\nexe /bin/x y\nprofile zen3\n"
	"l1i 32768 8 64\nitlb 64 64\nstlb 512 8\npage 4096\nfetch-block 32\n"
	"forked-from 41\ninherited-instructions 5\n"
	"instructions 1000\nL1-icache-loads 1010\nL1-icache-load-misses 7\niTLB-loads 1000\n"
	"iTLB-load-misses 3\nstlb-loads 3\nstlb-misses 2\nfetch-blocks 300\nfetch-late-entries 9\n"
	"fn 600 5 2 1 10 1000 main\nfn 400 2 1 1 0 0 operator new(unsigned long)\ndone\n";

static void test_result_parse(void **state)
{
	struct sim_proc p;
	char *bad;

	assert_int_equal(sim_proc_parse(good, &p), 0);
	assert_int_equal(p.pid, 42);
	assert_int_equal(p.forked_from, 41);
	assert_int_equal(p.inherited.instructions, 5);
	assert_int_equal(p.t.instructions, 1000);
	assert_int_equal(p.t.l1i_misses, 7);
	assert_int_equal(p.t.fetch_late, 9);
	assert_string_equal(p.exe, "/bin/x y");
	assert_int_equal(p.nfns, 2);
	assert_string_equal(p.fns[1].name, "operator new(unsigned long)");
	assert_int_equal(p.fns[0].s.calls, 10);
	assert_int_equal(p.fns[0].inclusive, 1000);
	for (size_t i = 0; i < p.nfns; i++)
		free(p.fns[i].name);
	free(p.fns);

	/* a killed process leaves no "done" line */
	bad = strdup(good);
	*strstr(bad, "done") = '\0';
	assert_int_equal(sim_proc_parse(bad, &p), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "truncated"));
	assert_null(p.fns);
	free(bad);
	assert_int_equal(sim_proc_parse("lace-vg 1\ninstructions 12x\ndone\n", &p), -EINVAL);
	assert_int_equal(sim_proc_parse("lace-vg 1\nfn 1 2 3 4 5 main\ndone\n", &p), -EINVAL);
	assert_int_equal(sim_proc_parse("cachegrind 1\n", &p), -EINVAL);
	assert_int_equal(sim_proc_parse("", &p), -EINVAL);
	assert_int_equal(sim_event_index("stlb-misses"), 6);
	assert_int_equal(sim_event_index("cycles"), -1);

	/* the other profiles of one run (--lace-more): "more K NAME", then
	 * their counts as "mK-..." */
	assert_int_equal(sim_proc_parse("lace-vg 1\ninstructions 10\nmore 1 nehalem\n"
					"m1-instructions 10\nm1-L1-icache-load-misses 4\n"
					"m1-window-fetch-blocks 3\nmore 2 zen3\nm2-inherited-stlb-misses 2\n"
					"done\n", &p), 0);
	assert_int_equal(p.nmore, 2);
	assert_string_equal(p.more[0].name, "nehalem");
	assert_int_equal(p.more[0].t.instructions, 10);
	assert_int_equal(p.more[0].t.l1i_misses, 4);
	assert_int_equal(p.more[0].window.fetch_blocks, 3);
	assert_string_equal(p.more[1].name, "zen3");
	assert_int_equal(p.more[1].inherited.stlb_misses, 2);
	free(p.fns);
	assert_int_equal(sim_proc_parse("lace-vg 1\nm1-instructions 10\ndone\n", &p), -EINVAL);
	assert_int_equal(sim_proc_parse("lace-vg 1\nmore 2 x\ndone\n", &p), -EINVAL);
}

/* --cpu-profile A,B: each loaded, in order, names unique */
static void test_profile_list(void **state)
{
	struct sim_profile p[SIM_MAX_PROFILES];
	size_t n;

	assert_int_equal(sim_profile_list_load("skylake-client,nehalem,zen3", p, SIM_MAX_PROFILES,
					       &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(p[1].name, "nehalem");
	assert_string_equal(p[2].name, "zen3");
	assert_int_equal(sim_profile_list_load("zen3", p, SIM_MAX_PROFILES, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sim_profile_list_load("zen3,zen3", p, SIM_MAX_PROFILES, &n), -EINVAL);
	assert_string_equal(lace_error_msg(), "--cpu-profile: zen3 twice");
	assert_int_equal(sim_profile_list_load("zen3,", p, SIM_MAX_PROFILES, &n), -EINVAL);
	assert_int_equal(sim_profile_list_load("zen3,nope", p, SIM_MAX_PROFILES, &n), -ENOENT);
	assert_int_equal(sim_profile_list_load("zen3,zen3", p, 1, &n), -EINVAL);
}

/* make builds the Valgrind tool whenever Debian's valgrind package (its
 * static archives, the binary) is installed: only its absence, an external
 * prerequisite, excuses a run; a missing tool is a failure */
#define VG_ARCHIVE "/usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a"

static void test_backend_run(void **state)
{
	struct lace_backend *be = vg_backend_new();
	struct lace_event_spec evs[3];

	if (!be) {
		if (access(VG_ARCHIVE, R_OK) || (access("/usr/bin/valgrind", X_OK) &&
						 access("/bin/valgrind", X_OK))) {
			print_message("skipped: valgrind not installed (Debian package valgrind)\n");
			skip();
		}
		fail_msg("valgrind is installed but the simulator backend is not: %s",
			 vg_backend_unavailable());
	}
	const char *names[] = { "instructions", "L1-icache-load-misses", "cycles" };
	struct lace_run_opts opts = { .follow_children = true, .timeout_s = 120 };
	struct lace_run_result res;
	char *argv[] = { "/bin/true", NULL };
	const char *why;

	memset(evs, 0, sizeof(evs));
	for (int i = 0; i < 3; i++) {
		evs[i].name = evs[i].base = (char *)names[i];
		evs[i].backend = be;
	}
	assert_true(be->supports(be, &evs[0], &why));
	assert_false(be->supports(be, &evs[2], &why));
	evs[2].backend = NULL;
	assert_int_equal(be->set_option(be, "cpu-profile", "zen3"), 0);
	assert_int_equal(be->set_option(be, "cpu-profile", "nope"), -EINVAL);
	assert_int_equal(be->set_option(be, "l1i", "30000,8,64"), -EINVAL);
	assert_int_equal(be->set_option(be, "itlb", "64,3"), -EINVAL);
	assert_int_equal(be->set_option(be, "stlb", "0"), 0);
	assert_int_equal(be->set_option(be, "page-size", "3000"), -EINVAL);
	assert_int_equal(be->set_option(be, "l1i", "16384,4,64"), 0);
	assert_int_equal(be->set_option(be, "top", "0"), -EINVAL);
	assert_int_equal(be->set_option(be, "per-function", NULL), 0);
	assert_int_equal(be->set_option(be, "repeat", "3"), -ENOENT);
	assert_string_equal(be->describe(be), "sim (zen3, l1i 16384,4,64, stlb 0)");
	if (be->prepare(be, evs, 3))
		fail_msg("prepare: %s", lace_error_msg());
	run_result_init(&res, 3);
	assert_int_equal(be->run(be, argv, &opts, &res), 0);
	assert_int_equal(res.fault, LACE_FAULT_NONE);
	assert_int_equal(res.counts[0].status, LACE_COUNT_OK);
	assert_true(res.counts[0].raw > 10000);
	assert_true(res.counts[1].raw > 0 && res.counts[1].raw < res.counts[0].raw);
	assert_int_equal(res.counts[2].status, LACE_COUNT_NOT_COUNTED);
	assert_int_equal(res.nprocs, 1);
	assert_true(isnan(res.procs[0].values[2]));
	assert_non_null(json_object_get(res.extra, "functions"));
	assert_string_equal(json_string_value(json_object_get(res.extra, "profile")), "zen3");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
				 res.extra, "geometry"), "l1i"), "size")), 16384);
	run_result_release(&res);
	be->free(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles_load),
		cmocka_unit_test(test_bad_profile_file),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_result_parse),
		cmocka_unit_test(test_profile_list),
		cmocka_unit_test(test_backend_run),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
