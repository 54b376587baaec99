/*
 * gen_rdmap.c - vectors for RDMAP over DDP (RFC 5040; RFC 7306 opcodes recognised, not
 * implemented): opcodes and their queues and buffer models, RV, Send with Invalidate, RDMA
 * Read Requests against the receiver's buffers, Read Responses, and Terminate messages.
 */
#include <string.h>

#include "rdmap.h"
#include "vec_int.h"

static void add(vgen *g, const char *file, const char *desc, const char *reqs, const char *flags, vbuf *s,
		json_t *receiver)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, 0, false, true, NULL, s->b, s->n);
	if (receiver)
		json_object_set_new(v, "receiver", receiver);
	vg_add(g, file, v);
	vb_free(s);
}

/* STag 0x1000 (rw, TO 0x10000), 0x2000 (write-only), 0x6000 (the top 4095 octets of the TO space). */
static json_t *rcv(void)
{
	return json_pack("{s:[{s:s, s:s, s:i, s:s}, {s:s, s:s, s:i, s:s}, {s:s, s:s, s:i, s:s}]}", "stags", "stag",
			 "0x1000", "base_to", "0x10000", "length", 4096, "access", "rw", "stag", "0x2000", "base_to",
			 "0x0", "length", 4096, "access", "w", "stag", "0x6000", "base_to", "0xfffffffffffff000", "length",
			 4095, "access", "rw");
}

/* The receiver with one Read Request outstanding: 64 octets into STag 0x1000 at TO 0x10000. */
static json_t *rcv_reading(void)
{
	json_t *r = rcv();
	json_object_set_new(r, "reads", json_pack("[{s:s, s:s, s:i}]", "sink_stag", "0x1000", "sink_to", "0x10000",
						  "size", 64));
	return r;
}

