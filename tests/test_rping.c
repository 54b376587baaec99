/* rping's application message (suite/engine/rping_info.h): the octet layout as rping.c puts it on the
 * wire (address, rkey, size, each big-endian) and the client's data pattern. */
#include "check.h"

#include <string.h>

#include "rping_info.h"

TEST(rping_info_layout)
{
	/* A buffer at 0x00007f5a00001000 with rkey 0xc001 and 64 octets, as the octets go out. */
	static const uint8_t wire[IW_RPING_INFO_LEN] = {0x00, 0x00, 0x7f, 0x5a, 0x00, 0x00, 0x10, 0x00,
							0x00, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x00, 0x40};
	iw_rping_info in;
	iw_rping_info_parse(wire, &in);
	CHECK_EQ(in.to, 0x00007f5a00001000ull);
	CHECK_EQ(in.stag, 0xc001u);
	CHECK_EQ(in.len, 64u);
	uint8_t out[IW_RPING_INFO_LEN];
	iw_rping_info_encode(out, &in);
	CHECK(memcmp(out, wire, sizeof wire) == 0);
	iw_rping_info big = {.to = 0xfedcba9876543210ull, .stag = 0x89abcdefu, .len = 0xffffffffu};
	iw_rping_info back;
	iw_rping_info_encode(out, &big);
	CHECK_EQ(out[0], 0xfe);
	CHECK_EQ(out[8], 0x89);
	iw_rping_info_parse(out, &back);
	CHECK_EQ(back.to, big.to);
	CHECK_EQ(back.stag, big.stag);
	CHECK_EQ(back.len, big.len);
	CHECK(iw_rping_info_len_ok(16));
	CHECK(!iw_rping_info_len_ok(15));
	CHECK(!iw_rping_info_len_ok(17));
}

TEST(rping_data_pattern)
{
	uint8_t b[64];
	iw_rping_data(0, b, sizeof b);
	static const char want0[] = "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr";
	CHECK_EQ(strlen(want0), 63u);
	CHECK(memcmp(b, want0, 63) == 0);
	CHECK_EQ(b[63], 0);
	iw_rping_data(1, b, sizeof b);
	CHECK(memcmp(b, "rdma-ping-1: BCD", 16) == 0);
	/* The letters wrap from 'z' to 'A', and each iteration starts one later (mod 58). */
	iw_rping_data(57, b, sizeof b);
	CHECK(memcmp(b, "rdma-ping-57: zABC", 18) == 0);
	iw_rping_data(58, b, sizeof b);
	CHECK(memcmp(b, "rdma-ping-58: ABC", 17) == 0);
	uint8_t small[5];
	iw_rping_data(123, small, sizeof small);
	CHECK(memcmp(small, "rdma", 4) == 0);
	CHECK_EQ(small[4], 0);
}
