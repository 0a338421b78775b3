/* Jump-label entry decoding: relative fields, flag bits, both endians. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "layout/jumptable.h"

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64be(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * (7 - i)));
}

static void test_decode_le(void **state)
{
	/* entry at 0xffffffff823bb1f0: code 0x1000 behind, target 0x40 after
	 * the code, key 0x2000 ahead of the key field with bit 0 set */
	uint64_t at = 0xffffffff823bb1f0ull;
	uint8_t e[16];
	struct lace_jump_site j;

	put32le(e, (uint32_t)-0x1000);
	put32le(e + 4, (uint32_t)(-0x1000 - 4 + 0x40));
	int64_t key = 0x2000 + 1;
	for (int i = 0; i < 8; i++)
		e[8 + i] = (uint8_t)((uint64_t)key >> (8 * i));
	memset(&j, 0, sizeof(j));
	jump_entry_decode(e, at, false, &j);
	assert_true(j.code == at - 0x1000);
	assert_true(j.target == at - 0x1000 + 0x40);
	assert_true(j.key == at + 8 + 0x2000);
	assert_int_equal(j.key_flags, LACE_JUMP_FLAG_BRANCH);
}

static void test_decode_flags_and_be(void **state)
{
	uint64_t at = 0x10000;
	uint8_t e[16] = { 0 };
	struct lace_jump_site j;

	/* big-endian: code +8, target +0x100 (relative to at + 4), key -0x800
	 * with both flags (branch, init) */
	e[3] = 8;
	e[6] = 1;
	put64be(e + 8, (uint64_t)(int64_t)(-0x800 + 3));
	jump_entry_decode(e, at, true, &j);
	assert_true(j.code == at + 8);
	assert_true(j.target == at + 4 + 0x100);
	assert_true(j.key == at + 8 - 0x800);
	assert_int_equal(j.key_flags, LACE_JUMP_FLAG_BRANCH | LACE_JUMP_FLAG_INIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_le),
		cmocka_unit_test(test_decode_flags_and_be),
	};
	return cmocka_run_group_tests_name("layout jump table", tests, NULL, NULL);
}
