/*
 * sha256.h - SHA-256 (FIPS 180-4), for the provenance of a report: the vector-set hash.
 *
 * A report is evidence a lab hands to a vendor, so the hash is the standard one a reader can
 * recompute with sha256sum; it is small enough to carry here rather than pull in a library.
 */
#ifndef IW_SHA256_H
#define IW_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct iw_sha256 {
	uint32_t h[8];
	uint64_t len;               /* octets hashed so far */
	uint8_t buf[64];
	size_t nbuf;
} iw_sha256;

void iw_sha256_init(iw_sha256 *s);
void iw_sha256_update(iw_sha256 *s, const void *data, size_t n);
void iw_sha256_final(iw_sha256 *s, uint8_t out[32]);

/* out: 64 lowercase hex digits and a NUL. */
void iw_sha256_hex(const uint8_t digest[32], char out[65]);

#endif
