/*
 * iw_conn.c - the connection model: lifecycle, events, the output queue, input dispatch and
 * the ULP verbs. Startup frames are in iw_conn_startup.c, full-operation receive in
 * iw_conn_rx.c.
 *
 * iw_conn_new allocates the receive buffers; the output queue and the Send-data arena grow as
 * they are used (iw_conn.h says why).
 */
#include "iw_conn.h"

#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "iw_conn_int.h"
#include "iw_grow.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"

/* Above this a configuration is a mistake, not a model of an endpoint. */
#define RECV_MEM_MAX ((uint64_t)1 << 30)
#define OUT_CAP_MIN 1024
#define OUT_FIRST (64u << 10)   /* the output queue's first allocation (it grows to out_cap) */

void iw_conn_config_default(iw_conn_config *cfg, const iw_profile *p, enum iw_role role)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->profile = p ? p : iw_profile_default();
	cfg->role = role;
	cfg->want_markers = false;
	cfg->want_crc = true;           /* MPA-5.2-03 */
	cfg->crc_admin_off = false;
	cfg->emss = 1460;               /* MPA-3.1.1-F1 */
	cfg->ird = 16;
	cfg->ord = 16;
	cfg->recv_buffers = 8;
	cfg->recv_buffer_size = 65536;
	cfg->out_cap = (size_t)1 << 20;
	cfg->p2p = false;
	cfg->rtr = IW_RTR_SEND | IW_RTR_WRITE | IW_RTR_READ;
}

/* ---- events ---- */

iw_conn_event *iw_conn_ev_push(iw_conn *c, enum iw_conn_ev_kind kind)
{
	if (c->ev_count >= IW_CONN_MAX_EVENTS) {
		c->ev_lost++;
		return NULL;
	}
	iw_conn_event *ev = &c->ev[(c->ev_head + c->ev_count) % IW_CONN_MAX_EVENTS];
	c->ev_count++;
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	return ev;
}

bool iw_conn_next_event(iw_conn *c, iw_conn_event *ev)
{
	if (!c || c->ev_count == 0)
		return false;
	*ev = c->ev[c->ev_head];
	c->ev_head = (c->ev_head + 1) % IW_CONN_MAX_EVENTS;
	c->ev_count--;
	return true;
}

size_t iw_conn_events_lost(const iw_conn *c)
{
	return c ? c->ev_lost : 0;
}

/* ---- output queue ---- */

static size_t out_visible_end(const iw_conn *c)
{
	return c->hold ? c->hold_pos : c->out_len;
}

bool iw_conn_out_room(iw_conn *c, size_t n)
{
	size_t pending = c->out_len - c->out_off;
	if (n > c->out_cap - pending)
		return false;
	if (n > c->out_alloc - c->out_len && c->out_off > 0) {
		/* Compacting only when the tail is short keeps the common case copy-free. */
		memmove(c->out, c->out + c->out_off, pending);
		if (c->hold)
			c->hold_pos -= c->out_off;
		c->out_len = pending;
		c->out_off = 0;
	}
	if (n > c->out_alloc - c->out_len) {
		/* Grown on demand: most connections queue a few KB, and a 1 MiB queue allocated up
		 * front costs a sanitizer build an mmap, a munmap and its shadow per model. */
		size_t ncap = iw_grow_size(c->out_alloc, OUT_FIRST, c->out_len + n, c->out_cap);
		uint8_t *nb = realloc(c->out, ncap);
		if (!nb)
			return false;
		c->out = nb;
		c->out_alloc = ncap;
	}
	return true;
}

const uint8_t *iw_conn_output_peek(const iw_conn *c, size_t *len)
{
	if (!c) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = out_visible_end(c) - c->out_off;
	return c->out + c->out_off;
}

void iw_conn_output_consume(iw_conn *c, size_t n)
{
	if (!c)
		return;
	size_t avail = out_visible_end(c) - c->out_off;
	if (n > avail)
		n = avail;
	c->out_off += n;
	if (c->out_off == c->out_len && !c->hold) {
		c->out_off = 0;
		c->out_len = 0;
	}
}

/* ---- state ---- */

void iw_conn_close(iw_conn *c, enum iw_conn_state st)
{
	if (c->hold) {
		/* Held FPDUs may never go out: rule 4 was not satisfied (MPA-6.1-R4). */
		c->out_len = c->hold_pos;
		c->hold = false;
	}
	if (c->state != IW_CS_FAILED)
		c->state = st;
	if (!c->close_emitted) {
		c->close_emitted = true;
		iw_conn_ev_push(c, IW_EV_CLOSE);
	}
}

