/*
 * iw_conn_rx.c - the connection model in full operation, receive side: every octet goes
 * through the MPA decoder, every FPDU's ULPDU through RDMAP's per-segment checks and the DDP
 * sink, and every delivered message to its RDMAP meaning (RFC 5040):
 *   QN 0  Send, Send with SE, with Invalidate: IW_EV_SEND, buffer reposted
 *   QN 1  RDMA Read Request: answered with Read Response segments, IW_EV_READ_SERVICED (one
 *         beyond the negotiated IRD: RDMAP 0x2/0x07)
 *   QN 2  Terminate: IW_EV_TERMINATE, then the model closes
 *   tagged RDMA Write (needs remote write access): IW_EV_WRITE on the L segment
 *   tagged Read Response (must target the sink of our oldest Read Request): IW_EV_READ_DONE
 * The first error of any layer is reported (IW_EV_ERROR), answered with one Terminate carrying
 * its layer, type and code, and ends the connection: nothing is placed or delivered after it
 * (MPA-7-08, DDP-9.1-03, DDP-9.1-04).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iw_conn_int.h"
#include "iw_grow.h"
#include "iw_octets.h"
#include "iw_proto.h"

#define ARENA_FIRST (4u << 10)  /* the arena's first allocation; it doubles up to arena_cap */

/* RFC 5040 section tags, as in rdmap.c and ddp_sink.c (not catalog rows: the seeds define no
 * RDMAP). */
/* Rows of spec/rfc-rows.md. */
#define REQ_RDMAP_UNASKED   "RFC5040-5.2-09"    /* a Read Response nobody asked for: no Read operation */
#define REQ_RDMAP_QUEUE     "RFC5040-4.2-05"    /* an opcode on another message's queue */
#define REQ_RDMAP_READ_REQ  "RFC5040-4.4-01"    /* a Read Request that is not 28 octets: its header */
#define REQ_RDMAP_LOCAL     "RFC5040-4.8-09"    /* a local (catastrophic) failure */
#define REQ_RDMAP_IRD       "RFC5040-5.2-08"    /* a Read Request beyond the IRD */
#define REQ_RDMAP_INVAL     "RFC5040-5.3-06"    /* an STag that cannot be invalidated */

static void send_terminate(iw_conn *c, const iw_violation *v, const uint8_t *ulpdu, size_t ulpdu_len)
{
	iw_terminate t;
	uint8_t body[IW_CONN_TERM_BUF];
	size_t n;
	/* RFC 5040 §4.8: the headers of the segment at fault go along (none for LLP errors). */
	iw_terminate_for(&t, v->layer, v->etype, v->ecode, ulpdu, ulpdu_len);
	if (iw_terminate_encode(&t, body, sizeof body, &n, NULL) == IW_OK)
		iw_conn_queue_terminate(c, body, n);
}

void iw_conn_fail(iw_conn *c, const iw_violation *v, const uint8_t *ulpdu, size_t ulpdu_len)
{
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_ERROR);
	if (ev)
		ev->viol = *v;
	/* DDP-9.1-04, MPA-7-09: one last message, the Terminate, then the ULP closes. A responder
	 * still in its rule-4 silence has nothing it may send (MPA-6.1-R4). */
	if (c->tx_ready && !c->hold && v->layer >= 0)
		send_terminate(c, v, ulpdu, ulpdu_len);
	iw_conn_close(c, IW_CS_FAILED);
}

#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
static void fail_with(iw_conn *c, const char *req, int layer, int etype, int ecode, const uint8_t *ulpdu,
		      size_t ulpdu_len, const char *fmt, ...)
{
	iw_violation v;
	va_list ap;
	memset(&v, 0, sizeof v);
	v.req = req;
	v.kind = IW_VIOL_FATAL;
	v.layer = layer;
	v.etype = etype;
	v.ecode = ecode;
	v.offset = c->fpdu.start;
	va_start(ap, fmt);
	vsnprintf(v.detail, sizeof v.detail, fmt, ap);
	va_end(ap);
	iw_conn_fail(c, &v, ulpdu, ulpdu_len);
}

static void fail_sink(iw_conn *c, const iw_sink_result *r, const uint8_t *ulpdu, size_t ulpdu_len)
{
	fail_with(c, r->req ? r->req : "DDP-9.1-01", r->layer, r->etype, r->ecode, ulpdu, ulpdu_len, "%s",
		  r->detail);
}

/* Gives a delivered buffer back to its queue, so the peer never runs out of buffers while the
 * ULP looks at the copy in the arena. */
