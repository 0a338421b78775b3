/* variants/: the INI model (config.c) read from a small source tree, the
 * plan's flags computed once per variant (the object folder's name pinned
 * to what earlier builds used), selection errors, and the shuffled
 * script's header and error paths (shuffle.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "variants/config.h"
#include "variants/plan.h"
#include "variants/shuffle.h"

static char root[] = "/tmp/lace-test-variants-XXXXXX";

static void put(const char *rel, const char *text)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s/%s", root, rel);
	for (char *s = strchr(p.buf + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p.buf, 0755);
		*s = '/';
	}
	f = fopen(p.buf, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	strbuf_release(&p);
}

static const char variants_conf[] =
	"# comment\n"
	"[baseline]\n"
	"script = baseline.ld\n"
	"cflags = -fno-reorder-blocks-and-partition\n"
	"description = the base\n"
	"[entry-out]\n"
	"script = entry-out.ld\n"
	"cflags = -fno-reorder-blocks-and-partition\n"
	"[cold]\n"
	"script = /abs/cold.ld\n"
	"cflags = -DX  -DY\n"
	"ldflags = -Wl,-z,norelro\n";

static const char workloads_conf[] =
	"[generator]\n"
	"source = bench/gen.c\n"
	"libs = -lm\n"
	"args = --n 4\n"
	"outputs = h0.c h1.c\n"
	"[common]\n"
	"sources = bench/a.c bench/b.c\n"
	"study = probes hashmmu util\n"
	"libs = -pthread\n"
	"[hackbench]\n"
	"sources = bench/hackbench.c\n"
	"handlers = yes\n"
	"[faultbench]\n"
	"sources = bench/faultbench.c\n"
	"handlers = no\n";

static int setup(void **state)
{
	assert_non_null(mkdtemp(root));
	put("linker_scripts/variants.conf", variants_conf);
	put("bench/workloads.conf", workloads_conf);
	put("util/zz.c", "");
	put("util/aa.c", "");
	put("util/aa.h", "");
	put("hashmmu/mm.c", "");
	return 0;
}

static int teardown(void **state)
{
	struct strbuf cmd = STRBUF_INIT;

	strbuf_addf(&cmd, "rm -rf '%s'", root);
	assert_int_equal(system(cmd.buf), 0);
	strbuf_release(&cmd);
	return 0;
}

static void test_config_model(void **state)
{
	struct variants_config c;

	assert_int_equal(variants_config_load(&c, root), 0);
	assert_string_equal(c.src, root);
	assert_int_equal(c.nvariants, 3);
	assert_string_equal(c.variants[0].name, "baseline");
	assert_string_equal(c.variants[0].description, "the base");
	assert_null(c.variants[1].description);
	assert_string_equal(c.variants[2].script, "/abs/cold.ld");
	assert_string_equal(c.variants[2].ldflags, "-Wl,-z,norelro");
	assert_ptr_equal(variants_config_variant(&c, "cold"), &c.variants[2]);
	assert_null(variants_config_variant(&c, "nosuch"));
	/* the workloads, then the driver that is always built */
	assert_int_equal(c.nprogs, 3);
	assert_string_equal(c.progs[0].name, "hackbench");
	assert_int_equal(c.progs[0].handlers, 1);
	assert_int_equal(c.progs[1].handlers, 0);
	assert_string_equal(c.progs[2].name, "hashmmu-driver");
	assert_string_equal(c.progs[2].srcs.v[0], "hashmmu/driver/driver.c");
	assert_string_equal(c.gen_src, "bench/gen.c");
	assert_string_equal(c.gen_args, "--n 4");
	assert_int_equal(c.gen_outputs.nr, 2);
	assert_int_equal(c.common.nr, 2);
	assert_string_equal(c.libs.v[0], "-pthread");
	/* study sources: probes/ (missing) hashmmu/ util/, each sorted */
	assert_int_equal(c.study.nr, 3);
	assert_string_equal(c.study.v[0], "hashmmu/mm.c");
	assert_string_equal(c.study.v[1], "util/aa.c");
	assert_string_equal(c.study.v[2], "util/zz.c");

	struct strvec keep = STRVEC_INIT;
	strvec_push(&keep, "nosuch");
	assert_int_equal(variants_config_keep_programs(&c, &keep), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "no program 'nosuch'"));
	assert_int_equal(c.nprogs, 3);
	strvec_clear(&keep);
	strvec_push(&keep, "hashmmu-driver");
	strvec_push(&keep, "faultbench");
	assert_int_equal(variants_config_keep_programs(&c, &keep), 0);
	assert_int_equal(c.nprogs, 2);
	assert_string_equal(c.progs[0].name, "faultbench");
	assert_string_equal(c.progs[1].name, "hashmmu-driver");
	strvec_clear(&keep);
	variants_config_release(&c);
}

