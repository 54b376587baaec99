/*
 * test_rdmap.c - RDMAP opcodes, Read Request bodies, Terminate messages and the per-segment
 * RDMAP checks (RFC 5040, RFC 7306 opcodes; rfc-and-interop.md §7.3; A9 for short ULPDUs).
 */
#include <stdlib.h>

#include "check.h"
#include "rdmap.h"

/* rfc-and-interop.md §7.3 */
TEST(rdmap_opcode_table)
{
	static const struct { unsigned op; const char *name; bool known, rfc7306, tagged; int qn; } rows[] = {
		{ 0x0, "RDMA Write", true, false, true, -1 },
		{ 0x1, "RDMA Read Request", true, false, false, 1 },
		{ 0x2, "RDMA Read Response", true, false, true, -1 },
		{ 0x3, "Send", true, false, false, 0 },
		{ 0x4, "Send with Invalidate", true, false, false, 0 },
		{ 0x5, "Send with Solicited Event", true, false, false, 0 },
		{ 0x6, "Send with SE and Invalidate", true, false, false, 0 },
		{ 0x7, "Terminate", true, false, false, 2 },
		{ 0x8, "Immediate Data", true, true, false, 0 },
		{ 0x9, "Immediate Data with SE", true, true, false, 0 },
		{ 0xA, "Atomic Request", true, true, false, 1 },
		{ 0xB, "Atomic Response", true, true, false, 3 },
		{ 0xC, "Reserved", false, false, false, -1 },
		{ 0xD, "Reserved", false, false, false, -1 },
		{ 0xE, "Reserved", false, false, false, -1 },
		{ 0xF, "Reserved", false, false, false, -1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const iw_rdmap_opinfo *o = iw_rdmap_op(rows[i].op);
		CHECK(o != NULL);
		if (!o)
			continue;
		CHECK_STR(o->name, rows[i].name);
		CHECK_EQ(o->known, rows[i].known);
		CHECK_EQ(o->rfc7306, rows[i].rfc7306);
		CHECK_EQ(o->tagged, rows[i].tagged);
		CHECK_EQ(o->qn, rows[i].qn);
	}
	CHECK_STR(iw_rdmap_op(16)->name, "Reserved");
	CHECK(!iw_rdmap_op(0xFFFFFFFFu)->known);
}

/* §4.3 of requirements.md: Send with RV 1 is 0x43, the seed dumps' RV 0 Send is 0x03. */
TEST(rdmap_control_octet)
{
	CHECK_EQ(iw_rdmap_ctrl(1, IW_OP_SEND), 0x43);
	CHECK_EQ(iw_rdmap_ctrl(0, IW_OP_SEND), 0x03);
	CHECK_EQ(iw_rdmap_ctrl(1, IW_OP_TERMINATE), 0x47);
	CHECK_EQ(iw_rdmap_ctrl(3, 0x1F), 0xCF);
	CHECK_EQ(iw_rdmap_ctrl_rv(0x87), 2);
	CHECK_EQ(iw_rdmap_ctrl_opcode(0x87), 7);
}

TEST(rdmap_read_request_golden_and_truncation)
{
	iw_read_req rr = { 0x11223344u, 0x0102030405060708ull, 0x1000u, 0xAABBCCDDu, 0x1122334455667788ull }, back;
	uint8_t out[IW_RDMAP_READ_REQ_LEN], want[IW_RDMAP_READ_REQ_LEN];
	iw_err e;

	iw_read_req_encode(&rr, out);
	CHECK_EQ(check_unhex("11223344 0102030405060708 00001000 AABBCCDD 1122334455667788", want, sizeof want), 28);
	CHECK_MEM(out, want, sizeof want);
	CHECK_EQ(iw_read_req_decode(out, sizeof out, &back, &e), IW_OK);
	CHECK_EQ(back.sink_stag, rr.sink_stag);
	CHECK_EQ(back.sink_to, rr.sink_to);
	CHECK_EQ(back.size, rr.size);
	CHECK_EQ(back.src_stag, rr.src_stag);
	CHECK_EQ(back.src_to, rr.src_to);
	for (size_t n = 0; n < sizeof out; n++) {
		CHECK_EQ(iw_read_req_decode(out, n, &back, &e), IW_ETRUNC);
		CHECK_EQ(back.size, 0);
	}
	CHECK(strstr(e.msg, "27 octets") != NULL);
}

/* A Write segment that failed the T4 check: Terminate layer DDP with M and D. */
static const char *write_ulpdu_hex = "C1 40 00 00 01 00 00 00 00 00 00 00 10 36  01 02 03 04 05 06 07 08 09 0A 0B";

TEST(rdmap_terminate_for_ddp_error_golden)
{
	uint8_t ulpdu[32], out[64], want[64];
	size_t n = check_unhex(write_ulpdu_hex, ulpdu, sizeof ulpdu), len = 0;
	iw_terminate t, back;
	iw_err e;

	CHECK_EQ(n, 25);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, ulpdu, n);
	CHECK(t.m);
	CHECK(t.d);
	CHECK(!t.r);
	CHECK(!t.has_rdma_hdr);
	CHECK_EQ(t.ddp_seg_len, 25);
	CHECK_EQ(t.ddp_hdr_len, 14);
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, &e), IW_OK);
	size_t wn = check_unhex("11 01 C0 00  00 19  C1 40 00 00 01 00 00 00 00 00 00 00 10 36", want, sizeof want);
	CHECK_EQ(len, wn);
	CHECK_MEM(out, want, wn);
	CHECK_EQ(iw_terminate_decode(out, len, &back, &e), IW_OK);
	CHECK_EQ(back.layer, 1);
	CHECK_EQ(back.etype, 1);
	CHECK_EQ(back.ecode, 1);
	CHECK(back.m && back.d && !back.r);
	CHECK_EQ(back.ddp_seg_len, 25);
	CHECK_EQ(back.ddp_hdr_len, 14);
	CHECK_MEM(back.ddp_hdr, ulpdu, 14);
}

