/* SHA-256 (FIPS 180-4) of a file, for `lace build`'s manifests.
 *
 * Why written here: lace links no crypto library, and a manifest hash must
 * not depend on an external `sha256sum` being on PATH at an installed
 * site.  The round constants are generated exactly (integer cube roots,
 * see the comment in the .c file) and the integration test t_build_variants
 * checks the digests against coreutils' sha256sum. */
#ifndef LACE_SHA256_H
#define LACE_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256_ctx {
	uint32_t h[8];
	uint64_t len;        /* bytes so far */
	unsigned char buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t n);
void sha256_final(struct sha256_ctx *c, unsigned char out[32]);
/* Hex digest of a file into hex[65]; 0 or -errno. */
int sha256_file_hex(const char *path, char hex[65]);

#endif