static void expect_bad(const char *conf, const char *msg)
{
	struct variants_config c;

	put("linker_scripts/variants.conf", conf);
	assert_true(variants_config_load(&c, root) < 0);
	if (!strstr(lace_error_msg(), msg))
		fail_msg("'%s' does not hold '%s'", lace_error_msg(), msg);
	variants_config_release(&c);
	put("linker_scripts/variants.conf", variants_conf);
}

static void test_config_errors(void **state)
{
	expect_bad("[a]\nscript = x.ld\nbogus = 1\n", "variants.conf:3: bad line");
	expect_bad("[a]\nnot ini\n", "variants.conf:2: bad line");
	expect_bad("[../a]\nscript = x.ld\n", "variant name '../a' is not a plain file name");
	expect_bad("[a]\ncflags = -O1\n", "variant 'a' has no script");
	assert_true(variant_name_ok("entry-out_2.x"));
	assert_false(variant_name_ok(""));
	assert_false(variant_name_ok(".hidden"));
	assert_false(variant_name_ok("-opt"));
	assert_false(variant_name_ok("a/b"));
	assert_false(variant_name_ok("a b"));
}

static void assert_flags(const struct plan_variant *v, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++)
		assert_string_equal(v->cflags.v[n], want[n]);
	assert_int_equal(v->cflags.nr, n);
}

static void test_plan_flags(void **state)
{
	struct variants_config c;
	struct plan p;

	assert_int_equal(variants_config_load(&c, root), 0);
	plan_init(&p, &c, NULL);
	plan_add_all(&p);
	assert_int_equal(plan_add_shuffled(&p, 2, 7), 0);
	assert_int_equal(p.nr, 5);
	assert_flags(&p.v[0], (const char *const[]){ "-fno-reorder-blocks-and-partition", NULL });
	assert_flags(&p.v[2], (const char *const[]){ "-DX", "-DY", NULL });
	assert_flags(&p.v[3], (const char *const[]){ "-fno-reorder-blocks-and-partition",
						     "-ffunction-sections", NULL });
	/* object folders: shared by equal flags, named as lace build always
	 * named them (FNV-1a of the flags, each with its NUL) */
	plan_set_out(&p, "/o");
	assert_string_equal(p.v[0].objdir, "/o/.obj-9350a55750662709/obj");
	assert_string_equal(p.v[1].objdir, p.v[0].objdir);
	assert_string_equal(p.v[3].objdir, "/o/.obj-e478ec00eec9707f/obj");
	assert_string_equal(p.v[4].objdir, p.v[3].objdir);
	assert_string_equal(p.v[3].dir, "/o/baseline-shuffle-1");
	assert_int_equal(p.v[4].shuffle, 2);
	assert_int_equal(p.v[4].seed, 7);
	assert_string_equal(p.v[4].script, "baseline.ld");
	/* scripts resolve under linker_scripts/ unless absolute */
	assert_string_equal(p.v[2].script_path, "/abs/cold.ld");
	assert_non_null(strstr(p.v[0].script_path, "/linker_scripts/baseline.ld"));
	assert_string_equal(p.v[2].ldflags, "-Wl,-z,norelro");
	plan_release(&p);

	/* --cflags come last, after -ffunction-sections */
	plan_init(&p, &c, " -O3  -DZ ");
	assert_int_equal(plan_add_named(&p, "cold"), 0);
	assert_int_equal(plan_add_shuffled(&p, 1, 1), 0);
	assert_flags(&p.v[0], (const char *const[]){ "-DX", "-DY", "-O3", "-DZ", NULL });
	assert_flags(&p.v[1], (const char *const[]){ "-fno-reorder-blocks-and-partition",
						     "-ffunction-sections", "-O3", "-DZ", NULL });
	assert_int_equal(plan_add_named(&p, "nosuch"), -EINVAL);
	assert_string_equal(lace_error_msg(),
			    "no variant 'nosuch' (known: baseline, entry-out, cold)");
	plan_release(&p);
	variants_config_release(&c);
}