static void repost(iw_conn *c, uint32_t qn, const iw_sink_delivery *d)
{
	for (uint32_t i = 0; i < c->qcount[qn]; i++)
		if (c->qbuf[qn][i] == d->data) {
			iw_sink_post(&c->sink, qn, c->qbuf[qn][i], c->qsize[qn], NULL);
			return;
		}
}

/* ---- tagged ---- */

static void on_tagged(iw_conn *c, const iw_rdmap_msg *m, const uint8_t *u, size_t ul)
{
	unsigned access = 0;
	bool write = m->opcode == IW_OP_WRITE;
	if (write) {
		access = IW_ACCESS_REMOTE_WRITE;    /* ARCH-2.2-F1 */
	} else {
		/* A Read Response answers our oldest Read Request and may only land in the sink
		 * buffer that request named (RFC 5040 §5.2). */
		if (c->rd_count == 0) {
			fail_with(c, REQ_RDMAP_UNASKED, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, u,
				  ul, "RDMA Read Response with no RDMA Read Request outstanding");
			return;
		}
		const iw_read_req *rr = &c->reads[c->rd_head].rr;
		if (m->payload_len) {
			uint64_t off = m->ddp.to - rr->sink_to;
			if (m->ddp.stag != rr->sink_stag) {
				fail_with(c, "DDP-9.1-T1", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, u, ul,
					  "Read Response to STag 0x%08" PRIx32 ", the Read Request named sink STag "
					  "0x%08" PRIx32, m->ddp.stag, rr->sink_stag);
				return;
			}
			if (m->ddp.to < rr->sink_to || off > rr->size || m->payload_len > rr->size - off) {
				fail_with(c, "DDP-9.1-T4", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, u, ul,
					  "Read Response of %zu octets at TO 0x%" PRIx64 " is outside the requested "
					  "0x%" PRIx64 " + %" PRIu32, m->payload_len, m->ddp.to, rr->sink_to,
					  rr->size);
				return;
			}
		}
	}

	iw_sink_result r;
	iw_sink_segment(&c->sink, &m->ddp, m->payload, m->payload_len, access, &r);
	if (r.status != IW_SINK_PLACED) {
		fail_sink(c, &r, u, ul);
		return;
	}
	if (!m->ddp.last)
		return;
	if (write) {
		if (c->rtr_expect && (c->rtr_chosen & IW_RTR_WRITE) && m->payload_len == 0)
			return;     /* RFC 6581 Write RTR: for MPA, not for the ULP */
		iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_WRITE);
		if (ev) {
			ev->opcode = IW_OP_WRITE;
			ev->stag = m->ddp.stag;
			ev->to = m->ddp.to;
			ev->len = m->payload_len;
		}
		return;
	}
	iw_conn_pending_read rd = c->reads[c->rd_head];
	c->rd_head = (c->rd_head + 1) % IW_CONN_MAX_READS;
	c->rd_count--;
	if (rd.internal)
		return;
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_READ_DONE);
	if (ev) {
		ev->opcode = IW_OP_READ_RESP;
		ev->rreq = rd.rr;
		ev->stag = m->ddp.stag;
		ev->to = m->ddp.to;
		ev->len = m->payload_len;
	}
}

/* ---- untagged: delivered messages ---- */

/* Makes room for len more octets in the arena, within arena_cap. Growing moves the arena, so
 * the events of this input that point into it are moved along; no other pointer into it exists
 * (the contract: ev.data holds until the next input). */
static bool arena_room(iw_conn *c, size_t len)
{
	if (len > c->arena_cap - c->arena_used)
		return false;
	if (c->arena && len <= c->arena_alloc - c->arena_used)
		return true;
	size_t n = iw_grow_size(c->arena_alloc, ARENA_FIRST, c->arena_used + len, c->arena_cap);
	uint8_t *na = malloc(n ? n : 1);
	if (!na)
		return false;
	if (c->arena_used)
		memcpy(na, c->arena, c->arena_used);
	uintptr_t lo = (uintptr_t)c->arena, hi = lo + c->arena_used;
	for (unsigned i = 0; c->arena_used && i < c->ev_count; i++) {
		iw_conn_event *ev = &c->ev[(c->ev_head + i) % IW_CONN_MAX_EVENTS];
		uintptr_t at = (uintptr_t)ev->data;
		if (ev->kind == IW_EV_SEND && at >= lo && at < hi)
			ev->data = na + (at - lo);
	}
	free(c->arena);
	c->arena = na;
	c->arena_alloc = n;
	return true;
}

