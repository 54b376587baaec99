/*
 * iw_conn_startup.c - the connection model's startup phase: the initiator's Request, the
 * responder's Reply, and the judgement of the peer's frame (MR §6.1, §6.1.1; RFC 5044;
 * RFC 6581).
 *
 * The peer's frame is collected octet by octet into a buffer of 20 + the profile's pd_max,
 * reserved at new. It is judged twice: once its 20-octet header is in (so a bad key, a bad
 * Rev or a PD_Length above the limit closes at once, MPA-7-06, without waiting for private
 * data that may never come) and again when the whole frame is in.
 *
 * Choices the drafts leave open, made here:
 *  - Octets after the peer's frame belong to the FPDU stream (A6) and are processed at once.
 *  - A responder sends IW_EV_FULL_OPERATION with its Reply: the ULP may queue messages then,
 *    and the model holds them until the first valid FPDU (rule 4) - what a reflector's
 *    greeting needs.
 *  - CRC: our C bit is 1 unless the administrator turned CRCs off (MPA-5.2-02/03): the
 *    initiator then sends want_crc, the responder C=0 only when the Request also had C=0
 *    (there is no point in declaring 0 once the peer has asked for CRCs, MPA-6.1.1-C2).
 *  - RFC 6581 IRD/ORD: each side's IRD = min(own IRD, peer ORD) and ORD = min(own ORD, peer
 *    IRD); no "insufficient IRD" (code 6) is raised. A responder answers a Request without
 *    the Enhanced block (a Rev 1 initiator) as RFC 5044 would, with Rev 1 and no block.
 */
#include <stdio.h>
#include <string.h>

#include "iw_conn_int.h"
#include "iw_proto.h"

/* RFC 6581's RTR negotiation (§9.2, rows of spec/rfc-rows.md: the seeds predate it): the
 * Responder sets the flag of each offered type it supports and MAY add others; a Reply that sets
 * none leaves the Initiator nothing to generate, and it refuses with code 7. */
#define REQ_RTR_NONE "RFC6581-9.2-11"

static enum iw_mpa_kind expected_kind(const iw_conn *c)
{
	return c->cfg.role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
}

static uint16_t min16(uint16_t a, uint16_t b)
{
	return a < b ? a : b;
}

void iw_conn_build_own_frame(iw_conn *c)
{
	iw_mpa_frame *f = &c->own;
	iw_mpa_frame_init(f, c->p, c->cfg.role == IW_ROLE_INITIATOR ? IW_MPA_REQUEST : IW_MPA_REPLY);
	f->m = c->cfg.want_markers;
	/* MPA-5.2-02/03: C=0 only on the administrator's explicit request. */
	f->c = c->cfg.want_crc || !c->cfg.crc_admin_off;
	f->pd = c->own_pd;
	f->pd_len = c->cfg.pd_len;
	if (f->has_irdord) {
		f->ird = c->cfg.ird;
		f->ord = c->cfg.ord;
		if (c->cfg.role == IW_ROLE_INITIATOR && c->cfg.p2p) {
			f->p2p = true;
			f->rtr_send = c->cfg.rtr & IW_RTR_SEND;
			f->rtr_write = c->cfg.rtr & IW_RTR_WRITE;
			f->rtr_read = c->cfg.rtr & IW_RTR_READ;
		}
	}
}

static int queue_frame(iw_conn *c, const iw_mpa_frame *f, iw_err *e)
{
	size_t n = iw_mpa_frame_size(f);
	if (!iw_conn_out_room(c, n))
		return iw_errf(e, IW_ENOSPC, "output queue: no room for the %zu-octet startup frame", n);
	size_t w;
	int rc = iw_mpa_frame_encode(f, c->out + c->out_len, c->out_alloc - c->out_len, &w, e);
	if (rc == IW_OK)
		c->out_len += w;
	return rc;
}

int iw_conn_send_request(iw_conn *c, iw_err *e)
{
	return queue_frame(c, &c->own, e);
}

