/*
 * Ethernet/ARP/IPv4/TCP build and parse of the raw segment path (suite/rawtcp/raw_hdr.h), against
 * frames a Linux kernel sent (captured by tests/cli/rawtcp.sh's setup): building the same
 * fields must give the kernel's octets, checksums included.
 */
#include "check.h"
#include "raw_hdr.h"
#include "rawtcp.h"

/* The kernel's SYN-ACK: 10.214.0.1:4791 -> 10.214.0.2:53489, MSS 1460. */
static const char *kernel_synack =
	"02 69 77 72 61 02 c6 93 da db a5 a2 08 00 45 00 00 2c 00 00 40 00 40 06 25 1e 0a d6 00 01 0a d6"
	"00 02 12 b7 d0 f1 53 71 70 5f dc d1 e5 ca 60 12 fa f0 1d 61 00 00 02 04 05 b4";
/* The kernel's data segment carrying an MPA Reply (PSH, ACK). */
static const char *kernel_reply =
	"02 69 77 72 61 02 c6 93 da db a5 a2 08 00 45 00 00 3c 51 04 40 00 40 06 d4 09 0a d6 00 01 0a d6"
	"00 02 12 b7 d0 f1 53 71 70 60 dc d1 e5 ea 50 18 fa d0 97 7c 00 00 4d 50 41 20 49 44 20 52 65 70"
	"20 46 72 61 6d 65 40 01 00 00";

