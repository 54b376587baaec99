/*
 * connrun.c - the connection model under a fuzzed peer (connrun.h).
 *
 * Invariants checked while the stream is fed and afterwards:
 *  - iw_conn_input takes every octet while the model is open, and nothing once it has
 *    closed (or the peer closed);
 *  - events: none after IW_EV_CLOSE but the peer's own close; nothing placed or delivered
 *    after IW_EV_ERROR, IW_EV_TERMINATE or a rejected frame (MPA-7-08, DDP-9.1-03); at most one
 *    accepted frame and one IW_EV_FULL_OPERATION, and messages only after it; an error is
 *    followed by the close;
 *  - the output is what a conforming endpoint sends, read back with the engine's own
 *    decoders: the initiator's Request (or, for a responder, a Reply only after a Request it
 *    accepted, MPA-6.1-R2b) with no defect at all, then, in full operation only, FPDUs that
 *    decode with the negotiated markers and CRC without error or note, each a well-formed
 *    RDMAP message of the profile's versions within MULPDU, a Terminate at most once and last,
 *    carrying the code of the error the model reported, and no partial FPDU at the end.
 */
#include "connrun.h"

#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "rdmap.h"

#define OUT_CAP ((size_t)1 << 22)
#define RECV_BUFFERS 4
#define RECV_BUFFER_SIZE 2048

static uint8_t out_all[OUT_CAP];
static uint8_t tagged_rw[4096], tagged_ro[512];
static iw_mpa_rx orx;
static iw_fpdu ofp;

void fz_conn_setup_read(fz *f, enum iw_role role, fz_conn_setup *s)
{
	memset(s, 0, sizeof *s);
	const iw_profile *p = fz_profile(f);
	iw_conn_config_default(&s->cfg, p, role);
	uint8_t fl = fz_u8(f);
	s->cfg.want_markers = fl & 1;
	s->cfg.want_crc = fl & 2;
	s->cfg.crc_admin_off = fl & 4;
	s->cfg.reject = fl & 8;
	s->cfg.p2p = fl & 16;
	s->peer_close = fl & 32;
	s->ulp_ops = fl & 64;
	s->register_bufs = fl & 128;
	s->cfg.rtr = fz_u8(f) & 7;
	s->cfg.ird = fz_u8(f);
	s->cfg.ord = fz_u8(f);
	s->cfg.emss = fz_u16(f);
	uint8_t cut = fz_u8(f);
	s->cut_mode = cut & 3;
	s->seed = (uint32_t)(cut >> 2) + 1;
	size_t pdl = fz_u8(f), got;
	const uint8_t *pd = fz_take(f, pdl, &got);
	memcpy(s->pd, pd, got);
	s->cfg.pd = s->pd;
	s->cfg.pd_len = got;
	s->cfg.recv_buffers = RECV_BUFFERS;
	s->cfg.recv_buffer_size = RECV_BUFFER_SIZE;
	s->cfg.out_cap = (size_t)256 << 10;
	s->cfg.stream = 7;
	s->cfg.pd_id = 9;
}

/* ---- trace hashing (FNV-1a) ---- */

static void h_mem(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 0x100000001B3ull;
	}
}

static void h_u64(uint64_t *h, uint64_t v)
{
	h_mem(h, &v, sizeof v);
}

static void h_str(uint64_t *h, const char *s)
{
	if (s)
		h_mem(h, s, strlen(s) + 1);
	else
		h_u64(h, 0xDEAD);
}