static void read_req(vbuf *s, uint32_t msn, const iw_read_req *rr, size_t body_len)
{
	iw_ddp_hdr h;
	uint8_t body[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(rr, body);
	vb_untagged_hdr(s, &h, IW_OP_READ_REQ, IW_QN_READ_REQ, msn, 0, true);
	vb_seg(s, &h, body, body_len, NULL);
}

static void send_op(vbuf *s, unsigned opcode, uint32_t qn, uint32_t inval, size_t len)
{
	iw_ddp_hdr h;
	vb_untagged_hdr(s, &h, opcode, qn, 1, 0, true);
	iw_rdmap_set_rsvd_word(&h, inval);
	vb_seg(s, &h, vec_pattern(len), len, NULL);
}

void gen_rdmap(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_ddp_hdr h;
	char d[200];

	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND, 0, 0, 24);
	add(g, "rdmap", "A Send (opcode 0x3) on QN 0", "RFC5040-4.2-03,DDP-6.3-07", "", &s, NULL);
	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND_SE, 0, 0, 24);
	add(g, "rdmap", "A Send with Solicited Event (opcode 0x5) on QN 0", "RFC5040-4.2-01", "", &s, NULL);

	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND_INV, 0, 0x1000, 24);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x1000, 0x10000, true);
	vb_seg(&s, &h, vec_pattern(16), 16, NULL);
	add(g, "rdmap", "A Send with Invalidate of STag 0x1000, then an RDMA Write to it: the STag is invalid from then on "
			"(DDP 0x1/0x00)",
	    "RFC5040-5.3-05,DDP-9.1-T2", "invalid-stag", &s, rcv());
	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND_SE_INV, 0, 0x1000, 24);
	add(g, "rdmap", "A Send with Solicited Event and Invalidate (opcode 0x6) of STag 0x1000", "RFC5040-4.1-06", "", &s,
	    rcv());
	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND_INV, 0, 0x7777, 24);
	add(g, "rdmap", "A Send with Invalidate of an STag the receiver does not have: STag cannot be invalidated "
			"(RDMAP 0x1/0x09)",
	    "RFC5040-5.3-06", "invalidate-unknown-stag", &s, rcv());

	for (unsigned rv = 0; rv < 4; rv++) {
		if (rv == p->rdmap_version)
			continue;
		vb_init(&s, p, false, true, 0);
		vb_untagged_hdr(&s, &h, IW_OP_SEND, 0, 1, 0, true);
		h.rsvdulp[0] = iw_rdmap_ctrl(rv, IW_OP_SEND);
		vb_seg(&s, &h, vec_pattern(24), 24, NULL);
		snprintf(d, sizeof d, "A Send with RDMAP version %u: Invalid RDMAP version (0x0/0x2/0x05)", rv);
		add(g, "rdmap", d, "RFC5040-4.1-03", "rdmap-version", &s, NULL);
	}

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, 0, 1, 0, true);
	h.rsvdulp[0] |= 0x30;
	vb_seg(&s, &h, vec_pattern(24), 24, NULL);
	add(g, "rdmap", "A Send with both RDMAP reserved control bits set: the receiver does not check them",
	    "RFC5040-4.1-05", "rdmap-rsvd-bits", &s, NULL);

	static const unsigned ops[] = {0x8, 0x9, 0xA, 0xB, 0xC, 0xF};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		vb_init(&s, p, false, true, 0);
		send_op(&s, ops[i], 0, 0, 24);
		snprintf(d, sizeof d, "Opcode 0x%X (%s) on QN 0: unexpected opcode (0x0/0x2/0x06)%s", ops[i],
			 iw_rdmap_op(ops[i])->name, iw_rdmap_op(ops[i])->rfc7306 ? ", RFC 7306 is not implemented" : "");
		add(g, "rdmap", d, "RFC5040-4.2-04", "opcode", &s, NULL);
	}

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_WRITE, 0, 1, 0, true);
	vb_seg(&s, &h, vec_pattern(24), 24, NULL);
	add(g, "rdmap", "An RDMA Write (opcode 0x0) in an untagged segment: the T bit does not fit the opcode",
	    "RFC5040-4.2-05", "t-bit-mismatch", &s, NULL);
	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_SEND, 0x1000, 0x10000, true);
	vb_seg(&s, &h, vec_pattern(24), 24, NULL);
	add(g, "rdmap", "A Send (opcode 0x3) in a tagged segment: the T bit does not fit the opcode", "RFC5040-4.2-05",
	    "t-bit-mismatch", &s, rcv());
	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_SEND, IW_QN_READ_REQ, 0, 24);
	add(g, "rdmap", "A Send on QN 1, the RDMA Read Request queue: unexpected opcode there", "RFC5040-4.2-05,DDP-6.3-07",
	    "wrong-queue", &s, NULL);

	iw_read_req rr = {.sink_stag = 0xAAAA, .sink_to = 0x2000, .size = 64, .src_stag = 0x1000, .src_to = 0x10000};
	vb_init(&s, p, false, true, 0);
	read_req(&s, 1, &rr, IW_RDMAP_READ_REQ_LEN);
	add(g, "rdmap", "An RDMA Read Request of 64 octets from STag 0x1000 at TO 0x10000", "RFC5040-4.4-01", "", &s, rcv());

	static const struct {
		uint32_t stag;
		uint64_t to;
		uint32_t size;
		const char *desc, *flags;
	} bad[] = {
		{0x7777, 0, 64, "An RDMA Read Request from an STag the receiver does not have (RDMAP 0x1/0x00)",
		 "invalid-stag"},
		{0x2000, 0, 64, "An RDMA Read Request from a write-only buffer: access rights (RDMAP 0x1/0x02)",
		 "access-rights"},
		{0x1000, 0x10000 + 4000, 200, "An RDMA Read Request past the end of the source buffer (RDMAP 0x1/0x01)",
		 "bounds"},
		{0x6000, 0xFFFFFFFFFFFFFFC0ull, 128, "An RDMA Read Request whose source range wraps 2^64 (RDMAP 0x1/0x04)",
		 "to-wrap"},
		{0x7777, 0, 0, "A zero-length RDMA Read Request from an unknown STag: not checked", "zero-length"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		iw_read_req b = rr;
		b.src_stag = bad[i].stag;
		b.src_to = bad[i].to;
		b.size = bad[i].size;
		vb_init(&s, p, false, true, 0);
		read_req(&s, 1, &b, IW_RDMAP_READ_REQ_LEN);
		add(g, "rdmap", bad[i].desc, "RFC5040-4.4-01,RFC5040-5.2-04", bad[i].flags, &s, rcv());
	}
	vb_init(&s, p, false, true, 0);
	read_req(&s, 1, &rr, 20);
	add(g, "rdmap", "An RDMA Read Request with a 20-octet body instead of 28", "RFC5040-4.4-01", "short-read-request", &s,
	    rcv());
	vb_init(&s, p, false, true, 0);
	send_op(&s, IW_OP_READ_REQ, IW_QN_SEND, 0, IW_RDMAP_READ_REQ_LEN);
	add(g, "rdmap", "An RDMA Read Request on QN 0: unexpected opcode there", "RFC5040-4.2-05", "wrong-queue", &s, rcv());

	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_READ_RESP, 0x1000, 0x10000, true);
	vb_seg(&s, &h, vec_pattern(64), 64, NULL);
	add(g, "rdmap", "An RDMA Read Response answering the receiver's outstanding 64-octet Read", "RFC5040-5.2-03", "", &s,
	    rcv_reading());
	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_READ_RESP, 0x1000, 0x10000, true);
	vb_seg(&s, &h, vec_pattern(64), 64, NULL);
	add(g, "rdmap", "An RDMA Read Response with no Read Request outstanding: unexpected opcode (0x0/0x2/0x06)",
	    "RFC5040-5.2-09", "unsolicited-read-response", &s, rcv());
	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_READ_RESP, 0x2000, 0, true);
	vb_seg(&s, &h, vec_pattern(64), 64, NULL);
	add(g, "rdmap", "An RDMA Read Response to another STag than the Read Request's sink", "RFC5040-5.2-07,DDP-9.1-T1",
	    "invalid-stag", &s, rcv_reading());
	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_READ_RESP, 0x1000, 0x10000 + 32, true);
	vb_seg(&s, &h, vec_pattern(64), 64, NULL);
	add(g, "rdmap", "An RDMA Read Response running 32 octets past the range the Read Request asked for",
	    "RFC5040-5.2-07,DDP-9.1-T4", "bounds", &s, rcv_reading());
}