void iw_conn_enter_full(iw_conn *c)
{
	/* SeqStart of each direction is the first octet after the startup frames (A5), or the
	 * agreed offset 0 under culley-mpa-02 (MPAc-8.1-04). */
	iw_mpa_tx_init(&c->tx, c->p, c->params.markers_tx, c->params.crc);
	iw_mpa_rx_init(c->rx, c->p, c->params.markers_rx, c->params.crc);
	c->params.markers_tx = c->tx.markers;
	c->params.markers_rx = c->rx->markers;
	c->params.crc = c->tx.crc;
	/* MPA-5.3.2-01/02, clamped to [128, 64768] (MPA-3.2-03, MPA-5.3.2-05). */
	c->params.mulpdu = c->cfg.mulpdu ? c->cfg.mulpdu : iw_mulpdu(c->cfg.emss, c->params.markers_tx);
	c->tx_ready = true;
}

bool iw_conn_wants_close(const iw_conn *c)
{
	return c && c->close_emitted;
}

enum iw_conn_state iw_conn_state(const iw_conn *c)
{
	return c ? c->state : IW_CS_CLOSED;
}

void iw_conn_params_get(const iw_conn *c, iw_conn_params *p)
{
	if (c && p)
		*p = c->params;
}

const iw_ddp_sink *iw_conn_sink(const iw_conn *c)
{
	return c ? &c->sink : NULL;
}

/* ---- creation ---- */

/* The allocations of a model being renewed (iw_conn_renew), each taken over by the new
 * connection when it fits, the rest freed after. */
typedef struct conn_keep {
	uint8_t *own_pd, *out, *sbuf, *arena;
	size_t own_pd_cap, out_alloc, scap, arena_alloc;
	iw_mpa_rx *rx;
	uint8_t *qbuf[3][IW_SINK_MAX_POSTED];
	uint32_t qsize[3], qcount[3];
} conn_keep;

/* What c owns, into k: for iw_conn_renew to reuse, for iw_conn_free to free. */
static void keep_take(const iw_conn *c, conn_keep *k)
{
	memset(k, 0, sizeof *k);
	k->own_pd = c->own_pd;
	k->own_pd_cap = c->own_pd_cap;
	k->out = c->out;
	k->out_alloc = c->out_alloc;
	k->sbuf = c->sbuf;
	k->scap = c->sbuf ? c->scap : 0;
	k->arena = c->arena;
	k->arena_alloc = c->arena_alloc;
	k->rx = c->rx;
	memcpy(k->qbuf, c->qbuf, sizeof k->qbuf);
	memcpy(k->qsize, c->qsize, sizeof k->qsize);
	memcpy(k->qcount, c->qcount, sizeof k->qcount);
}

static void keep_free(conn_keep *k)
{
	for (unsigned q = 0; q < 3; q++)
		for (unsigned i = 0; i < k->qcount[q]; i++)
			free(k->qbuf[q][i]);
	free(k->own_pd);
	free(k->out);
	free(k->sbuf);
	free(k->arena);
	free(k->rx);
}

static int post_queue(iw_conn *c, uint32_t qn, uint32_t count, uint32_t size, conn_keep *k, iw_err *e)
{
	/* One octet at least, so a zero-size buffer still has an address the sink accepts. Not
	 * zeroed: the sink delivers a message only once every octet of it was placed (ddp_sink.c,
	 * iw_sink_deliver), so no unplaced octet is ever read, and a reposted buffer is not zeroed
	 * either. Zeroing 512 KB a connection (8 x 64 KB by default) was the largest CPU cost of a
	 * run: a third of `iwspec mutants`' CPU time went to it and its page faults. For the same
	 * reason a renewed model's buffers of the same size serve again as they are. */
	if (count > IW_SINK_MAX_POSTED)
		return iw_errf(e, IW_EINVAL, "%u receive buffers on QN %u, the sink holds at most %d", count, qn,
			       IW_SINK_MAX_POSTED);
	c->qsize[qn] = size;
	int rc = iw_sink_enable_queue(&c->sink, qn, e);
	for (uint32_t i = 0; rc == IW_OK && i < count; i++) {
		if (k->qsize[qn] == size && i < k->qcount[qn] && k->qbuf[qn][i]) {
			c->qbuf[qn][i] = k->qbuf[qn][i];
			k->qbuf[qn][i] = NULL;
		} else {
			c->qbuf[qn][i] = malloc(size ? size : 1);
		}
		if (!c->qbuf[qn][i])
			return iw_errf(e, IW_ENOSPC, "no memory for %u receive buffers of %u octets on QN %u", count,
				       size, qn);
		c->qcount[qn] = i + 1;
		rc = iw_sink_post(&c->sink, qn, c->qbuf[qn][i], size, e);
	}
	return rc;
}