static void kernel_fields(iw_raw_seg *s)
{
	memset(s, 0, sizeof *s);
	memcpy(s->dst_mac, (uint8_t[6]){ 0x02, 0x69, 0x77, 0x72, 0x61, 0x02 }, 6);
	memcpy(s->src_mac, (uint8_t[6]){ 0xc6, 0x93, 0xda, 0xdb, 0xa5, 0xa2 }, 6);
	memcpy(s->src_ip, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
	memcpy(s->dst_ip, (uint8_t[4]){ 10, 214, 0, 2 }, 4);
	s->src_port = 4791;
	s->dst_port = 53489;
}

TEST(rawtcp_csum_rfc1071)
{
	/* RFC 1071 §3's example sums to 0xddf2; the checksum is its complement. */
	uint8_t b[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	CHECK_EQ(iw_raw_csum(0, b, 8), 0x220d);
	/* An odd length pads with a zero octet. */
	uint8_t c[3] = { 0x01, 0x02, 0x03 };
	CHECK_EQ(iw_raw_csum(0, c, 3), (uint16_t)~(0x0102 + 0x0300));
}

TEST(rawtcp_build_matches_kernel_synack)
{
	uint8_t want[128], got[128];
	size_t n = check_unhex(kernel_synack, want, sizeof want);
	iw_raw_seg s;
	kernel_fields(&s);
	s.seq = 0x5371705f;
	s.ack = 0xdcd1e5ca;
	s.flags = IW_RAW_SYN | IW_RAW_ACK;
	s.window = 0xfaf0;
	s.mss = 1460;
	CHECK_EQ(iw_raw_build_tcp(got, sizeof got, &s), n);
	CHECK_MEM(got, want, n);
	CHECK_EQ(iw_raw_build_tcp(got, n - 1, &s), 0);   /* no room: nothing built */
}

TEST(rawtcp_build_matches_kernel_data)
{
	uint8_t want[128], got[128];
	size_t n = check_unhex(kernel_reply, want, sizeof want);
	iw_raw_seg s;
	kernel_fields(&s);
	s.seq = 0x53717060;
	s.ack = 0xdcd1e5ea;
	s.flags = IW_RAW_PSH | IW_RAW_ACK;
	s.window = 0xfad0;
	s.ip_id = 0x5104;
	s.data = want + 54;
	s.len = 20;
	CHECK_EQ(iw_raw_build_tcp(got, sizeof got, &s), n);
	CHECK_MEM(got, want, n);
}

TEST(rawtcp_parse_kernel_frames)
{
	uint8_t f[128];
	size_t n = check_unhex(kernel_synack, f, sizeof f);
	iw_raw_frame fr;
	iw_err e;
	CHECK_EQ(iw_raw_parse(f, n, &fr, &e), IW_OK);
	CHECK_EQ(fr.kind, IW_RAW_FRAME_TCP);
	CHECK_EQ(fr.tcp.src_port, 4791);
	CHECK_EQ(fr.tcp.dst_port, 53489);
	CHECK_EQ(fr.tcp.seq, 0x5371705f);
	CHECK_EQ(fr.tcp.ack, 0xdcd1e5ca);
	CHECK_EQ(fr.tcp.flags, IW_RAW_SYN | IW_RAW_ACK);
	CHECK_EQ(fr.tcp.window, 0xfaf0);
	CHECK_EQ(fr.tcp.mss, 1460);
	CHECK_EQ(fr.tcp.len, 0);
	CHECK_EQ(fr.tcp.src_ip[3], 1);
	CHECK_EQ(fr.tcp.src_mac[0], 0xc6);

	n = check_unhex(kernel_reply, f, sizeof f);
	CHECK_EQ(iw_raw_parse(f, n, &fr, &e), IW_OK);
	CHECK_EQ(fr.tcp.len, 20);
	CHECK_EQ(fr.tcp.mss, 0);
	CHECK_MEM(fr.tcp.data, "MPA ID Rep Frame", 16);
	/* Ethernet padding after the IPv4 packet is not data. */
	memset(f + n, 0, 6);
	CHECK_EQ(iw_raw_parse(f, n + 6, &fr, &e), IW_OK);
	CHECK_EQ(fr.tcp.len, 20);
}

TEST(rawtcp_parse_rejects_bad_checksums)
{
	uint8_t f[128];
	size_t n = check_unhex(kernel_reply, f, sizeof f);
	iw_raw_frame fr;
	iw_err e;
	f[60] ^= 0x01;   /* a payload octet: the TCP checksum no longer holds */
	CHECK_EQ(iw_raw_parse(f, n, &fr, &e), IW_EPROTO);
	CHECK(strstr(e.msg, "TCP checksum") != NULL);
	CHECK_EQ(fr.kind, IW_RAW_FRAME_OTHER);
	f[60] ^= 0x01;
	f[14 + 8] = 63;  /* TTL: the IPv4 header checksum no longer holds */
	CHECK_EQ(iw_raw_parse(f, n, &fr, &e), IW_EPROTO);
	CHECK(strstr(e.msg, "IPv4 header checksum") != NULL);
	/* Cut short: the total length says more than the frame holds. */
	n = check_unhex(kernel_reply, f, sizeof f);
	CHECK_EQ(iw_raw_parse(f, n - 1, &fr, &e), IW_ETRUNC);
	CHECK_EQ(iw_raw_parse(f, 10, &fr, &e), IW_ETRUNC);
}

TEST(rawtcp_arp_roundtrip)
{
	iw_raw_arp a, b;
	memset(&a, 0, sizeof a);
	memset(a.eth_dst, 0xff, 6);
	memcpy(a.eth_src, (uint8_t[6]){ 2, 1, 2, 3, 4, 5 }, 6);
	a.oper = IW_RAW_ARP_REQUEST;
	memcpy(a.sha, a.eth_src, 6);
	memcpy(a.spa, (uint8_t[4]){ 10, 214, 0, 2 }, 4);
	memcpy(a.tpa, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
	uint8_t f[64];
	size_t n = iw_raw_build_arp(f, sizeof f, &a);
	CHECK_EQ(n, 42);
	/* Ethertype 0x0806, hardware 1, protocol 0x0800, sizes 6 and 4, operation 1. */
	CHECK_MEM(f + 12, "\x08\x06\x00\x01\x08\x00\x06\x04\x00\x01", 10);
	iw_raw_frame fr;
	CHECK_EQ(iw_raw_parse(f, n, &fr, NULL), IW_OK);
	CHECK_EQ(fr.kind, IW_RAW_FRAME_ARP);
	b = fr.arp;
	CHECK_EQ(b.oper, IW_RAW_ARP_REQUEST);
	CHECK_MEM(b.sha, a.sha, 6);
	CHECK_MEM(b.spa, a.spa, 4);
	CHECK_MEM(b.tpa, a.tpa, 4);
	CHECK_EQ(iw_raw_build_arp(f, 41, &a), 0);
}

TEST(rawtcp_parse_ignores_other_frames)
{
	/* An IPv6 frame (the namespace's router solicitations) is neither ARP nor TCP. */
	uint8_t f[60];
	memset(f, 0, sizeof f);
	f[12] = 0x86;
	f[13] = 0xdd;
	iw_raw_frame fr;
	CHECK_EQ(iw_raw_parse(f, sizeof f, &fr, NULL), IW_OK);
	CHECK_EQ(fr.kind, IW_RAW_FRAME_OTHER);
}

TEST(rawtcp_seq_arithmetic_wraps)
{
	CHECK(iw_raw_seq_lt(0xfffffff0u, 0x10));
	CHECK(!iw_raw_seq_lt(0x10, 0xfffffff0u));
	CHECK(iw_raw_seq_le(5, 5));
}

TEST(rawtcp_plan_check)
{
	iw_err e;
	/* Reverse order, a duplicate and an overlap are plans, not errors. */
	iw_raw_step ok[] = { { IW_RAW_SEND, 20, 10, 0 }, { IW_RAW_SEND, 0, 10, 0 }, { IW_RAW_SEND, 0, 10, 0 },
			     { IW_RAW_SEND, 5, 20, 0 } };
	CHECK_EQ(iw_raw_plan_check(ok, 4, 30, 1460, 0, &e), IW_OK);

	iw_raw_step hole[] = { { IW_RAW_SEND, 0, 10, 0 }, { IW_RAW_SEND, 20, 10, 0 } };
	CHECK_EQ(iw_raw_plan_check(hole, 2, 30, 1460, 0, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "[10, 20)") != NULL);

	iw_raw_step past[] = { { IW_RAW_SEND, 0, 31, 0 } };
	CHECK_EQ(iw_raw_plan_check(past, 1, 30, 1460, 0, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "past the end") != NULL);

	iw_raw_step big[] = { { IW_RAW_SEND, 0, 30, 0 } };
	CHECK_EQ(iw_raw_plan_check(big, 1, 30, 16, 0, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "MSS") != NULL);

	iw_raw_step empty[] = { { IW_RAW_SEND, 0, 30, 0 }, { IW_RAW_SEND, 3, 0, 0 } };
	CHECK_EQ(iw_raw_plan_check(empty, 2, 30, 1460, 0, &e), IW_EINVAL);

	iw_raw_step rel[] = { { IW_RAW_SEND, 0, 30, 0 }, { IW_RAW_RELEASE, 0, 0, 0 } };
	CHECK_EQ(iw_raw_plan_check(rel, 2, 30, 1460, 0, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "RELEASE") != NULL);
	/* A segment held by an earlier plan may be released by this one. */
	CHECK_EQ(iw_raw_plan_check(rel, 2, 30, 1460, 1, &e), IW_OK);

	iw_raw_step hold[] = { { IW_RAW_HOLD, 0, 10, 0 }, { IW_RAW_SEND, 10, 20, 0 }, { IW_RAW_RELEASE, 0, 0, 0 },
			       { IW_RAW_RELEASE, 0, 0, 0 } };
	CHECK_EQ(iw_raw_plan_check(hold, 3, 30, 1460, 0, &e), IW_OK);
	CHECK_EQ(iw_raw_plan_check(hold, 4, 30, 1460, 0, &e), IW_EINVAL);

	iw_raw_step drop[] = { { IW_RAW_DROP, 0, 10, 3 }, { IW_RAW_SEND, 10, 20, 0 }, { IW_RAW_WAIT_DUPACKS, 0, 0, 0 } };
	CHECK_EQ(iw_raw_plan_check(drop, 2, 30, 1460, 0, &e), IW_OK);
	CHECK_EQ(iw_raw_plan_check(drop, 3, 30, 1460, 0, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "WAIT_DUPACKS") != NULL);
}

TEST(rawtcp_plan_builders)
{
	iw_raw_step s[8];
	size_t k;
	iw_err e;
	CHECK_EQ(iw_raw_plan_reverse(s, 8, &k, 25, 10, &e), IW_OK);
	CHECK_EQ(k, 3);
	CHECK_EQ(s[0].off, 20);
	CHECK_EQ(s[0].len, 5);
	CHECK_EQ(s[1].off, 10);
	CHECK_EQ(s[2].off, 0);
	CHECK_EQ(s[2].len, 10);
	CHECK_EQ(iw_raw_plan_check(s, k, 25, 10, 0, &e), IW_OK);
	CHECK_EQ(iw_raw_plan_in_order(s, 8, &k, 30, 10, &e), IW_OK);
	CHECK_EQ(k, 3);
	CHECK_EQ(s[1].off, 10);
	CHECK_EQ(iw_raw_plan_in_order(s, 2, &k, 30, 10, &e), IW_ENOSPC);
	CHECK_EQ(iw_raw_plan_reverse(s, 8, &k, 30, 0, &e), IW_EINVAL);
}