/* A Terminate message carrying t, as the next FPDU of s. */
static void terminate(vbuf *s, const iw_terminate *t, size_t cut)
{
	uint8_t body[64];
	size_t n = 0;
	iw_terminate_encode(t, body, sizeof body, &n, NULL);
	if (cut && cut < n)
		n = cut;
	iw_ddp_hdr h;
	vb_untagged_hdr(s, &h, IW_OP_TERMINATE, IW_QN_TERMINATE, 1, 0, true);
	vb_seg(s, &h, body, n, NULL);
}

/* The ULPDU a Terminate reports on: a tagged Write or an untagged Read Request. */
static size_t offending(const iw_profile *p, bool tagged, uint8_t *u)
{
	vbuf s;
	iw_ddp_hdr h;
	vb_init(&s, p, false, false, 0);
	uint8_t hb[18], body[IW_RDMAP_READ_REQ_LEN];
	size_t hl = 0;
	if (tagged) {
		vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x9999, 0x100, true);
		iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL);
		memcpy(u, hb, hl);
		memcpy(u + hl, vec_pattern(16), 16);
		return hl + 16;
	}
	iw_read_req rr = {.sink_stag = 0xAAAA, .sink_to = 0x2000, .size = 64, .src_stag = 0x7777, .src_to = 0};
	iw_read_req_encode(&rr, body);
	vb_untagged_hdr(&s, &h, IW_OP_READ_REQ, IW_QN_READ_REQ, 1, 0, true);
	iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL);
	memcpy(u, hb, hl);
	memcpy(u + hl, body, sizeof body);
	return hl + sizeof body;
}