static void hash_event(uint64_t *h, const iw_conn_event *ev)
{
	h_u64(h, ev->kind);
	switch (ev->kind) {
	case IW_EV_FRAME_ACCEPTED:
	case IW_EV_PEER_REJECT: {
		const iw_mpa_frame *f = &ev->frame;
		h_mem(h, f->key, sizeof f->key);
		h_u64(h, (uint64_t)f->m | (uint64_t)f->c << 1 | (uint64_t)f->r << 2 | (uint64_t)f->enhanced << 3 |
				 (uint64_t)f->has_irdord << 4 | (uint64_t)f->p2p << 5 | (uint64_t)f->rtr_send << 6 |
				 (uint64_t)f->rtr_write << 7 | (uint64_t)f->rtr_read << 8);
		h_u64(h, (uint64_t)f->res << 48 | (uint64_t)f->rev << 40 | (uint64_t)f->pd_length << 24 |
				 (uint64_t)f->ird << 12 | f->ord);
		h_u64(h, f->pd_len);
		break;
	}
	case IW_EV_FRAME_REJECTED:
	case IW_EV_ERROR:
	case IW_EV_PEER_CLOSED:
		h_str(h, ev->viol.req);
		h_u64(h, (uint64_t)(ev->viol.layer + 1) << 32 | (uint64_t)(ev->viol.etype + 1) << 16 |
				 (uint64_t)(ev->viol.ecode + 1));
		h_u64(h, ev->viol.offset);
		h_str(h, ev->viol.detail);
		break;
	case IW_EV_SEND:
		h_u64(h, ev->opcode);
		h_u64(h, ev->msn);
		h_u64(h, ev->len);
		if (ev->len)
			h_mem(h, ev->data, ev->len);
		break;
	case IW_EV_WRITE:
	case IW_EV_READ_DONE:
	case IW_EV_READ_SERVICED:
		h_u64(h, ev->stag);
		h_u64(h, ev->to);
		h_u64(h, ev->len);
		h_mem(h, &ev->rreq.sink_stag, 4);
		h_u64(h, ev->rreq.sink_to ^ ev->rreq.src_to ^ ev->rreq.size ^ ((uint64_t)ev->rreq.src_stag << 32));
		break;
	case IW_EV_TERMINATE:
		h_u64(h, (uint64_t)ev->term.layer << 16 | (uint64_t)ev->term.etype << 8 | ev->term.ecode);
		h_u64(h, (uint64_t)ev->term.m | (uint64_t)ev->term.d << 1 | (uint64_t)ev->term.r << 2);
		h_mem(h, ev->term.ddp_hdr, ev->term.ddp_hdr_len);
		break;
	default:
		break;
	}
}

/* ---- the run ---- */

typedef struct runstate {
	const fz_conn_setup *s;
	iw_conn *c;
	fz_conn_trace *tr;
	size_t out_len;
	bool closed, error, rejected, terminated, accepted, full, peer_reject;
	unsigned n_accepted, n_full;
	bool peer_close_called;
	int err_layer, err_etype, err_ecode;
	bool have_err_code;
} runstate;

static bool is_delivery(enum iw_conn_ev_kind k)
{
	return k == IW_EV_SEND || k == IW_EV_WRITE || k == IW_EV_READ_SERVICED || k == IW_EV_READ_DONE ||
	       k == IW_EV_TERMINATE;
}

static void ulp_ops(runstate *r)
{
	static const uint8_t msg[40] = "fuzz: a Send from the model's ULP......";
	iw_err e;
	/* The event may be taken after the same input already ended full operation. */
	enum iw_conn_state st = iw_conn_state(r->c);
	bool open = st == IW_CS_FULL || st == IW_CS_AWAIT_FIRST_FPDU;
	int rc = iw_conn_send(r->c, IW_OP_SEND, msg, sizeof msg, &e);
	FZ_CHECK(rc == IW_OK || (!open && rc == IW_ESTATE), "ULP Send in state %d: %s", st, e.msg);
	if (rc)
		return;
	rc = iw_conn_write(r->c, 0x999, 0x40, msg, 16, &e);
	FZ_CHECK(rc == IW_OK, "ULP Write in full operation: %s", e.msg);
	iw_read_req rr = { .sink_stag = 0x100, .sink_to = 0, .size = 64, .src_stag = 0x300, .src_to = 0 };
	rc = iw_conn_read(r->c, &rr, &e);
	FZ_CHECK(rc == IW_OK || rc == IW_ENOSPC, "ULP Read in full operation: rc %d %s", rc, e.msg);
}