static void test_plan_ldscript(void **state)
{
	struct variants_config c;
	struct strbuf s = STRBUF_INIT;
	struct plan p;

	put("mine.v2.ld", "");
	put(".ld", "");
	assert_int_equal(variants_config_load(&c, root), 0);
	plan_init(&p, &c, NULL);
	strbuf_addf(&s, "%s/mine.v2.ld", root);
	assert_int_equal(plan_add_ldscript(&p, s.buf), 0);
	assert_string_equal(p.v[0].name, "mine.v2");
	assert_string_equal(p.v[0].script_path, p.v[0].script);
	assert_null(p.v[0].ldflags);
	assert_flags(&p.v[0], (const char *const[]){ "-fno-reorder-blocks-and-partition", NULL });
	strbuf_reset(&s);
	strbuf_addf(&s, "%s/.ld", root);
	assert_int_equal(plan_add_ldscript(&p, s.buf), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "'.ld' is not a usable variant name"));
	strbuf_addstr(&s, ".missing");
	assert_int_equal(plan_add_ldscript(&p, s.buf), -ENOENT);
	assert_int_equal(p.nr, 1);
	plan_release(&p);
	variants_config_release(&c);

	/* no baseline: nothing to shuffle, and --ldscript gets no flags */
	put("linker_scripts/variants.conf", "[only]\nscript = x.ld\n");
	assert_int_equal(variants_config_load(&c, root), 0);
	plan_init(&p, &c, NULL);
	assert_int_equal(plan_add_shuffled(&p, 1, 1), -ENOENT);
	strbuf_reset(&s);
	strbuf_addf(&s, "%s/mine.v2.ld", root);
	assert_int_equal(plan_add_ldscript(&p, s.buf), 0);
	assert_int_equal(p.v[0].cflags.nr, 0);
	plan_set_out(&p, "/o");
	assert_string_equal(p.v[0].objdir, "/o/.obj-cbf29ce484222325/obj");
	plan_release(&p);
	variants_config_release(&c);
	put("linker_scripts/variants.conf", variants_conf);
	strbuf_release(&s);
}

static void test_shuffle_script(void **state)
{
	struct strbuf base = STRBUF_INIT, out = STRBUF_INIT, text = STRBUF_INIT;
	struct strvec objs = STRVEC_INIT;

	put("base.ld", "SECTIONS {\n  .text : {\n    /* @lace-shuffle@ */\n  }\n}\n");
	put("plain.ld", "SECTIONS { }\n");
	strbuf_addf(&base, "%s/base.ld", root);
	strbuf_addf(&out, "%s/link.ld", root);
	assert_int_equal(shuffle_write_script(base.buf, &objs, root, 3, 1, out.buf), 0);
	assert_int_equal(strbuf_read_file(&text, out.buf), 0);
	assert_string_equal(text.buf, "SECTIONS {\n  .text : {\n    "
			    "/* lace build --shuffle: seed 3, build 1, 0 input sections */\n\n  }\n}\n");
	/* an object that is not there, a script without the marker */
	strvec_push(&objs, "missing.o");
	assert_true(shuffle_write_script(base.buf, &objs, root, 3, 1, out.buf) < 0);
	assert_non_null(strstr(lace_error_msg(), "missing.o"));
	strbuf_reset(&base);
	strbuf_addf(&base, "%s/plain.ld", root);
	assert_int_equal(shuffle_write_script(base.buf, &objs, root, 3, 1, out.buf), -EINVAL);
	assert_non_null(strstr(lace_error_msg(), "no @lace-shuffle@ line"));
	strvec_clear(&objs);
	strbuf_release(&base);
	strbuf_release(&out);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_model),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_plan_flags),
		cmocka_unit_test(test_plan_ldscript),
		cmocka_unit_test(test_shuffle_script),
	};
	return cmocka_run_group_tests_name("variants", tests, setup, teardown);
}