static void deliver_send(iw_conn *c, const iw_sink_delivery *d, const uint8_t *u, size_t ul)
{
	unsigned opcode = iw_rdmap_ctrl_opcode(d->rsvdulp[0]);
	if (opcode == IW_OP_SEND_INV || opcode == IW_OP_SEND_SE_INV) {
		uint32_t stag = iw_get_be32(d->rsvdulp + 1);
		iw_err e;
		if (iw_sink_invalidate(&c->sink, stag, &e) != IW_OK) {
			fail_with(c, REQ_RDMAP_INVAL, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION,
				  IW_RDMAP_EC_CANNOT_INVALIDATE, u, ul, "Send with Invalidate: %s", e.msg);
			return;
		}
	}
	bool rtr = c->rtr_expect && (c->rtr_chosen & IW_RTR_SEND) && opcode == IW_OP_SEND && d->len == 0;
	iw_conn_event *ev = rtr ? NULL : iw_conn_ev_push(c, IW_EV_SEND);
	if (ev) {
		ev->opcode = opcode;
		ev->msn = d->msn;
		ev->len = d->len;
		if (arena_room(c, d->len)) {
			memcpy(c->arena + c->arena_used, d->data, d->len);
			ev->data = c->arena + c->arena_used;
			c->arena_used += d->len;
		} else {
			/* One input delivered more than the arena may hold (or memory is short):
			 * this one points at its receive buffer, intact until recv_buffers more
			 * Sends arrive. */
			ev->data = d->data;
		}
	}
	repost(c, IW_QN_SEND, d);
}

static void serve_read(iw_conn *c, const iw_read_req *rr, const uint8_t *u, size_t ul)
{
	iw_sink_result r;
	if (!iw_sink_check_read(&c->sink, rr->src_stag, rr->src_to, rr->size, &r)) {
		/* RDMAP remote protection error, the Read Request attached (RFC 5040 §4.8). */
		fail_sink(c, &r, u, ul);
		return;
	}
	const uint8_t *src = NULL;
	if (rr->size) {
		const iw_tagged_buf *b = iw_sink_find(&c->sink, rr->src_stag);
		src = b->mem + (rr->src_to - b->base_to);
	}
	iw_err e;
	if (iw_conn_queue_read_resp(c, rr, src, &e) != IW_OK) {
		/* The Read Response does not fit the output queue: a local resource failure. */
		fail_with(c, REQ_RDMAP_LOCAL, IW_LAYER_RDMAP, IW_RDMAP_ET_CATASTROPHIC, 0, u, ul,
			  "cannot answer an RDMA Read of %" PRIu32 " octets: %s", rr->size, e.msg);
		return;
	}
	if (c->rtr_expect && (c->rtr_chosen & IW_RTR_READ) && rr->size == 0)
		return;     /* RFC 6581 Read RTR */
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_READ_SERVICED);
	if (ev) {
		ev->opcode = IW_OP_READ_REQ;
		ev->msn = 0;
		ev->rreq = *rr;
	}
}

static void deliver_read_req(iw_conn *c, const iw_sink_delivery *d, const uint8_t *u, size_t ul)
{
	iw_read_req rr;
	uint32_t len = d->len;
	int rc = len == IW_RDMAP_READ_REQ_LEN ? iw_read_req_decode(d->data, len, &rr, NULL) : IW_ETRUNC;
	repost(c, IW_QN_READ_REQ, d);
	if (rc != IW_OK) {
		fail_with(c, REQ_RDMAP_READ_REQ, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_UNSPECIFIED, u,
			  ul, "RDMA Read Request of %" PRIu32 " octets, %d expected", len, IW_RDMAP_READ_REQ_LEN);
		return;
	}
	/* RFC 5040 §5.2 with RFC 6581's negotiated IRD: the peer may have at most IRD Read
	 * Requests outstanding here, and one beyond it ends the stream with RDMAP Remote Operation
	 * 0x07 (catastrophic, localized to the stream; siw's code for it, rfc-and-interop §1.3).
	 * The model answers each Read Request as it arrives, so none is outstanding when the next
	 * comes: only an IRD of 0 (a peer that announced ORD 0) leaves no room. The RFC 6581 Read
	 * RTR is MPA's zero-length message, not a Read the IRD counts. Without the negotiation the
	 * IRD is the ULP's out-of-band business and is not judged here. */
	bool rtr = c->rtr_expect && (c->rtr_chosen & IW_RTR_READ) && rr.size == 0;
	if (!rtr && c->irdord_negotiated && c->params.ird == 0) {
		fail_with(c, REQ_RDMAP_IRD, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_CATASTROPHIC_STREAM,
			  u, ul, "RDMA Read Request beyond the IRD of 0 negotiated with the peer (its ORD was 0)");
		return;
	}
	serve_read(c, &rr, u, ul);
}