static int check_config(const iw_conn_config *cfg, iw_err *e)
{
	const iw_profile *p = cfg->profile;
	if (!p)
		return iw_errf(e, IW_EINVAL, "connection model: no profile");
	if (cfg->role != IW_ROLE_INITIATOR && cfg->role != IW_ROLE_RESPONDER)
		return iw_errf(e, IW_EINVAL, "connection model: role %d is neither initiator nor responder",
			       (int)cfg->role);
	if (cfg->pd_len && !cfg->pd)
		return iw_errf(e, IW_EINVAL, "connection model: %zu octets of private data with no pointer",
			       cfg->pd_len);
	if (p->startup_frames) {
		/* A conforming endpoint never sends more than its peer must accept (MPA-6.1-R9a);
		 * under RFC 6581 the IRD/ORD block counts, as PD_Length covers it. */
		size_t block = p->enhanced ? IW_MPA_IRDORD_LEN : 0;
		if (cfg->pd_len + block > p->pd_max)
			return iw_errf(e, IW_EINVAL, "connection model: %zu octets of private data%s exceed the "
				       "%s limit of %u (MPA-6.1-R9a)", cfg->pd_len,
				       block ? " plus the IRD/ORD block" : "", p->name, (unsigned)p->pd_max);
	}
	/* Room for the untagged header and one payload octet (DDP-7.2-01), never past 64768 (MPA-3.2-04). */
	if (cfg->mulpdu && (cfg->mulpdu <= IW_DDP_UNTAGGED_HDR_LEN || cfg->mulpdu > IW_MPA_MULPDU_MAX))
		return iw_errf(e, IW_EINVAL, "connection model: MULPDU %u is outside %d..%d", cfg->mulpdu,
			       IW_DDP_UNTAGGED_HDR_LEN + 1, IW_MPA_MULPDU_MAX);
	if (cfg->ird > IW_MPA_IRDORD_MASK || cfg->ord > IW_MPA_IRDORD_MASK)
		return iw_errf(e, IW_EINVAL, "connection model: IRD %u / ORD %u do not fit 14 bits", cfg->ird,
			       cfg->ord);
	if (cfg->recv_buffers > IW_SINK_MAX_POSTED)
		return iw_errf(e, IW_EINVAL, "connection model: %u receive buffers, the sink holds at most %d",
			       cfg->recv_buffers, IW_SINK_MAX_POSTED);
	if ((uint64_t)cfg->recv_buffers * cfg->recv_buffer_size > RECV_MEM_MAX)
		return iw_errf(e, IW_EINVAL, "connection model: %u receive buffers of %u octets is over 1 GiB",
			       cfg->recv_buffers, cfg->recv_buffer_size);
	size_t need = IW_MPA_FRAME_HDR_LEN + IW_MPA_IRDORD_LEN + cfg->pd_len + IW_CONN_TERM_RESERVE;
	if (cfg->out_cap < need || cfg->out_cap < OUT_CAP_MIN)
		return iw_errf(e, IW_EINVAL, "connection model: output queue of %zu octets, at least %zu needed",
			       cfg->out_cap, need > OUT_CAP_MIN ? need : (size_t)OUT_CAP_MIN);
	return IW_OK;
}

/* Memory of at least n octets: k's, when it has that much (it is then k's no longer). */
static uint8_t *take(uint8_t **kept, size_t *kept_cap, size_t n, size_t *cap)
{
	if (*kept && *kept_cap >= n) {
		uint8_t *b = *kept;
		*cap = *kept_cap;
		*kept = NULL;
		return b;
	}
	*cap = n;
	return malloc(n);
}

