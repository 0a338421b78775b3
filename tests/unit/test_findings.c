/* Finding rules: ids, severity configuration, ordering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "layout/diff.h"
#include "layout/findings.h"

static void test_rule_config(void **state)
{
	struct lace_rule_config rc;

	rule_config_init(&rc);
	assert_int_equal(rc.sev[LACE_RULE_HOT_FOOTPRINT], LACE_SEV_ERROR);
	assert_int_equal(rc.sev[LACE_RULE_NOPROBE_REGION], LACE_SEV_WARNING);
	assert_int_equal(rule_config_set(&rc, "noprobe-region=error"), 0);
	assert_int_equal(rc.sev[LACE_RULE_NOPROBE_REGION], LACE_SEV_ERROR);
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
	assert_int_equal(f.v[0].rule, LACE_RULE_HOT_FOOTPRINT);
	assert_int_equal(f.v[1].rule, LACE_RULE_NOPROBE_REGION);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_config),
		cmocka_unit_test(test_add_and_sort),
		cmocka_unit_test(test_noprobe_names),
	};
	return cmocka_run_group_tests_name("findings", tests, NULL, NULL);
}
