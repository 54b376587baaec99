/*
 * fuzz_rdmap.c - RDMAP parsing, the Read Request body and Terminate messages
 * (suite/engine/rdmap.h; RFC 5040).
 *
 * Input: [profile][layer][etype][ecode][ULPDU...]
 *
 * Invariants:
 *  - iw_rdmap_parse: true only for a complete DDP header, the profile's RV, an RFC 5040
 *    opcode (0-7) and a T bit that matches it, with payload = ULPDU after the header; on false
 *    the violation is the first failed check of the documented order, with its code
 *    (DDP 0/0x00, RDMAP 2/0x05, RDMAP 2/0x06), FATAL and with a requirement ID.
 *  - iw_terminate_decode of any payload: IW_ETRUNC exactly when the body ends before a part
 *    its M/D/R bits announce; on IW_OK re-encoding gives the body's octets back (reserved
 *    bits cleared) and decoding that gives the same fields.
 *  - iw_read_req_decode/encode are inverse on 28 octets.
 *  - iw_terminate_for(layer, etype, ecode, ULPDU) attaches D/M only for a non-LLP error on a
 *    ULPDU holding its whole DDP header, R only for a complete Read Request, and its
 *    encoding decodes to the same fields.
 *  - iw_error_name and iw_rdmap_op answer every value with a terminated string.
 */
#include <string.h>

#include "ddp.h"
#include "fuzz.h"
#include "iw_proto.h"
#include "iw_violation.h"
#include "rdmap.h"

static void same_terminate(const iw_terminate *a, const iw_terminate *b)
{
	FZ_CHECK(a->layer == b->layer && a->etype == b->etype && a->ecode == b->ecode, "Terminate code changed");
	FZ_CHECK(a->m == b->m && a->d == b->d && a->r == b->r && a->has_rdma_hdr == b->has_rdma_hdr,
		 "Terminate flags changed");
	if (a->d)
		FZ_CHECK(a->ddp_seg_len == b->ddp_seg_len && a->ddp_hdr_len == b->ddp_hdr_len &&
				 memcmp(a->ddp_hdr, b->ddp_hdr, a->ddp_hdr_len) == 0, "attached DDP header changed");
	if (a->r)
		FZ_CHECK(memcmp(a->rdma_hdr, b->rdma_hdr, IW_RDMAP_READ_REQ_LEN) == 0, "attached RDMA header changed");
}

static void terminate_body(const uint8_t *b, size_t len)
{
	iw_terminate t;
	iw_err e;
	int rc = iw_terminate_decode(b, len, &t, &e);
	size_t need = IW_RDMAP_TERM_CTRL_LEN;
	if (len >= need) {
		bool d = b[2] & IW_RDMAP_TERM_D, r = b[2] & IW_RDMAP_TERM_R;
		if (d)
			need += 2 + (len > 6 ? iw_ddp_hdr_len(b[6] & IW_DDP_T) : 1);
		if (r && (!d || len >= need))
			need += IW_RDMAP_READ_REQ_LEN;
	}
	if (len < need) {
		FZ_CHECK(rc == IW_ETRUNC, "%zu-octet Terminate body (%zu needed) decoded with rc %d", len, need, rc);
		return;
	}
	FZ_CHECK(rc == IW_OK, "complete Terminate body rejected: %s", e.msg);
	uint8_t out[IW_RDMAP_TERM_CTRL_LEN + 2 + IW_DDP_UNTAGGED_HDR_LEN + IW_RDMAP_READ_REQ_LEN];
	size_t olen = 0;
	rc = iw_terminate_encode(&t, out, sizeof out, &olen, &e);
	FZ_CHECK(rc == IW_OK && olen == need, "re-encode: rc %d, %zu octets for %zu: %s", rc, olen, need, e.msg);
	FZ_CHECK(out[0] == b[0] && out[1] == b[1] && out[2] == (b[2] & 0xE0) && out[3] == 0 &&
			 memcmp(out + 4, b + 4, need - 4) == 0, "re-encoded Terminate differs");
	iw_terminate t2;
	FZ_CHECK(iw_terminate_decode(out, olen, &t2, NULL) == IW_OK, "re-encoded Terminate does not decode");
	same_terminate(&t, &t2);
}