/* The frame is improper: report it and close with no Reply (MPA-6.1-R2b, R3b, MPA-7-06). */
static void reject_frame(iw_conn *c, const iw_viol_list *l)
{
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_FRAME_REJECTED);
	if (ev) {
		const iw_violation *v = NULL;
		for (size_t i = 0; i < l->n && !v; i++)
			if (l->v[i].kind == IW_VIOL_FATAL)
				v = &l->v[i];
		if (v)
			ev->viol = *v;
	}
	iw_conn_close(c, IW_CS_FAILED);
}

static void reject_one(iw_conn *c, const char *req, uint64_t off, const char *detail)
{
	iw_viol_list l = { .v = c->fviol, .cap = IW_CONN_FRAME_VIOLS };
	iw_viol_add(&l, req, IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, off, "%s", detail);
	reject_frame(c, &l);
}

/* Judges the 20-octet header alone. Returns false when the model has closed. */
static bool header_check(iw_conn *c)
{
	uint8_t hdr[IW_MPA_FRAME_HDR_LEN];
	iw_mpa_frame f;
	size_t flen;

	/* Decoding a copy with PD_Length 0 gives every header field without the private data;
	 * the real PD_Length is put back for the check (its limit, the Enhanced block). */
	memcpy(hdr, c->sbuf, sizeof hdr);
	iw_mpa_frame_set_pd_length(hdr, 0);
	if (iw_mpa_frame_decode(c->p, hdr, sizeof hdr, &f, &flen, NULL) != IW_OK) {
		reject_one(c, "MPA-6.1-R2b", 0, "startup frame header could not be decoded");
		return false;
	}
	f.pd_length = iw_mpa_frame_pd_length(c->sbuf);
	f.has_irdord = f.enhanced && f.pd_length >= IW_MPA_IRDORD_LEN;
	f.pd = NULL;
	f.pd_len = 0;

	iw_viol_list l = { .v = c->fviol, .cap = IW_CONN_FRAME_VIOLS };
	if (!iw_mpa_frame_check(c->p, &f, expected_kind(c), &l)) {
		reject_frame(c, &l);
		return false;
	}
	c->sneed = IW_MPA_FRAME_HDR_LEN + (size_t)f.pd_length;
	if (c->sneed > c->scap) {
		/* The check and the buffer disagree on the limit: the buffer decides (MPA-6.1-R9b). */
		reject_one(c, "MPA-6.1-R9b", 18, "PD_Length larger than the private data buffer");
		return false;
	}
	return true;
}

static void negotiate_irdord(iw_conn *c, const iw_mpa_frame *peer)
{
	c->params.ird = c->cfg.ird;
	c->params.ord = c->cfg.ord;
	c->irdord_negotiated = c->own.has_irdord && peer->has_irdord;
	if (c->irdord_negotiated) {
		c->params.ird = peer->ord == IW_MPA_IRDORD_NONE ? c->cfg.ird : min16(c->cfg.ird, peer->ord);
		c->params.ord = peer->ird == IW_MPA_IRDORD_NONE ? c->cfg.ord : min16(c->cfg.ord, peer->ird);
	}
}

/* One RTR type out of a set, Write first, then Read, then Send. */
static unsigned pick_rtr(unsigned offered)
{
	if (offered & IW_RTR_WRITE)
		return IW_RTR_WRITE;
	if (offered & IW_RTR_READ)
		return IW_RTR_READ;
	if (offered & IW_RTR_SEND)
		return IW_RTR_SEND;
	return 0;
}

