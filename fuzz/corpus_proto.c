/*
 * corpus_proto.c - the protocol octets the seeds are made of, each built by the engine's own
 * encoders: RDMAP messages as ULPDUs, FPDU streams (with the engine's deliberate defects when
 * asked), the golden figures of requirements.md §5.1-5.2, and startup frames.
 */
#include <string.h>

#include "corpus_int.h"
#include "ddp.h"
#include "iw_proto.h"
#include "rdmap.h"

/* One RDMAP message as a ULPDU (DDP header + body) under profile p. */
size_t cs_ulpdu(const iw_profile *p, unsigned opcode, bool last, uint32_t msn, uint32_t mo_or_stag, uint64_t to,
		    const uint8_t *body, size_t blen, uint8_t *outb)
{
	const iw_rdmap_opinfo *op = iw_rdmap_op(opcode);
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = op->tagged;
	h.last = last;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, opcode);
	if (h.tagged) {
		h.stag = mo_or_stag;
		h.to = to;
	} else {
		h.qn = op->qn < 0 ? 0 : (uint32_t)op->qn;
		h.msn = msn;
		h.mo = mo_or_stag;
	}
	size_t n = 0;
	iw_ddp_hdr_encode(&h, outb, IW_DDP_UNTAGGED_HDR_LEN, &n, NULL);
	memcpy(outb + n, body, blen);
	return n + blen;
}

/* The messages every stream seed carries: Sends, a Write, a Read Request, a Terminate. */
size_t cs_sample_ulpdus(const iw_profile *p, uint8_t u[6][128], size_t *len)
{
	static const uint8_t hello[24] = "iwspec seed Send payload";
	uint8_t rr[IW_RDMAP_READ_REQ_LEN];
	iw_read_req r = { .sink_stag = 0x100, .sink_to = 0, .size = 32, .src_stag = 0x200, .src_to = 0x10000 };
	iw_read_req_encode(&r, rr);
	iw_terminate t;
	uint8_t tb[64];
	size_t tl = 0;
	len[0] = cs_ulpdu(p, IW_OP_SEND, true, 1, 0, 0, hello, sizeof hello, u[0]);
	len[1] = cs_ulpdu(p, IW_OP_SEND_SE, true, 2, 0, 0, hello, 8, u[1]);
	len[2] = cs_ulpdu(p, IW_OP_WRITE, true, 0, 0x100, 16, hello, 16, u[2]);
	len[3] = cs_ulpdu(p, IW_OP_READ_REQ, true, 1, 0, 0, rr, sizeof rr, u[3]);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN, u[0], len[0]);
	iw_terminate_encode(&t, tb, sizeof tb, &tl, NULL);
	len[4] = cs_ulpdu(p, IW_OP_TERMINATE, true, 1, 0, 0, tb, tl, u[4]);
	len[5] = cs_ulpdu(p, IW_OP_READ_RESP, true, 0, 0x100, 0, hello, 20, u[5]);
	return 6;
}

/* Frames ULPDUs into an FPDU stream; mods (may be NULL) apply to FPDU `bad`. */
void cs_frame_stream(const iw_profile *p, bool markers, bool crc, uint8_t u[][128], const size_t *len, size_t n,
			 const iw_fpdu_mods *mods, size_t bad, sb *s)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, markers, crc);
	for (size_t k = 0; k < n; k++) {
		uint8_t buf[512];
		size_t w = 0;
		if (iw_mpa_tx_fpdu(&tx, u[k], len[k], NULL, 0, k == bad ? mods : NULL, buf, sizeof buf, &w, NULL) == IW_OK)
			sb_mem(s, buf, w);
	}
}

/* Figures 5 and 6 of requirements.md §5.1-5.2 (seed-exact: DV 0, RV 0): a 492-octet FPDU of
 * Send MSN 1 (the figure's unnamed first FPDU), then the 42-octet Send MSN 2 whose ULPDU a
 * marker splits; with fig5_only, the 52-octet Figure 5 FPDU alone. */
void cs_golden_figs(const iw_profile *p, bool fig5_only, sb *s)
{
	uint8_t u[2][512];
	memset(u, 0, sizeof u);
	size_t l0 = fig5_only ? 42 : 482;
	size_t k = cs_ulpdu(p, IW_OP_SEND, true, 1, 0, 0, u[1], l0 - IW_DDP_UNTAGGED_HDR_LEN, u[0]);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, true, true);
	uint8_t buf[1024];
	size_t w;
	if (iw_mpa_tx_fpdu(&tx, u[0], k, NULL, 0, NULL, buf, sizeof buf, &w, NULL) == IW_OK)
		sb_mem(s, buf, w);
	if (fig5_only)
		return;
	uint8_t zero[24] = { 0 };
	k = cs_ulpdu(p, IW_OP_SEND, true, 2, 0, 0, zero, sizeof zero, u[1]);
	if (iw_mpa_tx_fpdu(&tx, u[1], k, NULL, 0, NULL, buf, sizeof buf, &w, NULL) == IW_OK)
		sb_mem(s, buf, w);
}

void cs_frame_bytes(const iw_mpa_frame *f, sb *s)
{
	uint8_t buf[1024];
	size_t n;
	if (iw_mpa_frame_encode(f, buf, sizeof buf, &n, NULL) == IW_OK)
		sb_mem(s, buf, n);
}

/* Frames of a profile: the default, M=1, C=0, R=1 with private data "bad", and under RFC
 * 6581 peer-to-peer with all RTR types offered. */
size_t cs_sample_frames(const iw_profile *p, enum iw_mpa_kind kind, iw_mpa_frame *f)
{
	static const uint8_t bad[3] = { 'b', 'a', 'd' };
	size_t n = 0;
	iw_mpa_frame_init(&f[n++], p, kind);
	f[n] = f[0];
	f[n++].m = true;
	f[n] = f[0];
	f[n++].c = false;
	f[n] = f[0];
	f[n].r = kind == IW_MPA_REPLY;
	f[n].pd = bad;
	f[n++].pd_len = sizeof bad;
	if (p->enhanced) {
		f[n] = f[0];
		f[n].p2p = f[n].rtr_send = f[n].rtr_write = f[n].rtr_read = true;
		n++;
	}
	return n;
}
