/*
 * netfuzz_render.c - the octets of a program's actions: the harness's startup frame with its
 * mutated fields, and an RDMAP message as DDP segments in FPDUs (markers and CRC as the model
 * negotiated, segments reordered or left out as the program says). Writes and Reads meant for
 * the DUT's buffer use the STag its reflector advertised in its greeting.
 */
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "reflector_greeting.h"
#include "netfuzz_int.h"

bool nf_rreserve(nf_session *s, size_t n) { return nf_grow(&s->rbuf, &s->rcap, n); }

size_t nf_render_frame(nf_session *s, const nf_prog *p, const nf_action *a)
{
	const nf_frame *fr = &a->fr;
	enum iw_mpa_kind kind = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, s->d.profile, kind);
	if (fr->other_key)
		memcpy(f.key, iw_mpa_key(kind == IW_MPA_REQUEST ? IW_MPA_REPLY : IW_MPA_REQUEST), IW_MPA_KEY_LEN);
	if (fr->key_octet >= 0)
		f.key[fr->key_octet & 15] ^= (uint8_t)fr->key_xor;
	if (fr->m >= 0) f.m = fr->m;
	if (fr->c >= 0) f.c = fr->c;
	if (fr->r >= 0) f.r = fr->r;
	if (fr->res >= 0) f.res = (uint8_t)fr->res;
	if (fr->enhanced >= 0) f.enhanced = fr->enhanced;
	if (fr->rev >= 0) f.rev = (uint8_t)fr->rev;
	if (fr->irdord >= 0) f.has_irdord = fr->irdord;
	if (fr->ird >= 0) f.ird = (uint16_t)fr->ird;
	if (fr->ord >= 0) f.ord = (uint16_t)fr->ord;
	uint8_t pd[NF_POOL];
	for (size_t i = 0; i < a->len && i < sizeof pd; i++)
		pd[i] = nf_act_octet(p, a, i);
	f.pd = a->len ? pd : NULL;
	f.pd_len = a->len;
	if (fr->pd_length >= 0) {
		f.pd_length_auto = false;
		f.pd_length = (uint16_t)fr->pd_length;
	}
	size_t cap = iw_mpa_frame_size(&f), len = 0;
	if (!nf_rreserve(s, cap) || iw_mpa_frame_encode(&f, s->rbuf, s->rcap, &len, NULL) != IW_OK)
		return 0;
	s->c.tr.frame = f;
	s->c.tr.frame.pd = NULL;
	return len;
}

size_t nf_render_fpdu(nf_session *s, const nf_prog *p, const nf_action *a)
{
	const nf_fpdu *x = &a->fp;
	uint8_t fixed[64];
	const uint8_t *body = NULL;
	size_t blen = 0;
	uint8_t *owned = NULL;
	uint32_t adv = s->c.have_adv ? s->c.adv_stag : NF_NO_STAG;
	if (x->msg == NF_M_READ_REQ) {
		iw_read_req rr = x->rr;
		if (x->rr_src_adv)
			rr.src_stag = adv;
		iw_read_req_encode(&rr, fixed);
		body = fixed;
		blen = IW_RDMAP_READ_REQ_LEN;
	} else if (x->msg == NF_M_TERMINATE) {
		iw_terminate t;
		iw_terminate_for(&t, x->t_layer, x->t_etype, x->t_ecode, NULL, 0);
		if (iw_terminate_encode(&t, fixed, sizeof fixed, &blen, NULL) != IW_OK)
			blen = 0;
		body = fixed;
	} else if (a->len) {
		owned = malloc(a->len);
		if (!owned)
			return 0;
		for (size_t i = 0; i < a->len; i++)
			owned[i] = nf_act_octet(p, a, i);
		body = owned;
		blen = a->len;
	}
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = x->tagged;
	h.last = x->last;
	h.dv = x->dv & 3;
	h.rsvd = x->rsvd & 15;
	if (x->rsvdulp_set)
		memcpy(h.rsvdulp, x->rsvdulp, 5);
	h.rsvdulp[0] = iw_rdmap_ctrl(x->rv, x->opcode);
	if (x->msg == NF_M_SEND_INV && x->stag_adv)
		iw_rdmap_set_rsvd_word(&h, adv);
	h.stag = x->stag_adv && x->tagged ? adv : x->stag;
	h.to = x->to;
	h.qn = x->qn;
	h.msn = x->msn;
	size_t mulpdu = x->mulpdu ? x->mulpdu : 65535;
	iw_ddp_segmenter sg;
	if (iw_ddp_seg_init(&sg, &h, blen, mulpdu, NULL) != IW_OK && iw_ddp_seg_init(&sg, &h, blen, 65535, NULL) != IW_OK) {
		free(owned);
		return 0;
	}
	struct { iw_ddp_hdr h; size_t off, len; } segs[64];
	size_t nseg = 0;
	while (nseg < 64 && iw_ddp_seg_next(&sg, &segs[nseg].h, &segs[nseg].off, &segs[nseg].len))
		nseg++;
	size_t order[64], norder = nseg;
	for (size_t i = 0; i < nseg; i++)
		order[i] = i;
	if (x->norder) {
		norder = 0;
		for (size_t i = 0; i < x->norder && i < 8; i++)
			if (x->order[i] < nseg)
				order[norder++] = x->order[i];
	}
	size_t len = 0;
	for (size_t k = 0; k < norder; k++) {
		iw_ddp_hdr hh = segs[order[k]].h;
		if (x->last_set)
			hh.last = x->last;
		if (x->mo_set)
			hh.mo = x->mo;
		uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
		size_t hl = 0;
		if (iw_ddp_hdr_encode(&hh, hb, sizeof hb, &hl, NULL) != IW_OK)
			continue;
		size_t plen = segs[order[k]].len;
		size_t need = iw_mpa_tx_size(&s->c.tx, hl + plen) + 16;
		if (!nf_rreserve(s, len + need))
			break;
		size_t w = 0;
		if (iw_mpa_tx_fpdu(&s->c.tx, hb, hl, body ? body + segs[order[k]].off : NULL, plen, &x->mods, s->rbuf + len,
				   s->rcap - len, &w, NULL) != IW_OK)
			continue;
		len += w;
	}
	free(owned);
	return len;
}