static void deliver_terminate(iw_conn *c, const iw_sink_delivery *d)
{
	iw_terminate t;
	iw_err e;
	int rc = iw_terminate_decode(d->data, d->len, &t, &e);
	repost(c, IW_QN_TERMINATE, d);
	if (rc != IW_OK) {
		/* Never answer a Terminate with a Terminate: report and close. */
		iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_ERROR);
		if (ev) {
			ev->viol.req = t.broken_row;
			ev->viol.kind = IW_VIOL_FATAL;
			ev->viol.layer = IW_LAYER_RDMAP;
			ev->viol.etype = IW_RDMAP_ET_OPERATION;
			ev->viol.ecode = IW_RDMAP_EC_UNSPECIFIED;
			ev->viol.offset = c->fpdu.start;
			snprintf(ev->viol.detail, sizeof ev->viol.detail, "malformed Terminate: %.160s", e.msg);
		}
		iw_conn_close(c, IW_CS_FAILED);
		return;
	}
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_TERMINATE);
	if (ev)
		ev->term = t;
	/* The peer has ended the stream (DDP-9.1-04): the model closes its side. */
	iw_conn_close(c, IW_CS_CLOSED);
}

static void on_untagged(iw_conn *c, const iw_rdmap_msg *m, const uint8_t *u, size_t ul)
{
	uint32_t qn = m->ddp.qn;
	const iw_rdmap_opinfo *op = iw_rdmap_op(m->opcode);
	/* Each RDMAP message has its queue (RFC 5040); a valid QN carrying another queue's
	 * message is an opcode that is unexpected there. Invalid QNs are the sink's (U1). */
	if (qn <= IW_QN_TERMINATE && op->qn != (int)qn) {
		fail_with(c, REQ_RDMAP_QUEUE, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, u, ul,
			  "%s (opcode 0x%X) on QN %" PRIu32 ", it belongs on QN %d", op->name, m->opcode, qn, op->qn);
		return;
	}
	iw_sink_result r;
	iw_sink_segment(&c->sink, &m->ddp, m->payload, m->payload_len, 0, &r);
	if (r.status != IW_SINK_PLACED) {
		fail_sink(c, &r, u, ul);
		return;
	}
	iw_sink_delivery d;
	while (!c->close_emitted && qn <= IW_QN_TERMINATE && iw_sink_deliver(&c->sink, qn, &d)) {
		if (qn == IW_QN_SEND)
			deliver_send(c, &d, u, ul);
		else if (qn == IW_QN_READ_REQ)
			deliver_read_req(c, &d, u, ul);
		else
			deliver_terminate(c, &d);
	}
}

static void on_fpdu(iw_conn *c)
{
	const uint8_t *u = c->fpdu.ulpdu;
	size_t ul = c->fpdu.ulpdu_length;
	if (c->state == IW_CS_AWAIT_FIRST_FPDU) {
		/* MPA-6.1-R4: one FPDU received and validated; the responder may now speak. */
		c->hold = false;
		c->state = IW_CS_FULL;
	}
	iw_rdmap_msg m;
	iw_violation v;
	if (!iw_rdmap_parse(c->p, u, ul, &m, &v)) {
		v.offset = c->fpdu.start;
		iw_conn_fail(c, &v, u, ul);
		return;
	}
	if (m.ddp.tagged)
		on_tagged(c, &m, u, ul);
	else
		on_untagged(c, &m, u, ul);
	/* Only the very first message can be the RFC 6581 RTR. */
	c->rtr_expect = false;
}

size_t iw_conn_fpdu_input(iw_conn *c, const uint8_t *data, size_t len)
{
	size_t used = 0;
	while (used < len && !c->close_emitted) {
		size_t k = 0;
		enum iw_rx_status st = iw_mpa_rx_push(c->rx, data + used, len - used, &k, &c->fpdu, &c->rx_err);
		used += k;
		if (st == IW_RX_ERROR) {
			/* MPA-7-02: the code goes up; MPA-7-08: nothing more passes. */
			iw_conn_fail(c, &c->rx_err, NULL, 0);
			break;
		}
		if (st != IW_RX_FPDU)
			break;
		on_fpdu(c);
	}
	return used;
}