/* A Read Request: D with its 18-octet header and R with its 28-octet body. */
static size_t read_request_ulpdu(uint8_t *u)
{
	return check_unhex("41 41 00 00 00 00  00 00 00 01  00 00 00 01  00 00 00 00"
			   "11223344 0102030405060708 00001000 AABBCCDD 1122334455667788", u, 64);
}

TEST(rdmap_terminate_for_read_request)
{
	uint8_t u[64], out[80];
	size_t n = read_request_ulpdu(u), len = 0;
	iw_terminate t, back;

	CHECK_EQ(n, 46);
	iw_terminate_for(&t, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_INVALID_STAG, u, n);
	CHECK(t.m && t.d && t.r && t.has_rdma_hdr);
	CHECK_EQ(t.ddp_hdr_len, 18);
	CHECK_EQ(t.ddp_seg_len, 46);
	CHECK_MEM(t.rdma_hdr, u + 18, 28);
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, NULL), IW_OK);
	CHECK_EQ(len, 4 + 2 + 18 + 28);
	CHECK_EQ(out[0], 0x01);
	CHECK_EQ(out[1], 0x00);
	CHECK_EQ(out[2], 0xE0);
	CHECK_EQ(out[3], 0x00);
	/* RDMAP etype 1 with an untagged header: 18 octets by the header's T bit, not 14 by the
	 * etype (the Wireshark mis-split of rfc-and-interop.md §2.2). */
	CHECK_EQ(iw_terminate_decode(out, len, &back, NULL), IW_OK);
	CHECK_EQ(back.ddp_hdr_len, 18);
	CHECK(back.has_rdma_hdr);
	CHECK_MEM(back.rdma_hdr, u + 18, 28);
	CHECK_MEM(back.ddp_hdr, u, 18);

	/* A Read Request whose body is cut short gets D but no R. */
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_MO, u, 40);
	CHECK(t.d && !t.r);
	/* A Send gets no R. */
	u[1] = 0x43;
	iw_terminate_for(&t, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, u, n);
	CHECK(t.d && !t.r);
}

TEST(rdmap_terminate_for_attaches_nothing_without_a_header)
{
	uint8_t u[64], out[8];
	size_t n = read_request_ulpdu(u), len = 0;
	iw_terminate t;

	/* LLP errors: nothing (RFC 5040). Encoded as layer 2, etype 0 (MPA), the MPA code. */
	iw_terminate_for(&t, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_CRC, u, n);
	CHECK(!t.m && !t.d && !t.r);
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, NULL), IW_OK);
	CHECK_EQ(len, 4);
	CHECK_MEM(out, "\x20\x02\x00\x00", 4);
	/* A9: a ULPDU shorter than its header has no header to attach. */
	for (size_t k = 0; k < 18; k++) {
		iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC, u, k);
		CHECK(!t.m && !t.d && !t.r);
		CHECK_EQ(t.layer, 1);
	}
	iw_terminate_for(&t, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_VERSION, NULL, 46);
	CHECK(!t.d);
	CHECK_EQ(t.ecode, 0x05);
}