/* Makes c, which holds nothing but the allocations k may give it, a model of cfg. */
static int conn_make(iw_conn *c, const iw_conn_config *cfg, conn_keep *k, iw_err *e)
{
	/* Everything but the event ring and the sink is zeroed here: a slot of the ring is cleared
	 * when an event is pushed into it (iw_conn_ev_push) and only pushed slots are read, so the
	 * ring's 27 KiB need no memset per connection (the network fuzzer makes two a run, its own
	 * and the built-in DUT's); the sink (38 KiB) is set up by iw_sink_init, which clears all
	 * of it that is ever read before it is written. */
	memset(c, 0, offsetof(iw_conn, sink));
	memset((char *)c + offsetof(iw_conn, sink) + sizeof c->sink, 0,
	       offsetof(iw_conn, ev) - offsetof(iw_conn, sink) - sizeof c->sink);
	iw_sink_init(&c->sink, cfg->profile, cfg->stream, cfg->pd_id);
	c->ev_head = c->ev_count = 0;
	c->ev_lost = 0;
	c->cfg = *cfg;
	c->p = cfg->profile;
	c->state = IW_CS_STARTUP;
	for (unsigned q = 0; q < 3; q++)
		c->msn_tx[q] = 1;       /* DDP-6.3-09 */

	c->own_pd = take(&k->own_pd, &k->own_pd_cap, cfg->pd_len ? cfg->pd_len : 1, &c->own_pd_cap);
	c->out_cap = cfg->out_cap;
	size_t first = c->out_cap < OUT_FIRST ? c->out_cap : OUT_FIRST;
	/* A kept queue may have grown past its first size, never past this connection's cap. */
	if (k->out_alloc > c->out_cap) {
		free(k->out);
		k->out = NULL;
	}
	c->out = take(&k->out, &k->out_alloc, first, &c->out_alloc);
	if (c->p->startup_frames)
		c->sbuf = take(&k->sbuf, &k->scap, IW_MPA_FRAME_HDR_LEN + (size_t)c->p->pd_max, &c->scap);
	c->scap = c->p->startup_frames ? IW_MPA_FRAME_HDR_LEN + (size_t)c->p->pd_max : 0;
	c->arena_cap = (size_t)cfg->recv_buffers * cfg->recv_buffer_size;
	if (k->arena && k->arena_alloc <= c->arena_cap) {
		c->arena = k->arena;
		c->arena_alloc = k->arena_alloc;
		k->arena = NULL;
	}
	c->rx = k->rx ? k->rx : malloc(sizeof *c->rx);
	k->rx = NULL;
	if (!c->own_pd || !c->out || (c->p->startup_frames && !c->sbuf) || !c->rx)
		return iw_errf(e, IW_ENOSPC, "no memory for the connection model's buffers");
	if (cfg->pd_len)
		memcpy(c->own_pd, cfg->pd, cfg->pd_len);
	c->cfg.pd = c->own_pd;

	/* RDMAP's queues (RFC 5040): QN 0 Sends, QN 1 Read Requests (as many as may be in flight,
	 * 28 octets each), QN 2 one Terminate. */
	uint32_t nreq = cfg->ird > cfg->ord ? cfg->ird : cfg->ord;
	if (nreq < 1)
		nreq = 1;
	if (nreq > IW_SINK_MAX_POSTED)
		nreq = IW_SINK_MAX_POSTED;
	int rc = post_queue(c, IW_QN_SEND, cfg->recv_buffers, cfg->recv_buffer_size, k, e);
	if (rc == IW_OK)
		rc = post_queue(c, IW_QN_READ_REQ, nreq, IW_RDMAP_READ_REQ_LEN, k, e);
	if (rc == IW_OK)
		rc = post_queue(c, IW_QN_TERMINATE, 1, IW_CONN_TERM_BUF, k, e);
	if (rc)
		return rc;

	c->params.ird = cfg->ird;
	c->params.ord = cfg->ord;
	if (!c->p->startup_frames) {
		/* culley-mpa-02: no frames; both directions start at offset 0 with markers and CRC
		 * (MPAc-8.1-03/04, MC §7.1, §7.2), and nobody waits for anybody. */
		c->params.markers_tx = c->params.markers_rx = true;
		c->params.crc = true;
		iw_conn_enter_full(c);
		c->state = IW_CS_FULL;
		iw_conn_ev_push(c, IW_EV_FULL_OPERATION);
	} else {
		iw_conn_build_own_frame(c);
	}
	iw_err_clear(e);
	return IW_OK;
}