static void responder_accept(iw_conn *c)
{
	const iw_mpa_frame *rq = &c->peer;
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_FRAME_ACCEPTED);
	if (ev)
		ev->frame = *rq;

	iw_mpa_frame *rp = &c->own;
	rp->r = c->cfg.reject && c->p->r_bit;   /* MPA-6.1-R2c/R2f */
	/* MPA-6.1.1-C1/C2, MPA-5.2-02: 0 only when both the administrator and the peer say so. */
	rp->c = !(c->cfg.crc_admin_off && !rq->c);
	if (c->p->enhanced) {
		if (rq->enhanced && rq->has_irdord) {
			rp->rev = rq->rev < c->p->mpa_rev ? rq->rev : c->p->mpa_rev;
			/* RFC 6581 §9.1 ¶13: 0x3FFF is the ULP's to handle: the Reply says 0x3FFF back,
			 * and the local value stays (negotiate_irdord). */
			rp->ird = rq->ord == IW_MPA_IRDORD_NONE ? IW_MPA_IRDORD_NONE : min16(c->cfg.ird, rq->ord);
			rp->ord = rq->ird == IW_MPA_IRDORD_NONE ? IW_MPA_IRDORD_NONE : min16(c->cfg.ord, rq->ird);
			if (rq->p2p) {
				unsigned offered = (rq->rtr_send ? IW_RTR_SEND : 0) |
						   (rq->rtr_write ? IW_RTR_WRITE : 0) |
						   (rq->rtr_read ? IW_RTR_READ : 0);
				/* RFC 6581 §9.2: each offered type it supports (a SHOULD); none of them: one
				 * it supports (RFC6581-9.2-11). The Initiator picks; any of these is its RTR. */
				unsigned set = offered & c->cfg.rtr;
				c->rtr_chosen = set ? set : pick_rtr(c->cfg.rtr);
				rp->p2p = true;
				rp->rtr_send = (c->rtr_chosen & IW_RTR_SEND) != 0;
				rp->rtr_write = (c->rtr_chosen & IW_RTR_WRITE) != 0;
				rp->rtr_read = (c->rtr_chosen & IW_RTR_READ) != 0;
			}
		} else {
			/* An RFC 5044 initiator: answer in its revision, without the block. */
			rp->rev = rq->rev;
			rp->enhanced = false;
			rp->has_irdord = false;
		}
	}
	/* The queue is empty and at least a frame long (checked at new). */
	queue_frame(c, rp, NULL);

	/* Markers on what we send iff the peer asked (MPA-6.1.1-M1/M2); CRC on iff either frame
	 * had C=1 (MPA-6.1.1-C2). */
	c->params.markers_tx = rq->m;
	c->params.markers_rx = rp->m;
	c->params.crc = rq->c || rp->c;
	negotiate_irdord(c, rq);
	if (rp->r) {
		/* MPA-6.1-R2e: MPA exits, TCP stays open, no FPDU from here on. */
		c->state = IW_CS_REJECTED;
		return;
	}
	iw_conn_enter_full(c);
	/* MPA-6.1-R4: nothing past the Reply until a valid FPDU has arrived. */
	c->hold = true;
	c->hold_pos = c->out_len;
	c->rtr_expect = c->rtr_chosen != 0;
	c->state = IW_CS_AWAIT_FIRST_FPDU;
	iw_conn_ev_push(c, IW_EV_FULL_OPERATION);
}

static void rtr_mismatch(iw_conn *c, unsigned offered, unsigned chosen)
{
	iw_violation v;
	memset(&v, 0, sizeof v);
	v.req = REQ_RTR_NONE;
	v.kind = IW_VIOL_FATAL;
	v.layer = IW_LAYER_LLP;
	v.etype = IW_LLP_ET_MPA;
	v.ecode = IW_MPA_E_NO_MATCHING_RTR;
	v.offset = 20;
	snprintf(v.detail, sizeof v.detail, "Reply with A=1 sets no RTR type (set 0x%x; the Request offered 0x%x; "
		 "bits: 1 Send, 2 Write, 4 Read): the Initiator has none to generate", chosen, offered);
	iw_conn_fail(c, &v, NULL, 0);
}

