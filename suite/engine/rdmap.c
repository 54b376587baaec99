/*
 * rdmap.c - RDMAP opcodes, the Read Request body, Terminate messages and the per-segment
 * RDMAP checks (RFC 5040; RFC 7306 opcodes recognised, not implemented).
 *
 * Requirement IDs of the form "RFC5040-4.1-03" are rows of the repository's spec/rfc-rows.md
 * (the seeds define no RDMAP, so the drafts' requirements.md has none): the receiver's rules
 * here; suite/verify/ holds the DUT's frames to the sender's rows of the same sections.
 */
#include "rdmap.h"
#include "iw_octets.h"

#include <stdio.h>
#include <string.h>

#define REQ_RDMAP_VERSION   "RFC5040-4.1-03"   /* RV is not 1 */
#define REQ_RDMAP_OPCODE    "RFC5040-4.2-04"   /* a reserved opcode */
#define REQ_RDMAP_MODEL     "RFC5040-4.2-05"   /* the opcode in the other DDP model */
#define REQ_DDP_SHORT       "DDP-6.4-01"

static const iw_rdmap_opinfo ops[16] = {
	[IW_OP_WRITE] = { "RDMA Write", true, false, true, -1 },
	[IW_OP_READ_REQ] = { "RDMA Read Request", true, false, false, IW_QN_READ_REQ },
	[IW_OP_READ_RESP] = { "RDMA Read Response", true, false, true, -1 },
	[IW_OP_SEND] = { "Send", true, false, false, IW_QN_SEND },
	[IW_OP_SEND_INV] = { "Send with Invalidate", true, false, false, IW_QN_SEND },
	[IW_OP_SEND_SE] = { "Send with Solicited Event", true, false, false, IW_QN_SEND },
	[IW_OP_SEND_SE_INV] = { "Send with SE and Invalidate", true, false, false, IW_QN_SEND },
	[IW_OP_TERMINATE] = { "Terminate", true, false, false, IW_QN_TERMINATE },
	[IW_OP_IMM_DATA] = { "Immediate Data", true, true, false, IW_QN_SEND },
	[IW_OP_IMM_DATA_SE] = { "Immediate Data with SE", true, true, false, IW_QN_SEND },
	[IW_OP_ATOMIC_REQ] = { "Atomic Request", true, true, false, IW_QN_READ_REQ },
	[IW_OP_ATOMIC_RESP] = { "Atomic Response", true, true, false, IW_QN_ATOMIC_RESP },
	[0xC] = { "Reserved", false, false, false, -1 },
	[0xD] = { "Reserved", false, false, false, -1 },
	[0xE] = { "Reserved", false, false, false, -1 },
	[0xF] = { "Reserved", false, false, false, -1 },
};

const iw_rdmap_opinfo *iw_rdmap_op(unsigned opcode)
{
	/* Past 4 bits nothing is defined; answering "Reserved" keeps callers free of NULL checks. */
	return &ops[opcode <= 0x0F ? opcode : 0x0F];
}

/* ---- RDMA Read Request ---- */

void iw_read_req_encode(const iw_read_req *r, uint8_t out[IW_RDMAP_READ_REQ_LEN])
{
	iw_put_be32(out, r->sink_stag);
	iw_put_be64(out + 4, r->sink_to);
	iw_put_be32(out + 12, r->size);
	iw_put_be32(out + 16, r->src_stag);
	iw_put_be64(out + 20, r->src_to);
}

int iw_read_req_decode(const uint8_t *buf, size_t len, iw_read_req *r, iw_err *e)
{
	memset(r, 0, sizeof *r);
	if (len < IW_RDMAP_READ_REQ_LEN)
		return iw_errf(e, IW_ETRUNC, "RDMA Read Request body of %zu octets, %d needed (%s)", len,
			       IW_RDMAP_READ_REQ_LEN, "RFC5040-4.4-01");
	r->sink_stag = iw_get_be32(buf);
	r->sink_to = iw_get_be64(buf + 4);
	r->size = iw_get_be32(buf + 12);
	r->src_stag = iw_get_be32(buf + 16);
	r->src_to = iw_get_be64(buf + 20);
	return IW_OK;
}

/* ---- Terminate ---- */

static size_t terminate_len(const iw_terminate *t)
{
	return IW_RDMAP_TERM_CTRL_LEN + (t->d ? 2 + t->ddp_hdr_len : 0) + (t->r ? IW_RDMAP_READ_REQ_LEN : 0);
}

