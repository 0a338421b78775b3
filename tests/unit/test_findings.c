/* Finding rules: ids, severity configuration, ordering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "layout/diff.h"
#include "layout/expect.h"
#include "layout/findings.h"

static void test_rule_config(void **state)
{
	struct lace_rule_config rc;

	rule_config_init(&rc);
	assert_int_equal(rc.sev[LACE_RULE_HOT_FOOTPRINT], LACE_SEV_ERROR);
	assert_int_equal(rc.sev[LACE_RULE_NOPROBE_REGION], LACE_SEV_ERROR);
	assert_int_equal(rule_config_set(&rc, "noprobe-region=warning"), 0);
	assert_int_equal(rc.sev[LACE_RULE_NOPROBE_REGION], LACE_SEV_WARNING);
	assert_int_equal(rule_config_set(&rc, "region-change=off"), 0);
	assert_int_equal(rc.sev[LACE_RULE_REGION_CHANGE], LACE_SEV_OFF);
	assert_true(rule_config_set(&rc, "no-such-rule=info") < 0);
	assert_true(rule_config_set(&rc, "noprobe-region") < 0);
	assert_true(rule_config_set(&rc, "noprobe-region=loud") < 0);
	assert_true(rule_config_set(&rc, "noprobe=info") < 0); /* prefixes are not ids */
	assert_int_equal(severity_parse("warning", false), LACE_SEV_WARNING);
	assert_int_equal(severity_parse("never", false), -1);
	assert_int_equal(severity_parse("never", true), LACE_SEV_OFF);
	/* every rule has a distinct id */
	for (int i = 0; i < LACE_RULE_COUNT; i++)
		for (int j = i + 1; j < LACE_RULE_COUNT; j++)
			assert_string_not_equal(lace_rules[i].id, lace_rules[j].id);
}

static void test_add_and_sort(void **state)
{
	struct lace_findings f = { 0 };
	struct lace_rule_config rc;

	rule_config_init(&rc);
	rule_config_set(&rc, "region-change=off");
	findings_add(&f, &rc, LACE_RULE_REGION_CHANGE, "a", "dropped");
	findings_add(&f, &rc, LACE_RULE_CROSS_REGION, "x->y", "%d -> %d", 1, 2);
	findings_add(&f, &rc, LACE_RULE_HOT_FOOTPRINT, "hot set", "grew");
	findings_add(&f, NULL, LACE_RULE_NOPROBE_REGION, "fn", "moved");
	assert_int_equal(f.n, 3);
	findings_sort(f.v, f.n);
	/* both errors (noprobe-region by default), then by rule */
	assert_int_equal(f.v[0].rule, LACE_RULE_NOPROBE_REGION);
	assert_int_equal(f.v[1].rule, LACE_RULE_HOT_FOOTPRINT);
	assert_int_equal(f.v[2].rule, LACE_RULE_CROSS_REGION);
	assert_string_equal(f.v[2].reason, "1 -> 2");
	findings_free(f.v, f.n);
}

static void test_noprobe_names(void **state)
{
	assert_true(region_is_noprobe("entry"));
	assert_true(region_is_noprobe(".entry.text"));
	assert_true(region_is_noprobe("noinstr"));
	assert_true(region_is_noprobe(".noinstr.text"));
	assert_true(region_is_noprobe("irqentry"));
	assert_true(region_is_noprobe(".kprobes.text"));
	assert_false(region_is_noprobe(".text"));
	assert_false(region_is_noprobe("softirqentry"));
	assert_false(region_is_noprobe("cold"));
	assert_false(region_is_noprobe(""));
	assert_false(region_is_noprobe(NULL));
}

static void test_expect_parse(void **state)
{
	struct lace_expect_set es = { 0 };

	assert_int_equal(expect_add(&es, "entry=^do_syscall_64$"), 0);
	assert_int_equal(expect_add(&es, "move=a|b"), 0);
	assert_int_equal(expect_add(&es, "align=x{1,3}"), 0); /* commas belong to the regex */
	assert_int_equal(expect_add(&es, "straddle=hot"), 0);
	assert_int_equal(es.n, 4);
	assert_int_equal(es.v[0].kind, LACE_EXPECT_ENTRY);
	assert_string_equal(es.v[1].spec, "move=a|b");
	assert_true(expect_add(&es, "entry") < 0);        /* no '=' */
	assert_true(expect_add(&es, "bogus=x") < 0);      /* unknown kind */
	assert_true(expect_add(&es, "ent=x") < 0);        /* prefixes are not kinds */
	assert_true(expect_add(&es, "entry=") < 0);       /* empty regex */
	assert_true(expect_add(&es, "entry=(") < 0);      /* bad regex */
	assert_int_equal(es.n, 4);
	expect_release(&es);
	assert_int_equal(es.n, 0);
}

static void test_expect_apply(void **state)
{
	struct lace_findings f = { 0 };
	struct lace_rule_config rc;
	struct lace_expect_set es = { 0 };
	size_t matched[4] = { 0 };

	rule_config_init(&rc);
	rule_config_set(&rc, "noprobe-region=error");
	findings_add(&f, &rc, LACE_RULE_NOPROBE_REGION, "do_work", "moved out");
	findings_add(&f, &rc, LACE_RULE_NOPROBE_ENTER, "entered", "moved into entry text");
	findings_add(&f, &rc, LACE_RULE_REGION_CHANGE, "plain", "moved from .text to cold");
	findings_add(&f, &rc, LACE_RULE_HOT_ALIGN_DROP, "do_work", "alignment dropped");
	findings_add(&f, &rc, LACE_RULE_HOT_FOOTPRINT, "hot set", "grew");
	assert_int_equal(expect_add(&es, "entry=^do_work$|^entered$"), 0);
	assert_int_equal(expect_add(&es, "move=^do_work$"), 0);
	assert_int_equal(expect_add(&es, "align=^nothing$"), 0);
	assert_int_equal(expect_add(&es, "entry=^plain$"), 0); /* a plain region change is no entry move */
	expect_apply(&es, f.v, f.n, matched);
	/* entry covers the moves out of no-probe text and into it */
	assert_string_equal(f.v[0].expected, "entry=^do_work$|^entered$");
	assert_int_equal(f.v[0].severity, LACE_SEV_INFO);
	assert_int_equal(f.v[0].rule_severity, LACE_SEV_ERROR);
	assert_string_equal(f.v[1].expected, "entry=^do_work$|^entered$");
	assert_null(f.v[2].expected);
	/* a move declaration does not excuse an alignment drop */
	assert_null(f.v[3].expected);
	assert_int_equal(f.v[3].severity, LACE_SEV_WARNING);
	assert_null(f.v[4].expected);
	assert_int_equal(matched[0], 2);
	assert_int_equal(matched[1], 1); /* covered do_work too: not stale */
	assert_int_equal(matched[2], 0);
	assert_int_equal(matched[3], 0);
	/* expected findings sort after the other info ones */
	findings_sort(f.v, f.n);
	assert_int_equal(f.v[0].rule, LACE_RULE_HOT_FOOTPRINT);
	assert_null(f.v[2].expected);
	assert_non_null(f.v[3].expected);
	assert_non_null(f.v[4].expected);
	findings_free(f.v, f.n);
	expect_release(&es);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_config),
		cmocka_unit_test(test_add_and_sort),
		cmocka_unit_test(test_noprobe_names),
		cmocka_unit_test(test_expect_parse),
		cmocka_unit_test(test_expect_apply),
	};
	return cmocka_run_group_tests_name("findings", tests, NULL, NULL);
}