/* The model entered full operation on our last octets: frame our direction as it says. */
void nf_tx_sync(nf_session *s, bool *tx_ready)
{
	if (*tx_ready)
		return;
	enum iw_conn_state st = iw_conn_state(s->c.model);
	if (st == IW_CS_AWAIT_FIRST_FPDU || st == IW_CS_FULL ||
	    ((st == IW_CS_FAILED || st == IW_CS_CLOSED) && s->c.obs.released)) {
		iw_conn_params prm;
		iw_conn_params_get(s->c.model, &prm);
		iw_mpa_tx_init(&s->c.tx, s->d.profile, prm.markers_rx, prm.crc);
		*tx_ready = true;
	}
}

/* The DUT's greeting, when the program needs its STag: read until it is in (or give up). */
bool nf_want_greeting(nf_session *s)
{
	if (s->c.have_adv || !s->d.greeting || !s->c.obs.released)
		return false;
	nf_nodelay(s); /* what follows the wait must not wait for an ACK */
	if (!nf_flush(s))
		return false;
	int64_t deadline = iw_net_now_ms() + s->run_timeout_ms;
	for (;;) {
		const nf_trace *t = &s->c.tr;
		iw_mpa_frame f;
		size_t flen = 0;
		size_t start = 0;
		if (s->d.profile->startup_frames) {
			if (iw_mpa_frame_decode(s->d.profile, t->from_dut, t->from_len, &f, &flen, NULL) == IW_OK)
				start = flen;
			else
				start = SIZE_MAX;
		}
		if (start != SIZE_MAX && t->from_len > start) {
			iw_conn_params prm;
			iw_conn_params_get(s->c.model, &prm);
			nf_finding scratch;
			memset(&scratch, 0, sizeof scratch);
			nf_decode_msgs(&s->dec, s->d.profile, t->from_dut + start, t->from_len - start, prm.markers_tx,
				       prm.crc, &s->dec.dut, &scratch);
			if (s->dec.dut.n) {
				const nf_msgrec *m = &s->dec.dut.m[0];
				if (m->opcode == IW_OP_SEND && iw_greeting_len_ok(m->len)) {
					const uint8_t *g = s->dec.dut.data + m->off;
					uint64_t to;
					uint32_t len;
					iw_greeting_parse(g, &s->c.adv_stag, &to, &len);
					s->c.have_adv = true;
					iw_err e;
					(void)iw_conn_register(s->c.model, s->c.adv_stag, 0, s->adv_mem, NF_ADV_LEN,
							       IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e);
				}
				return true;
			}
		}
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0 || nf_session_expired(s) || !nf_pull(s, (int)(left > 20 ? 20 : left)))
			return true;
	}
}