/* Every prefix of a valid Terminate body is a clean IW_ETRUNC. */
TEST(rdmap_terminate_every_prefix_is_a_clean_error)
{
	uint8_t u[64], full[80], ulpdu[32];
	iw_terminate t, back;
	iw_err e;
	size_t lens[2];
	uint8_t bodies[2][80];

	size_t n = read_request_ulpdu(u);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_RANGE, u, n);
	CHECK_EQ(iw_terminate_encode(&t, bodies[0], sizeof bodies[0], &lens[0], NULL), IW_OK);
	n = check_unhex(write_ulpdu_hex, ulpdu, sizeof ulpdu);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_TO_WRAP, ulpdu, n);
	CHECK_EQ(iw_terminate_encode(&t, bodies[1], sizeof bodies[1], &lens[1], NULL), IW_OK);
	for (int b = 0; b < 2; b++) {
		for (size_t k = 0; k < lens[b]; k++) {
			/* A heap copy of exactly k octets, so a read past the end shows under ASan. */
			uint8_t *cut = malloc(k ? k : 1);
			memcpy(cut, bodies[b], k);
			e.msg[0] = 0;
			int rc = iw_terminate_decode(cut, k, &back, &e);
			if (rc != IW_ETRUNC || !e.msg[0])
				check_fail(__FILE__, __LINE__, "body %d cut at %zu: rc %d \"%s\"", b, k, rc, e.msg);
			free(cut);
		}
		memcpy(full, bodies[b], lens[b]);
		CHECK_EQ(iw_terminate_decode(full, lens[b], &back, &e), IW_OK);
	}
}

TEST(rdmap_terminate_encode_rejects)
{
	iw_terminate t;
	uint8_t out[64];
	iw_err e;
	size_t len;

	memset(&t, 0, sizeof t);
	t.layer = 16;
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, &e), IW_EINVAL);
	t.layer = 1;
	t.etype = 0x10;
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, &e), IW_EINVAL);
	t.etype = 1;
	t.d = true;
	t.ddp_hdr[0] = 0xC1;                 /* tagged: 14 octets */
	t.ddp_hdr_len = 18;
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "T bit") != NULL);
	t.ddp_hdr_len = 14;
	CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, &e), IW_OK);
	CHECK_EQ(len, 20);
	for (size_t cap = 0; cap < 20; cap++)
		CHECK_EQ(iw_terminate_encode(&t, out, cap, &len, &e), IW_ENOSPC);
}

/* Decode then encode gives back the input, reserved bits aside; random input never crashes. */
TEST(rdmap_terminate_random_roundtrip)
{
	srand(99);
	for (int i = 0; i < 5000; i++) {
		uint8_t in[64], out[64];
		size_t n = (size_t)(rand() % 64), len = 0;
		iw_terminate t;
		for (size_t k = 0; k < n; k++)
			in[k] = (uint8_t)rand();
		if (n > 2 && (i & 1))
			in[2] |= 0x40;               /* D set more often */
		if (iw_terminate_decode(in, n, &t, NULL) != IW_OK)
			continue;
		CHECK_EQ(iw_terminate_encode(&t, out, sizeof out, &len, NULL), IW_OK);
		CHECK(len <= n);
		in[2] &= 0xE0;                       /* the 13 reserved bits are not kept */
		in[3] = 0;
		if (memcmp(in, out, len) != 0) {
			check_fail(__FILE__, __LINE__, "round trip differs: %s vs %s", check_hex(in, len), check_hex(out, len));
			break;
		}
	}
}

/* ---- iw_rdmap_parse ---- */

