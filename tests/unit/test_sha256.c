/* util/sha256: FIPS 180-4 test vectors, the padding boundaries (55, 56 and
 * 64 bytes), updates split at odd places, and the file digest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/sha256.h"

static void hex_of(const unsigned char dig[32], char hex[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", dig[i]);
}

/* The digest of n bytes of p, fed in pieces of `step` bytes. */
static void digest(const void *p, size_t n, size_t step, char hex[65])
{
	struct sha256_ctx c;
	unsigned char dig[32];
	const unsigned char *b = p;

	sha256_init(&c);
	for (size_t off = 0; off < n; off += step)
		sha256_update(&c, b + off, n - off < step ? n - off : step);
	sha256_final(&c, dig);
	hex_of(dig, hex);
}

static void test_fips_vectors(void **state)
{
	static const struct {
		const char *in, *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[65];

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		digest(v[i].in, strlen(v[i].in), 64, hex);
		assert_string_equal(hex, v[i].hex);
		digest(v[i].in, strlen(v[i].in), 1, hex);
		assert_string_equal(hex, v[i].hex);
	}
}

static void test_million_a(void **state)
{
	char *a = malloc(1000000), hex[65];

	assert_non_null(a);
	memset(a, 'a', 1000000);
	digest(a, 1000000, 4093, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* one padding block or two: the length field fits after 55 bytes, not 56 */
static void test_padding_boundaries(void **state)
{
	unsigned char b[1280];
	char hex[65];

	memset(b, 'a', 64);
	digest(b, 55, 7, hex);
	assert_string_equal(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	digest(b, 56, 56, hex);
	assert_string_equal(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	digest(b, 64, 63, hex);
	assert_string_equal(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)i;
	digest(b, sizeof(b), 100, hex);
	assert_string_equal(hex, "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed");
}

static void test_file_hex(void **state)
{
	char path[] = "/tmp/lace-test-sha256-XXXXXX", hex[65];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(sha256_file_hex(path, hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	assert_int_equal(sha256_file_hex(path, hex), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_padding_boundaries),
		cmocka_unit_test(test_file_hex),
	};
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