int iw_conn_new(iw_conn **out, const iw_conn_config *cfg, iw_err *e)
{
	if (!out || !cfg)
		return iw_errf(e, IW_EINVAL, "connection model: no output pointer or configuration");
	*out = NULL;
	int rc = check_config(cfg, e);
	if (rc)
		return rc;
	iw_conn *c = malloc(sizeof *c);
	if (!c)
		return iw_errf(e, IW_ENOSPC, "no memory for the connection model");
	conn_keep none;
	memset(&none, 0, sizeof none);
	rc = conn_make(c, cfg, &none, e);
	if (rc) {
		iw_conn_free(c);
		return rc;
	}
	*out = c;
	return IW_OK;
}

int iw_conn_renew(iw_conn **pc, const iw_conn_config *cfg, iw_err *e)
{
	if (!pc || !cfg)
		return iw_errf(e, IW_EINVAL, "connection model: no model pointer or configuration");
	iw_conn *c = *pc;
	if (!c)
		return iw_conn_new(pc, cfg, e);
	int rc = check_config(cfg, e);
	if (rc) {
		iw_conn_free(c);
		*pc = NULL;
		return rc;
	}
	conn_keep k;
	keep_take(c, &k);
	rc = conn_make(c, cfg, &k, e);
	keep_free(&k);
	if (rc) {
		iw_conn_free(c);
		*pc = NULL;
	}
	return rc;
}

void iw_conn_free(iw_conn *c)
{
	if (!c)
		return;
	conn_keep k;
	keep_take(c, &k);
	keep_free(&k);
	free(c);
}

int iw_conn_start(iw_conn *c, iw_err *e)
{
	if (!c)
		return iw_errf(e, IW_EINVAL, "connection model: NULL");
	if (c->started)
		return iw_errf(e, IW_ESTATE, "connection model: already started");
	c->started = true;
	iw_err_clear(e);
	if (!c->p->startup_frames || c->cfg.role == IW_ROLE_RESPONDER)
		return IW_OK;
	if (c->state != IW_CS_STARTUP)
		return iw_errf(e, IW_ESTATE, "connection model: the startup is already over");
	/* MPA-6.1-R1a: the initiator's first octets are its Request. */
	return iw_conn_send_request(c, e);
}

/* ---- input ---- */

size_t iw_conn_input(iw_conn *c, const uint8_t *data, size_t len)
{
	if (!c || !data || c->close_emitted || c->peer_closed)
		return 0;
	c->arena_used = 0;      /* the previous input's Send data may be overwritten now */
	size_t used = 0;
	unsigned stalls = 0;
	while (used < len && !c->close_emitted) {
		size_t k;
		switch (c->state) {
		case IW_CS_STARTUP:
			k = iw_conn_startup_input(c, data + used, len - used);
			break;
		case IW_CS_AWAIT_FIRST_FPDU:
		case IW_CS_FULL:
			k = iw_conn_fpdu_input(c, data + used, len - used);
			break;
		default:
			/* After a reject MPA has exited and the octets are not FPDUs (MPA-6.1-R2e,
			 * R3c, A10); nothing here reads them. */
			k = len - used;
			break;
		}
		used += k;
		/* Every step consumes or changes state; two in a row that do neither would be a
		 * bug below, and the model must never hang on input. */
		if (k == 0 && ++stalls > 2)
			break;
	}
	return used;
}

void iw_conn_peer_closed(iw_conn *c)
{
	if (!c || c->peer_closed)
		return;
	c->peer_closed = true;
	iw_conn_event *ev = iw_conn_ev_push(c, IW_EV_PEER_CLOSED);
	if (ev) {
		ev->viol.req = "MPA-7-01";
		ev->viol.kind = IW_VIOL_FATAL;
		ev->viol.layer = IW_LAYER_LLP;
		ev->viol.etype = IW_LLP_ET_MPA;
		ev->viol.ecode = IW_MPA_E_TCP_LOST;
		ev->viol.offset = c->tx_ready ? c->rx->pos : c->shave;
		strcpy(ev->viol.detail, c->state == IW_CS_STARTUP ? "peer closed during the startup phase"
								   : "peer closed (FIN or RST)");
	}
	/* A38: a FIN is a graceful half-close; the model closes its half too, after its output. */
	iw_conn_close(c, IW_CS_CLOSED);
}

/* ---- sending ---- */

