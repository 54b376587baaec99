/*
 * fuzz_diff_crc32c.c - CRC32C (suite/engine/crc32c.h, MPA-5.2-11): every implementation the CPU
 * runs (table, SSE4.2, SSE4.2+PCLMUL, AVX-512) and the dispatcher against a bytewise
 * reference written from the polynomial alone (refwalk.c), over fuzzer-chosen alignments and
 * split points (iw_crc32c_extend(iw_crc32c_extend(0, a), b) == CRC of a||b).
 *
 * Input: [misalign][nsplit][splits (2 each)...][data...]
 * Invariant: all of them give the reference value for the whole and for every split.
 */
#include <string.h>

#include "crc32c.h"
#include "fuzz.h"
#include "refwalk.h"

static const char *const impls[] = { "table", "sse4.2", "sse4.2+pclmul", "avx512+vpclmulqdq" };

int iw_fuzz_diff_crc32c(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	size_t mis = fz_u8(&f) % 64;
	size_t nsplit = fz_u8(&f) % 9;
	size_t splits[8];
	for (size_t i = 0; i < nsplit; i++)
		splits[i] = fz_u16(&f);
	size_t len;
	const uint8_t *d = fz_rest(&f, &len);
	/* A copy at the chosen misalignment: the vector paths have head and tail cases. */
	uint8_t *buf = malloc(len + 64);
	FZ_CHECK(buf != NULL, "out of memory");
	memcpy(buf + mis, d, len);
	const uint8_t *b = buf + mis;
	uint32_t want = fz_ref_crc32c(0, b, len);
	FZ_CHECK(iw_crc32c(b, len) == want, "dispatcher (%s) 0x%08x, reference 0x%08x over %zu octets",
		 iw_crc32c_impl(), iw_crc32c(b, len), want, len);
	FZ_CHECK(iw_crc32c_extend_sw(0, b, len) == want, "portable CRC differs over %zu octets", len);
	if (iw_crc32c_hw_available())
		FZ_CHECK(iw_crc32c_extend_hw(0, b, len) == want, "hardware CRC differs over %zu octets", len);
	for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
		iw_crc32c_fn fn = iw_crc32c_impl_named(impls[i]);
		if (!fn)
			continue;
		FZ_CHECK(fn(0, b, len) == want, "%s differs over %zu octets", impls[i], len);
		uint32_t c = 0;
		size_t at = 0;
		for (size_t k = 0; k < nsplit; k++) {
			size_t to = len ? splits[k] % (len + 1) : 0;
			if (to < at)
				continue;
			c = fn(c, b + at, to - at);
			FZ_CHECK(c == fz_ref_crc32c(0, b, to), "%s extended to %zu differs", impls[i], to);
			at = to;
		}
		c = fn(c, b + at, len - at);
		FZ_CHECK(c == want, "%s over %zu pieces differs", impls[i], nsplit + 1);
	}
	free(buf);
	return 0;
}
