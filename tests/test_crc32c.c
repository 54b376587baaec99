/*
 * test_crc32c.c - CRC32C as MPA uses it (MPA-5.2-11, requirements.md §5, A1).
 *
 * Known values first (the iSCSI check value, RFC 3720's 32-octet vectors, the seed figures'
 * FPDUs), then every implementation this CPU can run against the portable table on all
 * short lengths and alignments, on long lengths around the points where the hardware tiers
 * change how they split a buffer, and across extend() split points.
 */
#include <stdlib.h>

#include "check.h"
#include "crc32c.h"

/* Every implementation, slowest first; the ones this CPU cannot run are skipped. */
static const char *const impl_names[] = { "table", "sse4.2", "sse4.2+pclmul", "avx512+vpclmulqdq" };
#define NIMPL (sizeof impl_names / sizeof impl_names[0])

#define BIG (300 * 1024)
static uint8_t big[BIG + 64];

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void fill_big(void)
{
	static bool done;
	if (!done)
		for (size_t i = 0; i < sizeof big; i++)
			big[i] = (uint8_t)rnd();
	done = true;
}

/* The number of implementations checked, so a test can insist that some ran. */
static int for_each_impl(uint32_t want, uint32_t crc, const void *buf, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < NIMPL; i++) {
		iw_crc32c_fn f = iw_crc32c_impl_named(impl_names[i]);
		if (!f)
			continue;
		uint32_t got = f(crc, buf, len);
		if (got != want)
			check_fail(__FILE__, __LINE__, "%s over %zu octets from %08x: %08x, want %08x", impl_names[i],
				   len, crc, got, want);
		n++;
	}
	return n;
}

TEST(crc32c_check_value)
{
	/* The CRC-32C check value (MPA-5.2-11 names the iSCSI digest; §5 self-check). */
	CHECK_EQ(iw_crc32c("123456789", 9), 0xE3069283u);
	CHECK_EQ(iw_crc32c_extend_sw(0, "123456789", 9), 0xE3069283u);
	if (iw_crc32c_hw_available())
		CHECK_EQ(iw_crc32c_extend_hw(0, "123456789", 9), 0xE3069283u);
	CHECK(for_each_impl(0xE3069283u, 0, "123456789", 9) >= 1);
	CHECK_EQ(iw_crc32c("", 0), 0);
	CHECK_EQ(iw_crc32c_extend(0xE3069283u, "", 0), 0xE3069283u);
}

TEST(crc32c_zeros_32_and_wire_order)
{
	/* RFC 3720 B.4 vector, §5: 32 zero octets -> 0x8A9136AA, sent AA 36 91 8A (A1). */
	uint8_t z[32] = { 0 }, wire[4];
	uint32_t c = iw_crc32c(z, sizeof z);
	CHECK_EQ(c, 0x8A9136AAu);
	for_each_impl(0x8A9136AAu, 0, z, sizeof z);
	iw_crc32c_put_wire(wire, c);
	CHECK_MEM(wire, "\xaa\x36\x91\x8a", 4);
}

TEST(crc32c_rfc3720_vectors)
{
	/* The other RFC 3720 B.4 vectors: 32 x FF, 00..1F ascending, 1F..00 descending. */
	uint8_t ones[32], up[32], down[32];
	for (int i = 0; i < 32; i++) {
		ones[i] = 0xFF;
		up[i] = (uint8_t)i;
		down[i] = (uint8_t)(31 - i);
	}
	CHECK_EQ(iw_crc32c(ones, 32), 0x62A8AB43u);
	CHECK_EQ(iw_crc32c(up, 32), 0x46DD794Eu);
	CHECK_EQ(iw_crc32c(down, 32), 0x113FDB5Cu);
	for_each_impl(0x62A8AB43u, 0, ones, 32);
	for_each_impl(0x46DD794Eu, 0, up, 32);
	for_each_impl(0x113FDB5Cu, 0, down, 32);
}

