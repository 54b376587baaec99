/*
 * Tests of perftest's comm-connection messages (suite/engine/perftest_msg.c): the keys as
 * perftest's struct pingpong_dest crosses the wire, read back; the version and MTU messages; the
 * range a peer's keys name.
 */
#include "check.h"

#include <string.h>

#include "perftest_msg.h"

TEST(perftest_keys_round_trip)
{
	iw_perftest_keys k = { .lid = 0, .out_reads = 0x10, .qpn = 0x000101, .psn = 0xabcdef, .rkey = 0x00b00001,
			       .vaddr = 0x00007f3a5c010000ull, .gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 2 },
			       .srqn = 7, .gid_index = 0 };
	uint8_t b[IW_PERFTEST_KEYS_LEN];
	memset(b, 0xee, sizeof b);
	iw_perftest_keys_encode(b, &k);
	/* struct pingpong_dest in network order: rkey at 16, 4 octets of padding, vaddr at 24 */
	static const uint8_t want[32] = { 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 1, 1, 0, 0xab, 0xcd, 0xef,
					  0, 0xb0, 0, 1, 0, 0, 0, 0, 0, 0, 0x7f, 0x3a, 0x5c, 1, 0, 0 };
	CHECK(memcmp(b, want, sizeof want) == 0);
	CHECK(b[42] == 0xff && b[44] == 10 && b[47] == 2);
	CHECK(b[51] == 7 && b[55] == 0);
	iw_perftest_keys r;
	memset(&r, 0, sizeof r);
	iw_perftest_keys_parse(b, &r);
	CHECK_EQ(r.rkey, 0x00b00001u);
	CHECK_EQ(r.vaddr, 0x00007f3a5c010000ull);
	CHECK_EQ(r.psn, 0xabcdefu);
	CHECK_EQ(r.out_reads, 0x10u);
	CHECK_EQ(r.srqn, 7u);
	CHECK(memcmp(r.gid, k.gid, 16) == 0);
	/* The sender leaves the padding as it was (perftest does not set it): it is not read. */
	b[20] = 0x5a;
	iw_perftest_keys_parse(b, &r);
	CHECK_EQ(r.rkey, 0x00b00001u);
	CHECK_EQ(r.vaddr, 0x00007f3a5c010000ull);
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