static size_t mk_ulpdu(uint8_t *u, bool tagged, unsigned rv, unsigned opcode, uint32_t qn, size_t payload)
{
	iw_ddp_hdr h;
	size_t n = 0;
	memset(&h, 0, sizeof h);
	h.tagged = tagged;
	h.last = true;
	h.dv = IW_DDP_VERSION;
	h.rsvdulp[0] = iw_rdmap_ctrl(rv, opcode);
	h.stag = 0x100;
	h.to = 0x1000;
	h.qn = qn;
	h.msn = 1;
	iw_ddp_hdr_encode(&h, u, 18, &n, NULL);
	for (size_t k = 0; k < payload; k++)
		u[n + k] = (uint8_t)k;
	return n + payload;
}

TEST(rdmap_parse_accepts_rfc5040_messages)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	for (unsigned op = 0; op <= IW_OP_TERMINATE; op++) {
		uint8_t u[64];
		const iw_rdmap_opinfo *o = iw_rdmap_op(op);
		size_t n = mk_ulpdu(u, o->tagged, 1, op, (uint32_t)(o->qn < 0 ? 0 : o->qn), 10);
		iw_rdmap_msg m;
		iw_violation v;
		v.req = "untouched";
		CHECK(iw_rdmap_parse(p, u, n, &m, &v));
		CHECK_STR(v.req, "untouched");
		CHECK_EQ(m.opcode, op);
		CHECK_EQ(m.rv, 1);
		CHECK_EQ(m.hdr_len, o->tagged ? 14 : 18);
		CHECK(m.payload == u + m.hdr_len);
		CHECK_EQ(m.payload_len, 10);
		CHECK_EQ(m.ddp.tagged, o->tagged);
	}
}

/* DDP-6.4-01, A9: shorter than the header the T bit announces -> DDP 0x0/0x00. */
TEST(rdmap_parse_short_ulpdu_is_ddp_catastrophic)
{
	const iw_profile *p = iw_profile_default();
	uint8_t t[18], u[18];
	mk_ulpdu(t, true, 1, IW_OP_WRITE, 0, 0);
	mk_ulpdu(u, false, 1, IW_OP_SEND, 0, 0);
	for (int tagged = 0; tagged < 2; tagged++) {
		size_t need = tagged ? 14 : 18;
		for (size_t n = 0; n < need; n++) {
			uint8_t *cut = malloc(n ? n : 1);
			memcpy(cut, tagged ? t : u, n);
			iw_rdmap_msg m;
			iw_violation v;
			CHECK(!iw_rdmap_parse(p, cut, n, &m, &v));
			CHECK_STR(v.req, "DDP-6.4-01");
			CHECK_EQ(v.kind, IW_VIOL_FATAL);
			CHECK_EQ(v.layer, IW_LAYER_DDP);
			CHECK_EQ(v.etype, 0x0);
			CHECK_EQ(v.ecode, 0x00);
			CHECK_EQ(m.hdr_len, 0);
			CHECK(m.payload == NULL);
			if (n > 0 && !strstr(v.detail, tagged ? "14-octet tagged" : "18-octet untagged"))
				check_fail(__FILE__, __LINE__, "detail \"%s\"", v.detail);
			free(cut);
		}
	}
	iw_rdmap_msg m;
	CHECK(!iw_rdmap_parse(p, u, 0, &m, NULL));          /* v may be NULL */
}

/* RDMAP version against the profile (A3): RFC profiles want 1, seed-exact 0. */
TEST(rdmap_parse_version)
{
	const iw_profile *rfc = iw_profile_get(IW_PROFILE_RFC6581), *seed = iw_profile_get(IW_PROFILE_SEED_EXACT);
	uint8_t u[64];
	iw_rdmap_msg m;
	iw_violation v;
	for (unsigned rv = 0; rv < 4; rv++) {
		size_t n = mk_ulpdu(u, false, rv, IW_OP_SEND, 0, 4);
		bool ok = iw_rdmap_parse(rfc, u, n, &m, &v);
		CHECK_EQ(ok, rv == 1);
		CHECK_EQ(m.rv, rv);
		if (!ok) {
			CHECK_EQ(v.layer, IW_LAYER_RDMAP);
			CHECK_EQ(v.etype, 2);
			CHECK_EQ(v.ecode, 0x05);
			CHECK_STR(v.req, "RFC5040-4.1-03");
		}
		CHECK_EQ(iw_rdmap_parse(seed, u, n, &m, &v), rv == 0);
	}
	/* Version comes before the opcode: a bad RV with a bad opcode is 0x05. */
	size_t n = mk_ulpdu(u, false, 2, 0xC, 0, 0);
	CHECK(!iw_rdmap_parse(rfc, u, n, &m, &v));
	CHECK_EQ(v.ecode, 0x05);
}

