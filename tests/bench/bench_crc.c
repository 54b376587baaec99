/*
 * bench_crc.c - CRC32C throughput of iwspec's implementations against ISA-L's crc32_iscsi,
 * measured in the same process on the same buffers (suite/engine/crc32c.h, MPA-5.2-11).
 *
 * Sizes: 1460 octets (one FPDU-sized TCP segment at MSS 1460) and 64 KiB (a large ULP message).
 * Each call extends the previous result, so calls form a dependency chain as they do along a
 * stream and nothing can be hoisted or dropped.
 *
 * ISA-L's crc32_iscsi(buf, len, init) works on the inverted register without the final XOR:
 * the standard CRC of buf is ~crc32_iscsi(buf, len, 0xFFFFFFFF), and extending a CRC c is
 * ~crc32_iscsi(buf, len, ~c). The program checks that both agree before timing anything.
 */
#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "crc32c.h"

#define MAXLEN 65536

static _Alignas(64) uint8_t data[MAXLEN + 64];

typedef struct crc_ctx {
	iw_crc32c_fn fn;        /* NULL: ISA-L */
	size_t len;
} crc_ctx;

static uint32_t isal_extend(uint32_t crc, const void *buf, size_t len)
{
	return ~crc32_iscsi((unsigned char *)(uintptr_t)buf, (int)len, ~crc);
}

static uint64_t run_iwspec(void *ctx, long iters)
{
	const crc_ctx *c = ctx;
	uint32_t crc = 0;
	for (long i = 0; i < iters; i++)
		crc = iw_crc32c_extend(crc, data, c->len);
	return crc;
}

static uint64_t run_named(void *ctx, long iters)
{
	const crc_ctx *c = ctx;
	uint32_t crc = 0;
	for (long i = 0; i < iters; i++)
		crc = c->fn(crc, data, c->len);
	return crc;
}

static uint64_t run_isal(void *ctx, long iters)
{
	const crc_ctx *c = ctx;
	unsigned int st = 0xFFFFFFFFu;
	for (long i = 0; i < iters; i++)
		st = crc32_iscsi(data, (int)c->len, st);
	return st;
}

static int check_agree(void)
{
	static const size_t lens[] = { 0, 1, 7, 48, 1460, 4096, 65536 };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		uint32_t a = iw_crc32c_extend(0x12345678u, data + 3, lens[i]);
		uint32_t b = isal_extend(0x12345678u, data + 3, lens[i]);
		uint32_t t = iw_crc32c_extend_sw(0x12345678u, data + 3, lens[i]);
		if (a != b || a != t) {
			fprintf(stderr, "bench_crc: CRC mismatch at %zu octets: iwspec %08x isa-l %08x table %08x\n",
				lens[i], a, b, t);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	srand(1);
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)rand();
	if (check_agree())
		return 1;

	printf("crc32c implementation: %s\n", iw_crc32c_impl());
	static const size_t sizes[] = { 1460, 65536 };
	for (size_t s = 0; s < 2; s++) {
		size_t len = sizes[s];
		const char *label = len == 1460 ? "1460B" : "64KiB";
		crc_ctx iw = { NULL, len }, isal = { NULL, len }, tab = { iw_crc32c_impl_named("table"), len },
			three = { iw_crc32c_impl_named("sse4.2+pclmul"), len };
		bench_case cases[4] = {
			{ "iwspec", run_iwspec, &iw, 0, 0 },
			{ "isa-l", run_isal, &isal, 0, 0 },
			{ "table", run_named, &tab, 0, 0 },
			{ "sse4.2+pclmul", run_named, &three, 0, 0 },
		};
		bench_run(cases, 2, 0.4);
		/* For reference, shorter: the portable path, and the three-stream tier that CPUs
		 * without AVX-512 use (when it is not the one in use already). */
		bool three_ref = three.fn && strcmp(iw_crc32c_impl(), "sse4.2+pclmul") != 0;
		bench_run(cases + 2, three_ref ? 2 : 1, 0.25);
		double g_iw = bench_gbps(&cases[0], (double)len), g_isal = bench_gbps(&cases[1], (double)len);
		printf("crc32c iwspec %s: %.1f GB/s\n", label, g_iw);
		printf("crc32c isa-l %s: %.1f GB/s\n", label, g_isal);
		printf("crc32c ratio %s (iwspec/isa-l): %.2f\n", label, g_iw / g_isal);
		printf("crc32c table %s: %.2f GB/s\n", label, bench_gbps(&cases[2], (double)len));
		if (three_ref)
			printf("crc32c sse4.2+pclmul %s: %.1f GB/s\n", label, bench_gbps(&cases[3], (double)len));
	}
	return 0;
}
