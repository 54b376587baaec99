/*
 * Tests of perftest's control-channel messages (suite/engine/perftest_msg.c): the keys line as
 * perftest writes it (lengths, field widths, the GID), read back and refused when malformed; the
 * version and MTU messages; the range a peer's keys name.
 */
#include "check.h"

#include <string.h>

#include "perftest_msg.h"

TEST(perftest_keys_round_trip)
{
	iw_perftest_keys k = { .lid = 0, .out_reads = 0x10, .qpn = 0x000101, .psn = 0xabcdef, .rkey = 0x00b00001,
			       .vaddr = 0x00007f3a5c010000ull, .gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 2 },
			       .srqn = 0 };
	uint8_t b[IW_PERFTEST_KEYS_LEN];
	iw_perftest_keys_encode(b, &k);
	/* perftest's own format: %04x:%04x:%06x:%06x:%08x:%016llx: 16 x %02x: %08x: and a NUL */
	CHECK_EQ(strlen((const char *)b), IW_PERFTEST_KEYS_LEN - 1);
	CHECK(memcmp(b, "0000:0010:000101:abcdef:00b00001:00007f3a5c010000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:"
		     "00:02:00000000:", IW_PERFTEST_KEYS_LEN - 1) == 0);
	iw_perftest_keys r;
	CHECK(iw_perftest_keys_parse(b, &r));
	CHECK_EQ(r.rkey, 0x00b00001u);
	CHECK_EQ(r.vaddr, 0x00007f3a5c010000ull);
	CHECK_EQ(r.psn, 0xabcdefu);
	CHECK_EQ(r.out_reads, 0x10u);
	CHECK(memcmp(r.gid, k.gid, 16) == 0);
}

TEST(perftest_keys_malformed)
{
	iw_perftest_keys k = { .rkey = 1 }, r;
	uint8_t b[IW_PERFTEST_KEYS_LEN], c[IW_PERFTEST_KEYS_LEN];
	iw_perftest_keys_encode(b, &k);
	memcpy(c, b, sizeof c);
	c[4] = '-';                 /* a separator */
	CHECK(!iw_perftest_keys_parse(c, &r));
	memcpy(c, b, sizeof c);
	c[30] = 'G';                /* not a hex digit (in vaddr) */
	CHECK(!iw_perftest_keys_parse(c, &r));
	memcpy(c, b, sizeof c);
	c[IW_PERFTEST_KEYS_LEN - 1] = 'x';   /* no NUL at the end */
	CHECK(!iw_perftest_keys_parse(c, &r));
	memcpy(c, b, sizeof c);
	c[20] = 'A';                /* perftest writes lower case */
	CHECK(!iw_perftest_keys_parse(c, &r));
}

TEST(perftest_version_and_mtu)
{
	uint8_t v[IW_PERFTEST_VERSION_LEN];
	iw_perftest_version_encode(v, IW_PERFTEST_VERSION);
	CHECK(memcmp(v, "6.06\0\0\0\0\0\0\0\0\0\0\0\0", 16) == 0);
	CHECK_EQ(iw_perftest_version_parse(v), 606);
	iw_perftest_version_encode(v, "5.70");
	CHECK_EQ(iw_perftest_version_parse(v), 570);
	iw_perftest_version_encode(v, "6.6");
	CHECK_EQ(iw_perftest_version_parse(v), -1);
	iw_perftest_version_encode(v, "MPA ID Req Frame");
	CHECK_EQ(iw_perftest_version_parse(v), -1);
	uint8_t m[2];
	iw_perftest_mtu_encode(m, 3);
	CHECK(m[0] == '3' && m[1] == 0);
	CHECK_EQ(iw_perftest_mtu_parse(m), 3);
	m[1] = '4';
	CHECK_EQ(iw_perftest_mtu_parse(m), -1);
}

TEST(perftest_range)
{
	/* -s 65536 with a 4096-octet page and a 64-octet line: 65536 octets from vaddr to the end. */
	CHECK_EQ(iw_perftest_range(65536, 4096, 64), 65536u);
	/* -s 2 (the lat tests): the page size, rounded to the line. */
	CHECK_EQ(iw_perftest_range(2, 4096, 64), 4096u);
	CHECK_EQ(iw_perftest_range(65537, 4096, 64), 65600u);
	CHECK_EQ(iw_perftest_range(10, 4, 64), 64u);
}