/* Opcodes 0x8-0xF: RFC 7306 ones are recognised but not implemented -> 0x2/0x06. */
TEST(rdmap_parse_unimplemented_opcodes)
{
	const iw_profile *p = iw_profile_default();
	for (unsigned op = 8; op < 16; op++) {
		uint8_t u[64];
		iw_rdmap_msg m;
		iw_violation v;
		size_t n = mk_ulpdu(u, false, 1, op, op == 0xB ? 3 : 0, 8);
		CHECK(!iw_rdmap_parse(p, u, n, &m, &v));
		CHECK_EQ(v.layer, IW_LAYER_RDMAP);
		CHECK_EQ(v.etype, 2);
		CHECK_EQ(v.ecode, 0x06);
		CHECK_STR(v.req, "RFC5040-4.2-04");
		CHECK_EQ(m.opcode, op);
		CHECK_EQ(strstr(v.detail, "RFC 7306") != NULL, op <= 0xB);
	}
}

/* A T bit that contradicts the opcode: a tagged Send, an untagged Write, ... -> 0x2/0x06. */
TEST(rdmap_parse_t_bit_mismatch)
{
	const iw_profile *p = iw_profile_default();
	for (unsigned op = 0; op <= IW_OP_TERMINATE; op++) {
		uint8_t u[64];
		iw_rdmap_msg m;
		iw_violation v;
		bool tagged = !iw_rdmap_op(op)->tagged;
		size_t n = mk_ulpdu(u, tagged, 1, op, 0, 4);
		CHECK(!iw_rdmap_parse(p, u, n, &m, &v));
		CHECK_EQ(v.layer, IW_LAYER_RDMAP);
		CHECK_EQ(v.etype, 2);
		CHECK_EQ(v.ecode, 0x06);
		CHECK(strstr(v.detail, tagged ? "this one is tagged" : "this one is untagged") != NULL);
		/* The DDP header was read, so a Terminate can still carry it. */
		CHECK_EQ(m.hdr_len, tagged ? 14 : 18);
	}
}

/* The QN of an untagged message is the sink's business (DDP-9.1-U1), not the parser's. */
TEST(rdmap_parse_leaves_qn_to_the_sink)
{
	uint8_t u[64];
	iw_rdmap_msg m;
	iw_violation v;
	size_t n = mk_ulpdu(u, false, 1, IW_OP_SEND, 1, 4);
	CHECK(iw_rdmap_parse(iw_profile_default(), u, n, &m, &v));
	CHECK_EQ(m.ddp.qn, 1);
	n = mk_ulpdu(u, false, 1, IW_OP_READ_REQ, 0xFFFFFFFFu, 28);
	CHECK(iw_rdmap_parse(iw_profile_default(), u, n, &m, &v));
	/* DV is the sink's too. */
	u[0] = (uint8_t)((u[0] & ~IW_DDP_DV_MASK) | 2);
	CHECK(iw_rdmap_parse(iw_profile_default(), u, n, &m, &v));
	CHECK_EQ(m.ddp.dv, 2);
}

/* A whole Terminate message: untagged QN 2 with opcode 7, its body decoded from the payload. */
TEST(rdmap_parse_terminate_message)
{
	uint8_t u[64];
	size_t n = check_unhex("41 47 00 00 00 00  00 00 00 02  00 00 00 01  00 00 00 00"
			       "20 02 00 00", u, sizeof u);
	iw_rdmap_msg m;
	iw_violation v;
	iw_terminate t;
	CHECK(iw_rdmap_parse(iw_profile_default(), u, n, &m, &v));
	CHECK_EQ(m.opcode, IW_OP_TERMINATE);
	CHECK_EQ(m.ddp.qn, IW_QN_TERMINATE);
	CHECK_EQ(iw_terminate_decode(m.payload, m.payload_len, &t, NULL), IW_OK);
	CHECK_EQ(t.layer, IW_LAYER_LLP);
	CHECK_EQ(t.etype, 0);
	CHECK_EQ(t.ecode, IW_MPA_E_CRC);
	CHECK_STR(iw_error_name(t.layer, t.etype, t.ecode), "LLP/0x0/0x02 (MPA CRC error)");
}