static void drain(runstate *r)
{
	iw_conn_event ev;
	while (iw_conn_next_event(r->c, &ev)) {
		r->tr->nev++;
		hash_event(&r->tr->ev_hash, &ev);
		FZ_CHECK(!r->closed || (ev.kind == IW_EV_PEER_CLOSED && r->peer_close_called),
			 "event %d after IW_EV_CLOSE", ev.kind);
		FZ_CHECK(!(r->error || r->rejected || r->terminated) || !is_delivery(ev.kind),
			 "event %d delivered after an error, a rejected frame or a Terminate", ev.kind);
		switch (ev.kind) {
		case IW_EV_FRAME_ACCEPTED:
			FZ_CHECK(++r->n_accepted == 1 && !r->full, "second accepted frame or frame after full operation");
			r->accepted = true;
			break;
		case IW_EV_FRAME_REJECTED:
			FZ_CHECK(!r->accepted && !r->full, "frame rejected after it was accepted");
			FZ_CHECK(ev.viol.req && ev.viol.layer == IW_LAYER_LLP && ev.viol.ecode == IW_MPA_E_STARTUP,
				 "frame rejected with %s %d/%d/%d", ev.viol.req ? ev.viol.req : "(null)", ev.viol.layer,
				 ev.viol.etype, ev.viol.ecode);
			r->rejected = true;
			break;
		case IW_EV_PEER_REJECT:
			FZ_CHECK(r->s->cfg.role == IW_ROLE_INITIATOR && !r->accepted, "peer reject seen by a responder");
			r->peer_reject = true;
			break;
		case IW_EV_FULL_OPERATION:
			FZ_CHECK(++r->n_full == 1, "second IW_EV_FULL_OPERATION");
			FZ_CHECK(!r->rejected && !r->error, "full operation after a rejected frame or an error");
			FZ_CHECK(!r->s->cfg.profile->startup_frames || r->accepted, "full operation without a frame");
			r->full = true;
			if (r->s->ulp_ops)
				ulp_ops(r);
			break;
		case IW_EV_SEND:
			FZ_CHECK(r->full, "Send before full operation");
			FZ_CHECK(ev.len <= RECV_BUFFER_SIZE && (ev.len == 0 || ev.data), "Send of %zu octets", ev.len);
			FZ_CHECK(ev.opcode == IW_OP_SEND || ev.opcode == IW_OP_SEND_SE || ev.opcode == IW_OP_SEND_INV ||
					 ev.opcode == IW_OP_SEND_SE_INV, "Send event with opcode %u", ev.opcode);
			break;
		case IW_EV_WRITE:
		case IW_EV_READ_SERVICED:
		case IW_EV_READ_DONE:
			FZ_CHECK(r->full, "event %d before full operation", ev.kind);
			break;
		case IW_EV_TERMINATE:
			FZ_CHECK(r->full, "Terminate before full operation");
			r->terminated = true;
			break;
		case IW_EV_ERROR:
			FZ_CHECK(ev.viol.req && ev.viol.req[0], "error without a requirement");
			r->error = true;
			r->err_layer = ev.viol.layer;
			r->err_etype = ev.viol.etype;
			r->err_ecode = ev.viol.ecode;
			r->have_err_code = true;
			break;
		case IW_EV_CLOSE:
			r->closed = true;
			break;
		case IW_EV_PEER_CLOSED:
			FZ_CHECK(r->peer_close_called, "peer close reported without one");
			break;
		default:
			FZ_CHECK(0, "unknown event kind %d", ev.kind);
		}
	}
	FZ_CHECK(!r->error || r->closed || iw_conn_events_lost(r->c), "an error without a close");
	FZ_CHECK(!r->closed || iw_conn_wants_close(r->c), "IW_EV_CLOSE but the model does not want to close");
	size_t n;
	const uint8_t *o = iw_conn_output_peek(r->c, &n);
	FZ_CHECK(r->out_len + n <= OUT_CAP, "more than %zu octets of output", OUT_CAP);
	if (n)
		memcpy(out_all + r->out_len, o, n);
	r->out_len += n;
	h_mem(&r->tr->out_hash, o, n);
	iw_conn_output_consume(r->c, n);
	size_t n2;
	iw_conn_output_peek(r->c, &n2);
	FZ_CHECK(n2 == 0, "%zu octets still visible after consuming all", n2);
}