static void initiator_accept(iw_conn *c)
{
	const iw_mpa_frame *rp = &c->peer;
	if (rp->r && c->p->r_bit) {
		/* MPA-6.1-R3c: MPA exits and leaves TCP open; what to do with it is the ULP's
		 * business (A10), so the model does not close. */
		iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_PEER_REJECT);
		if (ev)
			ev->frame = *rp;
		c->state = IW_CS_REJECTED;
		return;
	}
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_FRAME_ACCEPTED);
	if (ev)
		ev->frame = *rp;

	c->params.markers_tx = rp->m;
	c->params.markers_rx = c->own.m;
	c->params.crc = rp->c || c->own.c;
	negotiate_irdord(c, rp);
	iw_conn_enter_full(c);     /* MPA-6.1-R3d */
	c->state = IW_CS_FULL;

	if (c->own.p2p) {
		unsigned offered = c->cfg.rtr & (IW_RTR_SEND | IW_RTR_WRITE | IW_RTR_READ);
		unsigned chosen = rp->has_irdord ? (rp->rtr_send ? IW_RTR_SEND : 0) |
							   (rp->rtr_write ? IW_RTR_WRITE : 0) |
							   (rp->rtr_read ? IW_RTR_READ : 0)
						 : 0;
		/* The Initiator picks (RFC 6581 §1.1: "at the initiator's sole discretion"), as the
		 * responder orders them, among the types it offered that the Reply sets, else among
		 * all the Reply sets (the model can generate all three). None set: RFC 6581's code 7
		 * (RFC6581-9.2-06). */
		if (!chosen) {
			rtr_mismatch(c, offered, chosen);
			return;
		}
		c->rtr_chosen = pick_rtr(chosen & offered ? chosen & offered : chosen);
	}
	iw_conn_ev_push(c, IW_EV_FULL_OPERATION);

	/* RFC 6581: the RTR message goes before anything of the ULP's, so the responder may
	 * leave its rule-4 silence. The output queue is empty here, so these fit. */
	if (c->rtr_chosen == IW_RTR_WRITE) {
		iw_conn_queue_write(c, 1, 0, NULL, 0, 0, NULL);
	} else if (c->rtr_chosen == IW_RTR_READ) {
		iw_read_req rr = { .sink_stag = 1, .sink_to = 0, .size = 0, .src_stag = 1, .src_to = 0 };
		iw_conn_queue_read(c, &rr, true, 0, NULL);
	} else if (c->rtr_chosen == IW_RTR_SEND) {
		iw_conn_queue_send(c, IW_OP_SEND, NULL, 0, 0, NULL);
	}
}

static void frame_complete(iw_conn *c)
{
	size_t flen;
	iw_viol_list l = { .v = c->fviol, .cap = IW_CONN_FRAME_VIOLS };
	if (iw_mpa_frame_decode(c->p, c->sbuf, c->shave, &c->peer, &flen, NULL) != IW_OK || flen != c->shave) {
		reject_one(c, "MPA-6.1-R9a", 18, "startup frame does not decode to its PD_Length");
		return;
	}
	if (!iw_mpa_frame_check(c->p, &c->peer, expected_kind(c), &l)) {
		reject_frame(c, &l);
		return;
	}
	if (c->cfg.role == IW_ROLE_RESPONDER)
		responder_accept(c);       /* MPA-6.1-R2a */
	else
		initiator_accept(c);       /* MPA-6.1-R3a */
}

size_t iw_conn_startup_input(iw_conn *c, const uint8_t *data, size_t len)
{
	size_t used = 0;
	while (used < len) {
		size_t want = c->hdr_checked ? c->sneed : IW_MPA_FRAME_HDR_LEN;
		size_t k = want - c->shave;
		if (k > len - used)
			k = len - used;
		memcpy(c->sbuf + c->shave, data + used, k);
		c->shave += k;
		used += k;
		if (c->shave < want)
			break;
		if (!c->hdr_checked) {
			c->hdr_checked = true;
			if (!header_check(c))
				return used;
			if (c->sneed > c->shave)
				continue;
		}
		/* MPA-6.1-R9a..c: exactly PD_Length octets of private data, then the frame ends. */
		frame_complete(c);
		return used;
	}
	return used;
}