void gen_rdmap_terminate(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_terminate t;
	uint8_t u[128];
	size_t ul;

	static const struct {
		int layer, etype, ecode;
		int attach;     /* 0 none, 1 the tagged Write, 2 the untagged Read Request */
		const char *desc, *reqs;
	} tv[] = {
		{IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_CRC, 0, "A Terminate reporting an MPA CRC error (LLP/0x0/0x02), no "
		 "headers attached", "RFC5040-4.8-08,MPA-7-02"},
		{IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_MARKER, 0, "A Terminate reporting MPA code 3 (marker and ULPDU_Length "
		 "disagree)", "RFC5040-4.8-08,MPA-7-03"},
		{IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, 1, "A Terminate reporting a DDP invalid STag "
		 "(0x1/0x1/0x00) with the 14-octet tagged header attached (M, D)", "RFC5040-4.8-03,RFC5040-4.8-07,DDP-9.1-02,DDP-9.2-01"},
		{IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN, 2, "A Terminate reporting a DDP invalid QN "
		 "(0x1/0x2/0x01) with the 18-octet untagged header attached", "RFC5040-4.8-03,RFC5040-4.8-07,DDP-9.1-02,DDP-9.2-01"},
		{IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_INVALID_STAG, 2, "A Terminate reporting an RDMAP "
		 "invalid STag on a Read Request (0x0/0x1/0x00): the untagged DDP header and the 28-octet Read Request "
		 "attached (M, D, R)", "RFC5040-4.8-10,RFC5040-4.8-04"},
		{IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_VERSION, 0, "A Terminate reporting an invalid RDMAP "
		 "version (0x0/0x2/0x05), no headers", "RFC5040-4.8-17"},
		{IW_LAYER_RDMAP, IW_RDMAP_ET_CATASTROPHIC, 0xFF, 0, "A Terminate reporting a local catastrophic error "
		 "(0x0/0x0/0xFF)", "RFC5040-4.8-09"},
	};
	for (size_t i = 0; i < sizeof tv / sizeof tv[0]; i++) {
		ul = tv[i].attach ? offending(p, tv[i].attach == 1, u) : 0;
		iw_terminate_for(&t, tv[i].layer, tv[i].etype, tv[i].ecode, tv[i].attach ? u : NULL, ul);
		vb_init(&s, p, false, true, 0);
		terminate(&s, &t, 0);
		add(g, "rdmap-terminate", tv[i].desc, tv[i].reqs, "", &s, NULL);
	}

	ul = offending(p, true, u);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, u, ul);
	vb_init(&s, p, false, true, 0);
	terminate(&s, &t, 8);
	add(g, "rdmap-terminate", "A Terminate whose D bit announces a DDP header the body does not hold: a malformed "
				  "Terminate (0x0/0x2/0xFF)",
	    "RFC5040-4.8-02", "malformed-terminate", &s, NULL);

	iw_terminate_for(&t, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_CRC, NULL, 0);
	vb_init(&s, p, false, true, 0);
	terminate(&s, &t, 0);
	vb_send(&s, 1, 24);
	add(g, "rdmap-terminate", "A Terminate, then a Send: the Terminate ends the stream, the Send is not delivered",
	    "RFC5040-5.4-03,DDP-9.1-04", "", &s, NULL);

	vb_init(&s, p, false, true, 0);
	{
		uint8_t body[8];
		size_t n;
		iw_terminate_encode(&t, body, sizeof body, &n, NULL);
		iw_ddp_hdr h;
		vb_untagged_hdr(&s, &h, IW_OP_TERMINATE, IW_QN_SEND, 1, 0, true);
		vb_seg(&s, &h, body, n, NULL);
	}
	add(g, "rdmap-terminate", "A Terminate on QN 0 instead of QN 2: unexpected opcode there (0x0/0x2/0x06)",
	    "RFC5040-5.4-01,RFC5040-4.2-05", "wrong-queue", &s, NULL);
}