int iw_fuzz_rdmap(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	int layer = fz_u8(&f) % 5 - 1;
	int etype = fz_u8(&f) % 17;
	int ecode = fz_u8(&f);
	size_t len;
	const uint8_t *u = fz_rest(&f, &len);

	iw_rdmap_msg m;
	iw_violation v;
	memset(&v, 0, sizeof v);
	bool ok = iw_rdmap_parse(p, u, len, &m, &v);
	size_t hl = len ? iw_ddp_hdr_len(u[0] & IW_DDP_T) : IW_DDP_TAGGED_HDR_LEN;
	if (len < hl || len == 0) {
		FZ_CHECK(!ok && v.layer == IW_LAYER_DDP && v.etype == IW_DDP_ET_CATASTROPHIC &&
				 v.ecode == IW_DDP_EC_CATASTROPHIC, "short ULPDU (%zu octets): ok %d code %d/%d/%d", len,
			 ok, v.layer, v.etype, v.ecode);
	} else {
		unsigned rv = u[1] >> 6, op = u[1] & 0x0F;
		bool tagged = u[0] & IW_DDP_T;
		FZ_CHECK(m.hdr_len == hl && m.rv == rv && m.opcode == op && m.payload == u + hl && m.payload_len == len - hl,
			 "parsed fields differ from the octets");
		if (rv != p->rdmap_version)
			FZ_CHECK(!ok && v.layer == IW_LAYER_RDMAP && v.etype == IW_RDMAP_ET_OPERATION &&
					 v.ecode == IW_RDMAP_EC_VERSION, "RV %u under %s: ok %d code 0x%02x", rv, p->name, ok,
				 v.ecode);
		else if (op > IW_OP_TERMINATE || iw_rdmap_op(op)->tagged != tagged)
			FZ_CHECK(!ok && v.layer == IW_LAYER_RDMAP && v.etype == IW_RDMAP_ET_OPERATION &&
					 v.ecode == IW_RDMAP_EC_OPCODE, "opcode 0x%x T=%d: ok %d code 0x%02x", op, tagged, ok,
				 v.ecode);
		else
			FZ_CHECK(ok, "valid message rejected: %s", v.detail);
	}
	if (!ok)
		FZ_CHECK(v.req && v.req[0] && v.kind == IW_VIOL_FATAL && memchr(v.detail, 0, sizeof v.detail),
			 "violation without requirement");

	/* Any octets as a Terminate body, and the payload of a parsed message as one. */
	terminate_body(u, len);
	if (ok)
		terminate_body(m.payload, m.payload_len);

	/* Read Request body. */
	iw_read_req rr;
	int rc = iw_read_req_decode(u, len, &rr, NULL);
	FZ_CHECK((rc == IW_OK) == (len >= IW_RDMAP_READ_REQ_LEN), "Read Request of %zu octets: rc %d", len, rc);
	if (rc == IW_OK) {
		uint8_t rb[IW_RDMAP_READ_REQ_LEN];
		iw_read_req_encode(&rr, rb);
		FZ_CHECK(memcmp(rb, u, sizeof rb) == 0, "Read Request does not re-encode to its octets");
	}

	/* The Terminate a receiver would send for an error on this ULPDU. */
	iw_terminate t;
	iw_terminate_for(&t, layer, etype, ecode, u, len);
	bool attach = layer != IW_LAYER_LLP && len > 0 && len >= hl;
	FZ_CHECK(t.d == attach && t.m == attach, "Terminate for layer %d on %zu octets: D %d M %d", layer, len, t.d,
		 t.m);
	FZ_CHECK(t.layer == (layer & 0xF) && t.etype == (etype & 0xF) && t.ecode == (uint8_t)ecode, "code fields");
	if (attach) {
		FZ_CHECK(t.ddp_hdr_len == hl && memcmp(t.ddp_hdr, u, hl) == 0, "attached header is not the ULPDU's");
		FZ_CHECK(t.ddp_seg_len == (len > 0xFFFF ? 0xFFFF : len), "segment length %u for %zu", t.ddp_seg_len, len);
		bool rreq = !(u[0] & IW_DDP_T) && (u[1] & 0x0F) == IW_OP_READ_REQ && len >= hl + IW_RDMAP_READ_REQ_LEN;
		FZ_CHECK(t.r == rreq, "R %d for a ULPDU that is %sa complete Read Request", t.r, rreq ? "" : "not ");
	} else {
		FZ_CHECK(!t.r, "R without D");
	}
	uint8_t tb[IW_RDMAP_TERM_CTRL_LEN + 2 + IW_DDP_UNTAGGED_HDR_LEN + IW_RDMAP_READ_REQ_LEN];
	size_t tl;
	rc = iw_terminate_encode(&t, tb, sizeof tb, &tl, NULL);
	FZ_CHECK(rc == IW_OK, "iw_terminate_for result does not encode: rc %d", rc);
	iw_terminate t2;
	FZ_CHECK(iw_terminate_decode(tb, tl, &t2, NULL) == IW_OK, "iw_terminate_for result does not decode");
	same_terminate(&t, &t2);

	const char *name = iw_error_name(layer, etype, ecode);
	FZ_CHECK(name && memchr(name, 0, 128), "error name");
	FZ_CHECK(iw_rdmap_op((unsigned)ecode)->name != NULL, "opcode name");
	return 0;
}