int iw_terminate_encode(const iw_terminate *t, uint8_t *out, size_t cap, size_t *out_len, iw_err *e)
{
	if (t->layer > 0x0F || t->etype > 0x0F)
		return iw_errf(e, IW_EINVAL, "Terminate layer %u / error type %u do not fit their 4 bits",
			       (unsigned)t->layer, (unsigned)t->etype);
	if (t->d) {
		/* The decoder sizes the attached header by its own T bit, so a length that
		 * disagrees with it would not read back as written. */
		size_t want = iw_ddp_hdr_len((t->ddp_hdr[0] & IW_DDP_T) != 0);
		if (t->ddp_hdr_len != want)
			return iw_errf(e, IW_EINVAL, "attached DDP header of %zu octets, but its T bit makes it "
				       "%zu (RFC5040-4.8-02)", t->ddp_hdr_len, want);
	}
	size_t n = terminate_len(t);
	if (cap < n)
		return iw_errf(e, IW_ENOSPC, "Terminate body needs %zu octets, the buffer has %zu", n, cap);

	iw_term_ctrl_set(out, t->layer, t->etype, t->ecode);
	out[2] = (uint8_t)((t->m ? IW_RDMAP_TERM_M : 0) | (t->d ? IW_RDMAP_TERM_D : 0) |
			   (t->r ? IW_RDMAP_TERM_R : 0));
	out[3] = 0;
	size_t o = IW_RDMAP_TERM_CTRL_LEN;
	if (t->d) {
		out[o] = (uint8_t)(t->ddp_seg_len >> 8);
		out[o + 1] = (uint8_t)t->ddp_seg_len;
		memcpy(out + o + 2, t->ddp_hdr, t->ddp_hdr_len);
		o += 2 + t->ddp_hdr_len;
	}
	if (t->r) {
		memcpy(out + o, t->rdma_hdr, IW_RDMAP_READ_REQ_LEN);
		o += IW_RDMAP_READ_REQ_LEN;
	}
	if (out_len)
		*out_len = o;
	return IW_OK;
}

int iw_terminate_decode(const uint8_t *buf, size_t len, iw_terminate *t, iw_err *e)
{
	memset(t, 0, sizeof *t);
	t->broken_row = "RFC5040-4.8-01";
	if (len < IW_RDMAP_TERM_CTRL_LEN)
		return iw_errf(e, IW_ETRUNC, "Terminate body of %zu octets is shorter than its %d-octet control "
			       "word (RFC5040-4.8-01)", len, IW_RDMAP_TERM_CTRL_LEN);
	t->layer = (uint8_t)iw_term_ctrl_layer(buf);
	t->etype = (uint8_t)iw_term_ctrl_etype(buf);
	t->ecode = (uint8_t)iw_term_ctrl_ecode(buf);
	t->m = (buf[2] & IW_RDMAP_TERM_M) != 0;
	t->d = (buf[2] & IW_RDMAP_TERM_D) != 0;
	t->r = (buf[2] & IW_RDMAP_TERM_R) != 0;
	t->has_rdma_hdr = t->r;
	/* The 13 reserved bits are not judged: a receiver ignores them. */

	size_t o = IW_RDMAP_TERM_CTRL_LEN;
	t->broken_row = "RFC5040-4.8-02";
	if (t->d) {
		/* Length field plus the control octet that says how long the header is. */
		if (len < o + 3)
			return iw_errf(e, IW_ETRUNC, "Terminate with D ends after %zu octets, before the DDP segment "
				       "length and the terminated DDP header's control octet (RFC5040-4.8-02)", len);
		t->ddp_seg_len = (uint16_t)(buf[o] << 8 | buf[o + 1]);
		t->ddp_hdr_len = iw_ddp_hdr_len((buf[o + 2] & IW_DDP_T) != 0);
		if (len < o + 2 + t->ddp_hdr_len)
			return iw_errf(e, IW_ETRUNC, "Terminate ends after %zu octets, inside the %zu-octet %s "
				       "terminated DDP header (RFC5040-4.8-02)", len, t->ddp_hdr_len,
				       t->ddp_hdr_len == IW_DDP_TAGGED_HDR_LEN ? "tagged" : "untagged");
		memcpy(t->ddp_hdr, buf + o + 2, t->ddp_hdr_len);
		o += 2 + t->ddp_hdr_len;
	}
	t->broken_row = "RFC5040-4.8-26";
	if (t->r) {
		if (len < o + IW_RDMAP_READ_REQ_LEN)
			return iw_errf(e, IW_ETRUNC, "Terminate ends after %zu octets, inside the %d-octet terminated "
				       "RDMA header R announces (RFC5040-4.8-26)", len, IW_RDMAP_READ_REQ_LEN);
		memcpy(t->rdma_hdr, buf + o, IW_RDMAP_READ_REQ_LEN);
	}
	t->broken_row = NULL;
	return IW_OK;
}