int iw_conn_queue_msg(iw_conn *c, const iw_ddp_hdr *base, const uint8_t *data, size_t len, size_t reserve,
		      iw_err *e)
{
	iw_ddp_segmenter s;
	int rc = iw_ddp_seg_init(&s, base, len, c->params.mulpdu, e);
	if (rc)
		return rc;

	/* Size the whole message first: a message goes out whole or not at all. */
	iw_ddp_segmenter dry = s;
	iw_mpa_tx t = c->tx;
	iw_ddp_hdr h;
	size_t off, n, need = 0;
	size_t hl = iw_ddp_hdr_len(base->tagged);
	while (iw_ddp_seg_next(&dry, &h, &off, &n)) {
		size_t w = iw_mpa_tx_size(&t, hl + n);
		need += w;
		t.pos += w;
	}
	if (need > SIZE_MAX - reserve || !iw_conn_out_room(c, need + reserve))
		return iw_errf(e, IW_ENOSPC, "output queue: %zu octets of FPDUs do not fit (%zu of %zu pending)",
			       need, c->out_len - c->out_off, c->out_cap);

	while (iw_ddp_seg_next(&s, &h, &off, &n)) {
		uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
		size_t hlen, w;
		rc = iw_ddp_hdr_encode(&h, hb, sizeof hb, &hlen, e);
		if (rc == IW_OK)
			rc = iw_mpa_tx_fpdu(&c->tx, hb, hlen, n ? data + off : NULL, n, NULL, c->out + c->out_len,
					    c->out_alloc - c->out_len, &w, e);
		if (rc)
			return rc;      /* not reached: the sizes were checked above */
		c->out_len += w;
	}
	iw_err_clear(e);
	return IW_OK;
}

static void base_hdr(const iw_conn *c, iw_ddp_hdr *h, bool tagged, unsigned opcode)
{
	memset(h, 0, sizeof *h);
	h->tagged = tagged;
	h->dv = c->p->ddp_version;
	h->rsvdulp[0] = iw_rdmap_ctrl(c->p->rdmap_version, opcode);
}

int iw_conn_queue_send(iw_conn *c, unsigned opcode, const uint8_t *data, size_t len, size_t reserve,
		       iw_err *e)
{
	iw_ddp_hdr h;
	base_hdr(c, &h, false, opcode);
	h.qn = IW_QN_SEND;
	h.msn = c->msn_tx[IW_QN_SEND];
	int rc = iw_conn_queue_msg(c, &h, data, len, reserve, e);
	if (rc == IW_OK)
		c->msn_tx[IW_QN_SEND]++;    /* DDP-6.3-08 */
	return rc;
}

int iw_conn_queue_write(iw_conn *c, uint32_t stag, uint64_t to, const uint8_t *data, size_t len,
			size_t reserve, iw_err *e)
{
	iw_ddp_hdr h;
	base_hdr(c, &h, true, IW_OP_WRITE);
	h.stag = stag;
	h.to = to;
	return iw_conn_queue_msg(c, &h, data, len, reserve, e);
}

int iw_conn_queue_read_resp(iw_conn *c, const iw_read_req *rr, const uint8_t *src, iw_err *e)
{
	/* RFC 5040: tagged at the requester's sink STag and TO; the segmenter advances the TO by
	 * the payload already sent (DDP-7.2-07) and cuts at MULPDU (DDP-7.2-01). */
	iw_ddp_hdr h;
	base_hdr(c, &h, true, IW_OP_READ_RESP);
	h.stag = rr->sink_stag;
	h.to = rr->sink_to;
	return iw_conn_queue_msg(c, &h, src, rr->size, IW_CONN_TERM_RESERVE, e);
}

int iw_conn_queue_terminate(iw_conn *c, const uint8_t *body, size_t len)
{
	/* RFC 5040 Terminate: untagged, QN 2, MSN the next on our QN 2, MO 0, L. It may use the
	 * reserve every other message leaves free. */
	iw_ddp_hdr h;
	base_hdr(c, &h, false, IW_OP_TERMINATE);
	h.qn = IW_QN_TERMINATE;
	h.msn = c->msn_tx[IW_QN_TERMINATE];
	int rc = iw_conn_queue_msg(c, &h, body, len, 0, NULL);
	if (rc == IW_OK)
		c->msn_tx[IW_QN_TERMINATE]++;
	return rc;
}