static void feed(runstate *r, const uint8_t *d, size_t n)
{
	bool was_closed = iw_conn_wants_close(r->c) || r->peer_close_called;
	size_t used = iw_conn_input(r->c, d, n);
	FZ_CHECK(used <= n, "consumed %zu of %zu", used, n);
	if (was_closed)
		FZ_CHECK(used == 0, "a closed model consumed %zu octets", used);
	else if (!iw_conn_wants_close(r->c))
		FZ_CHECK(used == n, "an open model consumed %zu of %zu octets", used, n);
	r->tr->consumed += used;
	drain(r);
}

/* Reads the model's output back as its peer would. */
static void verify_output(runstate *r)
{
	const iw_conn_config *cfg = &r->s->cfg;
	const iw_profile *p = cfg->profile;
	size_t pos = 0;
	if (p->startup_frames) {
		bool must = cfg->role == IW_ROLE_INITIATOR || r->accepted;
		if (!must) {
			FZ_CHECK(r->out_len == 0, "responder sent %zu octets without accepting a Request", r->out_len);
			return;
		}
		enum iw_mpa_kind k = cfg->role == IW_ROLE_INITIATOR ? IW_MPA_REQUEST : IW_MPA_REPLY;
		iw_mpa_frame f;
		size_t flen;
		iw_err e;
		FZ_CHECK(iw_mpa_frame_decode(p, out_all, r->out_len, &f, &flen, &e) == IW_OK, "own frame: %s", e.msg);
		iw_violation vs[8];
		iw_viol_list l = { .v = vs, .cap = 8 };
		FZ_CHECK(iw_mpa_frame_check(p, &f, k, &l) && l.n == 0, "own %s has a defect: %s %s",
			 k == IW_MPA_REQUEST ? "Request" : "Reply", l.n ? vs[0].req : "", l.n ? vs[0].detail : "");
		FZ_CHECK(f.m == cfg->want_markers, "own frame M=%d, configured %d", f.m, cfg->want_markers);
		FZ_CHECK(f.pd_len == cfg->pd_len && (!f.pd_len || memcmp(f.pd, cfg->pd, f.pd_len) == 0),
			 "own private data differs from the configured");
		if (k == IW_MPA_REPLY)
			FZ_CHECK(f.r == (cfg->reject && p->r_bit), "Reply R=%d with reject %d", f.r, cfg->reject);
		pos = flen;
		if (f.r || r->peer_reject || (!r->full && !r->error)) {
			FZ_CHECK(r->out_len == pos, "%zu octets after the startup frame outside full operation",
				 r->out_len - pos);
			return;
		}
	}
	/* Outside full operation (an RFC 6581 RTR mismatch, code 7) the Terminate alone may go. */
	bool only_terminate = !r->full;
	iw_conn_params prm;
	iw_conn_params_get(r->c, &prm);
	iw_mpa_rx_init(&orx, p, prm.markers_tx, prm.crc);
	bool term = false;
	while (pos < r->out_len) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&orx, out_all + pos, r->out_len - pos, &used, &ofp, &err);
		pos += used;
		FZ_CHECK(st != IW_RX_ERROR, "own FPDU stream invalid: %s %s", err.req, err.detail);
		if (st != IW_RX_FPDU)
			break;
		FZ_CHECK(!term, "an FPDU after the Terminate");
		FZ_CHECK(ofp.notes == 0, "own FPDU with notes 0x%x", ofp.notes);
		FZ_CHECK(!prm.crc || ofp.crc_ok, "own FPDU with a bad CRC");
		FZ_CHECK(ofp.ulpdu_length <= prm.mulpdu, "own ULPDU of %u octets over MULPDU %u", ofp.ulpdu_length,
			 prm.mulpdu);
		iw_rdmap_msg m;
		iw_violation v;
		FZ_CHECK(iw_rdmap_parse(p, ofp.ulpdu, ofp.ulpdu_length, &m, &v), "own message invalid: %s", v.detail);
		FZ_CHECK(!only_terminate || m.opcode == IW_OP_TERMINATE, "opcode %u sent outside full operation",
			 m.opcode);
		FZ_CHECK(m.ddp.dv == p->ddp_version && m.ddp.rsvd == 0, "own DDP DV %u Rsvd %u", m.ddp.dv, m.ddp.rsvd);
		if (m.opcode == IW_OP_TERMINATE) {
			iw_terminate t;
			iw_err e;
			FZ_CHECK(iw_terminate_decode(m.payload, m.payload_len, &t, &e) == IW_OK, "own Terminate: %s", e.msg);
			FZ_CHECK(m.ddp.last && m.ddp.qn == IW_QN_TERMINATE && m.ddp.mo == 0, "own Terminate header");
			if (r->have_err_code && !iw_conn_events_lost(r->c))
				FZ_CHECK(t.layer == (r->err_layer & 0xF) && t.etype == (r->err_etype & 0xF) &&
						 t.ecode == (uint8_t)r->err_ecode, "Terminate %d/%d/%d for error %d/%d/%d", t.layer,
					 t.etype, t.ecode, r->err_layer, r->err_etype, r->err_ecode);
			FZ_CHECK(r->error || iw_conn_events_lost(r->c), "a Terminate with no error reported");
			term = true;
		}
	}
	FZ_CHECK(pos == r->out_len && !iw_mpa_rx_partial(&orx), "own output ends inside an FPDU (%zu of %zu)", pos,
		 r->out_len);
}