void iw_terminate_for(iw_terminate *t, int layer, int etype, int ecode, const uint8_t *ulpdu, size_t ulpdu_len)
{
	memset(t, 0, sizeof *t);
	t->layer = (uint8_t)(layer & 0x0F);
	t->etype = (uint8_t)(etype & 0x0F);
	t->ecode = (uint8_t)ecode;
	/* An LLP error has no segment whose headers could be trusted; neither has a ULPDU too
	 * short to hold its DDP header (A9): half a header would mislead the peer. */
	if (layer == IW_LAYER_LLP || !ulpdu || ulpdu_len == 0)
		return;
	size_t hl = iw_ddp_hdr_len((ulpdu[0] & IW_DDP_T) != 0);
	if (ulpdu_len < hl)
		return;

	t->d = true;
	memcpy(t->ddp_hdr, ulpdu, hl);
	t->ddp_hdr_len = hl;
	t->m = true;
	t->ddp_seg_len = ulpdu_len > 0xFFFF ? 0xFFFF : (uint16_t)ulpdu_len;

	bool read_req = !(ulpdu[0] & IW_DDP_T) && iw_rdmap_ctrl_opcode(ulpdu[1]) == IW_OP_READ_REQ;
	if (read_req && ulpdu_len >= hl + IW_RDMAP_READ_REQ_LEN) {
		t->r = true;
		t->has_rdma_hdr = true;
		memcpy(t->rdma_hdr, ulpdu + hl, IW_RDMAP_READ_REQ_LEN);
	}
}

/* ---- per-segment RDMAP checks ---- */

static bool reject(iw_violation *v, const char *req, int layer, int etype, int ecode, const char *detail)
{
	if (v) {
		memset(v, 0, sizeof *v);
		v->req = req;
		v->kind = IW_VIOL_FATAL;
		v->layer = layer;
		v->etype = etype;
		v->ecode = ecode;
		snprintf(v->detail, sizeof v->detail, "%s", detail);
	}
	return false;
}

bool iw_rdmap_parse(const iw_profile *p, const uint8_t *ulpdu, size_t len, iw_rdmap_msg *msg, iw_violation *v)
{
	char why[sizeof v->detail];
	size_t hl;

	memset(msg, 0, sizeof *msg);
	if (!p)
		p = iw_profile_default();
	if (iw_ddp_hdr_decode(ulpdu, len, &msg->ddp, &hl, NULL) != IW_OK) {
		/* A9: an invalid DDP header is fatal (DDP-8.2.2-01), and §9.2 has no code for a
		 * malformed header, so the only DDP code that fits is local catastrophic. */
		if (len == 0)
			snprintf(why, sizeof why, "empty ULPDU: no DDP header");
		else
			snprintf(why, sizeof why, "ULPDU of %zu octet%s is shorter than the %zu-octet %s DDP header "
				 "its T bit announces", len, len == 1 ? "" : "s", hl,
				 hl == IW_DDP_TAGGED_HDR_LEN ? "tagged" : "untagged");
		return reject(v, REQ_DDP_SHORT, IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC, why);
	}
	msg->hdr_len = hl;
	msg->rv = iw_rdmap_ctrl_rv(msg->ddp.rsvdulp[0]);
	msg->opcode = iw_rdmap_ctrl_opcode(msg->ddp.rsvdulp[0]);
	msg->payload = ulpdu + hl;
	msg->payload_len = len - hl;

	if (msg->rv != p->rdmap_version) {
		snprintf(why, sizeof why, "RDMAP version %u, the stream uses %u (profile %s)", msg->rv,
			 (unsigned)p->rdmap_version, p->name);
		return reject(v, REQ_RDMAP_VERSION, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_VERSION, why);
	}
	const iw_rdmap_opinfo *op = iw_rdmap_op(msg->opcode);
	if (msg->opcode > IW_OP_TERMINATE) {
		snprintf(why, sizeof why, "opcode 0x%X (%s%s) is not one of RFC 5040's 0x0-0x7", msg->opcode,
			 op->name, op->rfc7306 ? ", RFC 7306, not implemented" : "");
		return reject(v, REQ_RDMAP_OPCODE, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, why);
	}
	if (op->tagged != msg->ddp.tagged) {
		snprintf(why, sizeof why, "%s (opcode 0x%X) travels in %s DDP segments, this one is %s", op->name,
			 msg->opcode, op->tagged ? "tagged" : "untagged", msg->ddp.tagged ? "tagged" : "untagged");
		return reject(v, REQ_RDMAP_MODEL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, why);
	}
	return true;
}