int iw_conn_queue_read(iw_conn *c, const iw_read_req *rr, bool internal, size_t reserve, iw_err *e)
{
	unsigned limit = c->params.ord < IW_CONN_MAX_READS ? c->params.ord : IW_CONN_MAX_READS;
	if (internal && limit == 0)
		limit = 1;      /* the Read RTR goes out whatever ORD says */
	if (c->rd_count >= limit)
		return iw_errf(e, IW_ENOSPC, "%u RDMA Read Requests outstanding: ORD %u reached", c->rd_count,
			       (unsigned)c->params.ord);
	uint8_t body[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(rr, body);
	iw_ddp_hdr h;
	base_hdr(c, &h, false, IW_OP_READ_REQ);
	h.qn = IW_QN_READ_REQ;
	h.msn = c->msn_tx[IW_QN_READ_REQ];
	int rc = iw_conn_queue_msg(c, &h, body, sizeof body, reserve, e);
	if (rc)
		return rc;
	c->msn_tx[IW_QN_READ_REQ]++;
	iw_conn_pending_read *r = &c->reads[(c->rd_head + c->rd_count) % IW_CONN_MAX_READS];
	r->rr = *rr;
	r->internal = internal;
	c->rd_count++;
	return IW_OK;
}

/* The ULP may send in full operation, while a responder's output is held (the FPDUs wait in
 * the queue, MPA-6.1-R4), and after a peer's graceful half-close (A38). */
static int verb_state(const iw_conn *c, iw_err *e)
{
	if (!c)
		return iw_errf(e, IW_EINVAL, "connection model: NULL");
	bool ok = c->tx_ready &&
		  (c->state == IW_CS_FULL || c->state == IW_CS_AWAIT_FIRST_FPDU ||
		   (c->state == IW_CS_CLOSED && c->peer_closed));
	if (!ok)
		return iw_errf(e, IW_ESTATE, "connection model: not in full operation");
	return IW_OK;
}

int iw_conn_send(iw_conn *c, unsigned opcode, const uint8_t *data, size_t len, iw_err *e)
{
	int rc = verb_state(c, e);
	if (rc)
		return rc;
	if (opcode != IW_OP_SEND && opcode != IW_OP_SEND_SE)
		return iw_errf(e, IW_EINVAL, "iw_conn_send: opcode 0x%x; Send (0x3) or Send with SE (0x5) only "
			       "(the Invalidate variants need an STag this call does not take)", opcode);
	if (len && !data)
		return iw_errf(e, IW_EINVAL, "iw_conn_send: %zu octets with no data", len);
	return iw_conn_queue_send(c, opcode, data, len, IW_CONN_TERM_RESERVE, e);
}

int iw_conn_write(iw_conn *c, uint32_t stag, uint64_t to, const uint8_t *data, size_t len, iw_err *e)
{
	int rc = verb_state(c, e);
	if (rc)
		return rc;
	if (len && !data)
		return iw_errf(e, IW_EINVAL, "iw_conn_write: %zu octets with no data", len);
	return iw_conn_queue_write(c, stag, to, data, len, IW_CONN_TERM_RESERVE, e);
}

int iw_conn_read(iw_conn *c, const iw_read_req *rr, iw_err *e)
{
	int rc = verb_state(c, e);
	if (rc)
		return rc;
	if (!rr)
		return iw_errf(e, IW_EINVAL, "iw_conn_read: no Read Request");
	return iw_conn_queue_read(c, rr, false, IW_CONN_TERM_RESERVE, e);
}

int iw_conn_register(iw_conn *c, uint32_t stag, uint64_t base_to, uint8_t *mem, uint64_t len, unsigned access,
		     iw_err *e)
{
	if (!c)
		return iw_errf(e, IW_EINVAL, "connection model: NULL");
	iw_tagged_buf b = {
		.stag = stag, .base_to = base_to, .length = len, .stream = c->cfg.stream, .pd = c->cfg.pd_id,
		.access = access, .valid = true, .mem = mem,
	};
	return iw_sink_register(&c->sink, &b, e);
}

int iw_conn_register_buf(iw_conn *c, const iw_tagged_buf *b, iw_err *e)
{
	if (!c || !b)
		return iw_errf(e, IW_EINVAL, "connection model: NULL");
	return iw_sink_register(&c->sink, b, e);
}

int iw_conn_invalidate(iw_conn *c, uint32_t stag, iw_err *e)
{
	if (!c)
		return iw_errf(e, IW_EINVAL, "connection model: NULL");
	return iw_sink_invalidate(&c->sink, stag, e);
}