void fz_conn_run(const fz_conn_setup *s, const uint8_t *stream, size_t len, const size_t *cuts, size_t ncuts,
		 fz_conn_trace *tr)
{
	memset(tr, 0, sizeof *tr);
	tr->ev_hash = tr->out_hash = 0xCBF29CE484222325ull;
	runstate r;
	memset(&r, 0, sizeof r);
	r.s = s;
	r.tr = tr;
	iw_err e;
	int rc = iw_conn_new(&r.c, &s->cfg, &e);
	if (rc) {
		/* Only configurations the model documents as invalid may be refused. */
		const iw_profile *p = s->cfg.profile;
		size_t block = p->enhanced ? IW_MPA_IRDORD_LEN : 0;
		FZ_CHECK(p->startup_frames && s->cfg.pd_len + block > p->pd_max, "iw_conn_new refused: %s", e.msg);
		return;
	}
	if (s->register_bufs) {
		FZ_CHECK(iw_conn_register(r.c, 0x100, 0, tagged_rw, sizeof tagged_rw,
					  IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e) == IW_OK, "register: %s", e.msg);
		FZ_CHECK(iw_conn_register(r.c, 0x200, 0x10000, tagged_ro, sizeof tagged_ro, IW_ACCESS_REMOTE_READ,
					  &e) == IW_OK, "register: %s", e.msg);
	}
	FZ_CHECK(iw_conn_start(r.c, &e) == IW_OK, "start: %s", e.msg);
	FZ_CHECK(iw_conn_start(r.c, NULL) == IW_ESTATE, "second start accepted");
	drain(&r);
	size_t off = 0;
	uint32_t seed = s->seed;
	size_t ci = 0;
	while (off < len) {
		size_t k;
		if (cuts) {
			size_t end = ci < ncuts ? cuts[ci++] : len;
			if (end > len)
				end = len;
			if (end < off)
				continue;
			k = end - off;
		} else {
			k = fz_chunk(&seed, s->cut_mode, len - off);
		}
		feed(&r, stream + off, k);
		off += k;
	}
	if (s->peer_close) {
		bool closed_before = r.closed;
		r.peer_close_called = true;
		iw_conn_peer_closed(r.c);
		drain(&r);
		FZ_CHECK(closed_before || r.closed || iw_conn_events_lost(r.c), "no close after the peer closed");
		FZ_CHECK(iw_conn_input(r.c, stream, len) == 0, "input accepted after the peer closed");
	}
	verify_output(&r);
	tr->lost = iw_conn_events_lost(r.c);
	tr->out_len = r.out_len;
	tr->final_state = iw_conn_state(r.c);
	iw_conn_free(r.c);
}