TEST(crc32c_seed_figure5_fpdu)
{
	/* requirements.md §5.1: the first FPDU of a stream, leading marker included in the CRC
	 * (MPA-5.2-13); the seed's CRC field is 4C 86 B3 84 (MPA-5.2-11). */
	uint8_t fpdu[64];
	size_t n = check_unhex("00 00 00 00  00 2a  40 03  00 00 00 00  00 00 00 00  00 00 00 01  00 00 00 00"
			       "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			       fpdu, sizeof fpdu);
	CHECK_EQ(n, 48);
	uint32_t c = iw_crc32c(fpdu, n);
	CHECK_EQ(c, 0x84B3864Cu);
	for_each_impl(0x84B3864Cu, 0, fpdu, n);
	uint8_t wire[4];
	iw_crc32c_put_wire(wire, c);
	CHECK_MEM(wire, "\x4c\x86\xb3\x84", 4);
	/* The byte-order mutant of §5.3 is a different value, so a receiver can tell them apart. */
	CHECK(iw_crc32c_get_wire((const uint8_t *)"\x84\xb3\x86\x4c") != c);
}

TEST(crc32c_seed_figure6_fpdu)
{
	/* requirements.md §5.2: the second FPDU, a marker (FPDUPTR 0x14) inside, CRC A1 9C D1 03
	 * (MPA-5.2-12: markers inside are covered). */
	uint8_t fpdu[64];
	size_t n = check_unhex("00 2a 40 03  00 00 00 00  00 00 00 00  00 00 00 02  00 00 00 00"
			       "00 00 00 14  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
			       "00 00 00 00",
			       fpdu, sizeof fpdu);
	CHECK_EQ(n, 48);
	uint8_t wire[4];
	iw_crc32c_put_wire(wire, iw_crc32c(fpdu, n));
	CHECK_MEM(wire, "\xa1\x9c\xd1\x03", 4);
}

TEST(crc32c_impls_agree_short_all_alignments)
{
	/* Lengths 0..300 from every alignment 0..15, from a random starting CRC. */
	fill_big();
	int ran = 0;
	for (size_t align = 0; align < 16; align++)
		for (size_t len = 0; len <= 300; len++) {
			uint32_t seed = rnd();
			uint32_t want = iw_crc32c_extend_sw(seed, big + align, len);
			ran += for_each_impl(want, seed, big + align, len);
			if (iw_crc32c_extend(seed, big + align, len) != want)
				check_fail(__FILE__, __LINE__, "iw_crc32c_extend, %zu octets at +%zu", len, align);
		}
	CHECK(ran >= 16 * 301);
}

TEST(crc32c_impls_agree_long)
{
	/* Around the hardware tiers' split points: three streams from 48 octets, the vector
	 * fold from 384 (527 is where rounding the vector share up would leave no stream),
	 * 256-octet vector steps, streams long enough that one join cannot shift past them
	 * (from 121104 octets, cut into 120056-octet blocks), and several blocks. */
	static const size_t lens[] = { 47, 48, 49, 383, 384, 385, 511, 512, 513, 527, 767, 768, 1023, 1024,
				       1448, 1460, 1500, 2047, 4096, 9000, 16383, 65535, 65536, 65537,
				       120056, 120440, 121103, 121104, 121105, 150000, 240112, 240113, BIG };
	fill_big();
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
		for (size_t align = 0; align < 16; align++) {
			uint32_t seed = rnd();
			uint32_t want = iw_crc32c_extend_sw(seed, big + align, lens[i]);
			for_each_impl(want, seed, big + align, lens[i]);
			if (iw_crc32c_extend(seed, big + align, lens[i]) != want)
				check_fail(__FILE__, __LINE__, "iw_crc32c_extend, %zu octets at +%zu", lens[i], align);
		}
	/* Random lengths too, up to two full blocks. */
	for (int r = 0; r < 200; r++) {
		size_t len = rnd() % 250000, align = rnd() % 16;
		uint32_t seed = rnd();
		for_each_impl(iw_crc32c_extend_sw(seed, big + align, len), seed, big + align, len);
	}
}

TEST(crc32c_impls_detect_one_bit)
{
	/* A single flipped bit anywhere in a 1460-octet buffer changes every implementation's CRC. */
	fill_big();
	uint8_t buf[1460];
	memcpy(buf, big, sizeof buf);
	uint32_t base = iw_crc32c(buf, sizeof buf);
	for (int r = 0; r < 64; r++) {
		size_t bit = rnd() % (8 * sizeof buf);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		for (size_t i = 0; i < NIMPL; i++) {
			iw_crc32c_fn f = iw_crc32c_impl_named(impl_names[i]);
			if (f && f(0, buf, sizeof buf) == base)
				check_fail(__FILE__, __LINE__, "%s misses bit %zu", impl_names[i], bit);
		}
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

TEST(crc32c_extend_chaining)
{
	/* CRC of a||b == extend(extend(0, a), b), for random buffers and split points. */
	fill_big();
	for (int r = 0; r < 300; r++) {
		size_t len = r < 150 ? rnd() % 2000 : rnd() % 140000;
		size_t cut = len ? rnd() % (len + 1) : 0;
		size_t align = rnd() % 16;
		const uint8_t *p = big + align;
		uint32_t whole = iw_crc32c_extend_sw(0, p, len);
		for (size_t i = 0; i < NIMPL; i++) {
			iw_crc32c_fn f = iw_crc32c_impl_named(impl_names[i]);
			if (!f)
				continue;
			uint32_t parts = f(f(0, p, cut), p + cut, len - cut);
			if (parts != whole)
				check_fail(__FILE__, __LINE__, "%s: %zu octets cut at %zu: %08x, want %08x",
					   impl_names[i], len, cut, parts, whole);
		}
		CHECK_EQ(iw_crc32c_extend(iw_crc32c(p, cut), p + cut, len - cut), whole);
	}
	/* Three pieces, one of them empty. */
	CHECK_EQ(iw_crc32c_extend(iw_crc32c_extend(iw_crc32c("1234", 4), "", 0), "56789", 5), 0xE3069283u);
}

TEST(crc32c_wire_round_trip)
{
	uint8_t w[4];
	iw_crc32c_put_wire(w, 0x84B3864Cu);
	CHECK_MEM(w, "\x4c\x86\xb3\x84", 4);
	CHECK_EQ(iw_crc32c_get_wire(w), 0x84B3864Cu);
	CHECK_EQ(iw_crc32c_get_wire((const uint8_t *)"\xa1\x9c\xd1\x03"), 0x03D19CA1u);
	for (int r = 0; r < 1000; r++) {
		uint32_t v = rnd() ^ (rnd() << 16);
		iw_crc32c_put_wire(w, v);
		CHECK_EQ(w[0], v & 0xFF);
		CHECK_EQ(iw_crc32c_get_wire(w), v);
	}
}

TEST(crc32c_impl_names)
{
	const char *impl = iw_crc32c_impl();
	CHECK(impl != NULL);
	CHECK(iw_crc32c_impl_named(impl) != NULL);
	CHECK(iw_crc32c_impl_named("table") == iw_crc32c_extend_sw);
	CHECK(iw_crc32c_impl_named("crc64") == NULL);
	CHECK_EQ(iw_crc32c_hw_available(), strcmp(impl, "table") != 0);
	/* The tier in use can run, and so can every tier below it. */
	bool below = true;
	for (size_t i = 0; i < NIMPL; i++) {
		bool runs = iw_crc32c_impl_named(impl_names[i]) != NULL;
		if (below)
			CHECK(runs);
		if (!strcmp(impl_names[i], impl))
			below = false;
	}
}
