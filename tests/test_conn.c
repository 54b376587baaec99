/*
 * test_conn.c - the connection model (engine/iw_conn.h): two models wired back to back
 * (initiator <-> responder, output pumped to input whole or one octet at a time) in every
 * profile, a hand-built peer for stimuli a conforming model never sends, and random garbage
 * and mutations that must never crash it (run under ASan/UBSan).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ddp.h"
#include "iw_conn.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "rdmap.h"

/* ---- event logs ---- */

#define LOG_EVENTS 512
#define LOG_DATA (1u << 20)
#define CAP_BYTES (4u << 20)

typedef struct conn_log {
	iw_conn_event ev[LOG_EVENTS];
	size_t n;
	uint8_t *data;              /* copies of Send data (ev.data is rewritten to point here) */
	size_t dlen;
} conn_log;

static void log_drain(iw_conn *c, conn_log *l)
{
	iw_conn_event ev;
	while (iw_conn_next_event(c, &ev)) {
		if (ev.kind == IW_EV_SEND && ev.len <= LOG_DATA - l->dlen) {
			if (ev.len)
				memcpy(l->data + l->dlen, ev.data, ev.len);
			ev.data = l->data + l->dlen;
			l->dlen += ev.len;
		}
		if (l->n < LOG_EVENTS)
			l->ev[l->n++] = ev;
	}
}

static size_t log_count(const conn_log *l, enum iw_conn_ev_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->ev[i].kind == k;
	return n;
}

/* The nth event of kind k (0-based), or NULL. */
static const iw_conn_event *log_find(const conn_log *l, enum iw_conn_ev_kind k, size_t nth)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].kind == k && nth-- == 0)
			return &l->ev[i];
	return NULL;
}

/* Index of the first event of kind k, or l->n. */
static size_t log_index(const conn_log *l, enum iw_conn_ev_kind k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].kind == k)
			return i;
	return l->n;
}

static void log_reset(conn_log *l)
{
	l->n = 0;
	l->dlen = 0;
}

/* ---- a wired pair ---- */

typedef struct conn_pair {
	iw_conn *i, *r;
	conn_log li, lr;            /* events of the initiator, of the responder */
	uint8_t *cap_i2r, *cap_r2i; /* every octet moved, per direction */
	size_t n_i2r, n_r2i;
} conn_pair;

static iw_conn_config cfg_for(enum iw_profile_id id, enum iw_role role)
{
	iw_conn_config c;
	iw_conn_config_default(&c, iw_profile_get(id), role);
	return c;
}

static conn_pair *pair_new(const iw_conn_config *ci, const iw_conn_config *cr)
{
	conn_pair *pp = calloc(1, sizeof *pp);
	iw_err e;
	pp->li.data = malloc(LOG_DATA);
	pp->lr.data = malloc(LOG_DATA);
	pp->cap_i2r = malloc(CAP_BYTES);
	pp->cap_r2i = malloc(CAP_BYTES);
	if (iw_conn_new(&pp->i, ci, &e) != IW_OK)
		check_fail(__FILE__, __LINE__, "iw_conn_new initiator: %s", e.msg);
	if (iw_conn_new(&pp->r, cr, &e) != IW_OK)
		check_fail(__FILE__, __LINE__, "iw_conn_new responder: %s", e.msg);
	if (pp->i)
		CHECK_EQ(iw_conn_start(pp->i, &e), IW_OK);
	if (pp->r)
		CHECK_EQ(iw_conn_start(pp->r, &e), IW_OK);
	return pp;
}

static conn_pair *pair_default(enum iw_profile_id id)
{
	iw_conn_config ci = cfg_for(id, IW_ROLE_INITIATOR), cr = cfg_for(id, IW_ROLE_RESPONDER);
	return pair_new(&ci, &cr);
}

static void pair_free(conn_pair *pp)
{
	iw_conn_free(pp->i);
	iw_conn_free(pp->r);
	free(pp->li.data);
	free(pp->lr.data);
	free(pp->cap_i2r);
	free(pp->cap_r2i);
	free(pp);
}

static size_t move1(iw_conn *src, iw_conn *dst, conn_log *dl, uint8_t *cap, size_t *ncap, size_t chunk)
{
	size_t len;
	const uint8_t *p = iw_conn_output_peek(src, &len);
	if (!len)
		return 0;
	size_t n = chunk && chunk < len ? chunk : len;
	if (*ncap + n <= CAP_BYTES) {
		memcpy(cap + *ncap, p, n);
		*ncap += n;
	}
	size_t used = iw_conn_input(dst, p, n);
	CHECK(used <= n);
	log_drain(dst, dl);
	iw_conn_output_consume(src, n);
	return n;
}

/* Moves output both ways until both sides are quiet; chunk 0 moves everything at once. */
static void pump(conn_pair *pp, size_t chunk)
{
	for (long guard = 0; guard < 20000000; guard++) {
		size_t moved = move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, chunk);
		moved += move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, chunk);
		log_drain(pp->i, &pp->li);
		log_drain(pp->r, &pp->lr);
		if (!moved)
			return;
	}
	check_fail(__FILE__, __LINE__, "pump never went quiet");
}

/* ---- FPDU streams seen on the wire ---- */

typedef struct wire_seg {
	iw_ddp_hdr ddp;
	size_t ulpdu_len;
	unsigned opcode;
} wire_seg;

/* Decodes the FPDUs of a captured direction; returns how many, or (size_t)-1 on an MPA error. */
static size_t wire_parse(const iw_profile *p, bool markers, bool crc, const uint8_t *s, size_t n, wire_seg *out,
			 size_t max)
{
	iw_mpa_rx *rx = malloc(sizeof *rx);
	iw_fpdu *f = malloc(sizeof *f);
	iw_violation err;
	size_t cnt = 0, off = 0;
	iw_mpa_rx_init(rx, p, markers, crc);
	while (off < n) {
		size_t k;
		enum iw_rx_status st = iw_mpa_rx_push(rx, s + off, n - off, &k, f, &err);
		off += k;
		if (st == IW_RX_ERROR) {
			cnt = (size_t)-1;
			break;
		}
		if (st != IW_RX_FPDU)
			break;
		if (cnt < max) {
			size_t hl;
			memset(&out[cnt], 0, sizeof out[cnt]);
			out[cnt].ulpdu_len = f->ulpdu_length;
			if (iw_ddp_hdr_decode(f->ulpdu, f->ulpdu_length, &out[cnt].ddp, &hl, NULL) == IW_OK)
				out[cnt].opcode = iw_rdmap_ctrl_opcode(out[cnt].ddp.rsvdulp[0]);
		}
		cnt++;
	}
	free(f);
	free(rx);
	return cnt;
}

/* Octets of the startup frame a side sent (what comes before its FPDUs). */
static size_t frame_len(const iw_profile *p, size_t pd_len, bool enhanced_block)
{
	if (!p->startup_frames)
		return 0;
	return IW_MPA_FRAME_HDR_LEN + pd_len + (enhanced_block ? IW_MPA_IRDORD_LEN : 0);
}

/* ---- a hand-built peer ---- */

typedef struct fake_peer {
	const iw_profile *p;
	iw_mpa_tx tx;
	uint8_t *buf;
	size_t len;
} fake_peer;

static void fake_init(fake_peer *f, const iw_profile *p, bool markers, bool crc)
{
	f->p = p;
	iw_mpa_tx_init(&f->tx, p, markers, crc);
	f->buf = malloc(CAP_BYTES);
	f->len = 0;
}

static void fake_frame(fake_peer *f, const iw_mpa_frame *fr)
{
	size_t n;
	CHECK_EQ(iw_mpa_frame_encode(fr, f->buf + f->len, CAP_BYTES - f->len, &n, NULL), IW_OK);
	f->len += n;
}

static void fake_fpdu(fake_peer *f, const iw_ddp_hdr *h, const uint8_t *pl, size_t n, const iw_fpdu_mods *mods)
{
	uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl, w;
	CHECK_EQ(iw_ddp_hdr_encode(h, hb, sizeof hb, &hl, NULL), IW_OK);
	CHECK_EQ(iw_mpa_tx_fpdu(&f->tx, hb, hl, pl, n, mods, f->buf + f->len, CAP_BYTES - f->len, &w, NULL), IW_OK);
	f->len += w;
}

static iw_ddp_hdr fake_untagged(const iw_profile *p, unsigned opcode, uint32_t qn, uint32_t msn)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.last = true;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, opcode);
	h.qn = qn;
	h.msn = msn;
	return h;
}

static iw_ddp_hdr fake_tagged(const iw_profile *p, unsigned opcode, uint32_t stag, uint64_t to)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = true;
	h.last = true;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, opcode);
	h.stag = stag;
	h.to = to;
	return h;
}

/* A responder model that has accepted the fake peer's default Request (M=0, C=1). */
static iw_conn *fake_responder(enum iw_profile_id id, fake_peer *f, conn_log *l)
{
	const iw_profile *p = iw_profile_get(id);
	iw_conn_config cr = cfg_for(id, IW_ROLE_RESPONDER);
	iw_conn *r = NULL;
	iw_err e;
	CHECK_EQ(iw_conn_new(&r, &cr, &e), IW_OK);
	CHECK_EQ(iw_conn_start(r, &e), IW_OK);
	fake_init(f, p, false, true);
	if (p->startup_frames) {
		iw_mpa_frame rq;
		iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
		fake_frame(f, &rq);
		CHECK_EQ(iw_conn_input(r, f->buf, f->len), f->len);
		f->len = 0;
	}
	size_t n;
	iw_conn_output_peek(r, &n);
	iw_conn_output_consume(r, n);
	log_drain(r, l);
	log_reset(l);
	return r;
}

/* Feeds what the fake peer built and drains the events. */
static size_t fake_deliver(fake_peer *f, iw_conn *c, conn_log *l)
{
	size_t used = iw_conn_input(c, f->buf, f->len);
	log_drain(c, l);
	f->len = 0;
	return used;
}

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static const size_t chunks[] = { 0, 1 };

/* ---- startup ---- */

TEST(conn_startup_every_profile)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (size_t ci = 0; ci < 2; ci++) {
			conn_pair *pp = pair_default((enum iw_profile_id)id);
			pump(pp, chunks[ci]);
			if (p->startup_frames) {
				CHECK_EQ(log_count(&pp->li, IW_EV_FRAME_ACCEPTED), 1);
				CHECK_EQ(log_count(&pp->lr, IW_EV_FRAME_ACCEPTED), 1);
				/* MPA-6.1-R3d: the initiator is in full operation; MPA-6.1-R4: the
				 * responder waits for the first FPDU. */
				CHECK_EQ(iw_conn_state(pp->i), IW_CS_FULL);
				CHECK_EQ(iw_conn_state(pp->r), IW_CS_AWAIT_FIRST_FPDU);
			} else {
				CHECK_EQ(pp->n_i2r + pp->n_r2i, 0);     /* MPAc-8.1-03: no frames */
				CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
			}
			CHECK_EQ(log_count(&pp->li, IW_EV_FULL_OPERATION), 1);
			CHECK_EQ(log_count(&pp->lr, IW_EV_FULL_OPERATION), 1);
			CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"ping", 4, NULL), IW_OK);
			pump(pp, chunks[ci]);
			const iw_conn_event *ev = log_find(&pp->lr, IW_EV_SEND, 0);
			CHECK(ev != NULL);
			if (ev) {
				CHECK_EQ(ev->len, 4);
				CHECK_MEM(ev->data, "ping", 4);
				CHECK_EQ(ev->msn, 1);       /* DDP-6.3-09 */
				CHECK_EQ(ev->opcode, IW_OP_SEND);
			}
			CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
			CHECK(!iw_conn_wants_close(pp->i) && !iw_conn_wants_close(pp->r));
			pair_free(pp);
		}
	}
}

TEST(conn_request_golden_octets)
{
	/* requirements.md §5.9: the Requests of each profile in default configuration. */
	static const struct { enum iw_profile_id id; const char *tail; } want[] = {
		{ IW_PROFILE_RDDP_MPA_01, "40 00 00 00" },
		{ IW_PROFILE_RFC5044, "40 01 00 00" },
		{ IW_PROFILE_RFC6581, "50 02 00 04 00 10 00 10" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		iw_conn_config ci = cfg_for(want[k].id, IW_ROLE_INITIATOR);
		iw_conn *c = NULL;
		CHECK_EQ(iw_conn_new(&c, &ci, NULL), IW_OK);
		size_t n;
		iw_conn_output_peek(c, &n);
		CHECK_EQ(n, 0);                     /* nothing before start */
		CHECK_EQ(iw_conn_start(c, NULL), IW_OK);
		CHECK_EQ(iw_conn_start(c, NULL), IW_ESTATE);
		const uint8_t *o = iw_conn_output_peek(c, &n);
		uint8_t tail[8];
		size_t tl = check_unhex(want[k].tail, tail, sizeof tail);
		CHECK_EQ(n, 16 + tl);
		CHECK_MEM(o, "MPA ID Req Frame", 16);  /* MPA-6.1-R1a, MPA-6.1.1-01 */
		CHECK_MEM(o + 16, tail, tl);
		/* MPA-6.1-R3a: no FPDU verb before the Reply. */
		CHECK_EQ(iw_conn_send(c, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);
		iw_conn_free(c);
	}
}

TEST(conn_private_data_both_ways)
{
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	ci.pd = (const uint8_t *)"hello";
	ci.pd_len = 5;
	cr.pd = (const uint8_t *)"welcome!";
	cr.pd_len = 8;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 1);
	const iw_conn_event *a = log_find(&pp->lr, IW_EV_FRAME_ACCEPTED, 0);
	const iw_conn_event *b = log_find(&pp->li, IW_EV_FRAME_ACCEPTED, 0);
	CHECK(a && b);
	if (a && b) {
		CHECK_EQ(a->frame.pd_len, 5);
		CHECK_MEM(a->frame.pd, "hello", 5);     /* MPA-6.1-R9c: exactly PD_Length octets */
		CHECK(a->frame.has_irdord);
		CHECK_EQ(b->frame.pd_len, 8);
		CHECK_MEM(b->frame.pd, "welcome!", 8);
	}
	pair_free(pp);

	/* A private data larger than the profile allows is refused at creation. */
	iw_conn *c = NULL;
	static uint8_t big[600];
	ci = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	ci.pd = big;
	ci.pd_len = sizeof big;
	iw_err e;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_EINVAL);
	CHECK(c == NULL);
}

/* ---- negotiation ---- */

TEST(conn_marker_negotiation_all_four)
{
	enum iw_profile_id ids[] = { IW_PROFILE_RDDP_MPA_01, IW_PROFILE_RFC5044, IW_PROFILE_RFC6581 };
	for (size_t pi = 0; pi < 3; pi++) {
		const iw_profile *p = iw_profile_get(ids[pi]);
		for (int mi = 0; mi < 2; mi++) {
			for (int mr = 0; mr < 2; mr++) {
				iw_conn_config ci = cfg_for(ids[pi], IW_ROLE_INITIATOR);
				iw_conn_config cr = cfg_for(ids[pi], IW_ROLE_RESPONDER);
				ci.want_markers = mi;
				cr.want_markers = mr;
				conn_pair *pp = pair_new(&ci, &cr);
				pump(pp, 0);
				iw_conn_params a, b;
				iw_conn_params_get(pp->i, &a);
				iw_conn_params_get(pp->r, &b);
				/* MPA-6.1.1-M1/M2: markers on what a side sends iff the peer's M=1. */
				CHECK_EQ(a.markers_tx, mr);
				CHECK_EQ(a.markers_rx, mi);
				CHECK_EQ(b.markers_tx, mi);
				CHECK_EQ(b.markers_rx, mr);
				CHECK_EQ(a.mulpdu, iw_mulpdu(1460, mr));    /* MPA-5.3.2-01/02 */
				CHECK_EQ(b.mulpdu, iw_mulpdu(1460, mi));

				static uint8_t msg[3000];
				pattern(msg, sizeof msg, 3);
				CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
				size_t n;
				const uint8_t *o = iw_conn_output_peek(pp->i, &n);
				/* MPA-6.1-R7: with markers the first full-operation octets are a marker
				 * 00 00 00 00; without, ULPDU_Length (here MULPDU, never zero). */
				CHECK(n > 4);
				CHECK_EQ(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0, mr);
				pump(pp, 0);
				CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
				o = iw_conn_output_peek(pp->r, &n);
				CHECK_EQ(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0, mi);
				pump(pp, 0);
				const iw_conn_event *x = log_find(&pp->lr, IW_EV_SEND, 0);
				const iw_conn_event *y = log_find(&pp->li, IW_EV_SEND, 0);
				CHECK(x && y);
				if (x && y) {
					CHECK_EQ(x->len, sizeof msg);
					CHECK_MEM(x->data, msg, sizeof msg);
					CHECK_EQ(y->len, sizeof msg);
					CHECK_MEM(y->data, msg, sizeof msg);
				}
				/* An independent decoder agrees with the negotiated markers. */
				size_t req_len = frame_len(p, 0, p->enhanced);
				wire_seg segs[8];
				size_t ns = wire_parse(p, mr, true, pp->cap_i2r + req_len, pp->n_i2r - req_len, segs, 8);
				CHECK_EQ(ns, (sizeof msg + a.mulpdu - 18 - 1) / (a.mulpdu - 18));
				for (size_t s = 0; s < ns && s < 8; s++)
					CHECK(segs[s].ulpdu_len <= a.mulpdu);       /* DDP-7.2-01 */
				pair_free(pp);
			}
		}
	}
}

TEST(conn_crc_negotiation)
{
	static const struct {
		bool i_want, i_admin, r_admin;
		bool req_c, rep_c, crc;
	} cases[] = {
		{ true, false, false, true, true, true },       /* MPA-5.2-03 default */
		{ false, false, false, true, true, true },      /* C=0 only on admin request (MPA-5.2-02) */
		{ false, true, false, false, true, true },      /* MPA-6.1.1-C2: one C=1 is enough */
		{ false, true, true, false, false, false },     /* MPA-6.1.1-C1: both 0, CRC off */
		{ true, true, true, true, true, true },         /* admin off, but the Request has C=1 */
	};
	for (int id = IW_PROFILE_RDDP_MPA_01; id <= IW_PROFILE_RFC6581; id++) {
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			iw_conn_config ci = cfg_for((enum iw_profile_id)id, IW_ROLE_INITIATOR);
			iw_conn_config cr = cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			ci.want_crc = cases[k].i_want;
			ci.crc_admin_off = cases[k].i_admin;
			cr.crc_admin_off = cases[k].r_admin;
			conn_pair *pp = pair_new(&ci, &cr);
			size_t n;
			const uint8_t *o = iw_conn_output_peek(pp->i, &n);
			CHECK_EQ((o[16] & IW_MPA_FLAG_C) != 0, cases[k].req_c);
			move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 0);
			o = iw_conn_output_peek(pp->r, &n);
			CHECK(n >= 20);
			CHECK_EQ((o[16] & IW_MPA_FLAG_C) != 0, cases[k].rep_c);
			pump(pp, 0);
			iw_conn_params a, b;
			iw_conn_params_get(pp->i, &a);
			iw_conn_params_get(pp->r, &b);
			CHECK_EQ(a.crc, cases[k].crc);
			CHECK_EQ(b.crc, cases[k].crc);

			/* A damaged CRC field: ignored when off (MPA-4-04), code 2 when on
			 * (MPA-5.2-14). */
			CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"abcd", 4, NULL), IW_OK);
			o = iw_conn_output_peek(pp->i, &n);
			uint8_t bad[64];
			CHECK(n <= sizeof bad);
			memcpy(bad, o, n);
			bad[n - 1] ^= 0x5A;
			iw_conn_input(pp->r, bad, n);
			iw_conn_output_consume(pp->i, n);
			log_drain(pp->r, &pp->lr);
			if (cases[k].crc) {
				const iw_conn_event *ev = log_find(&pp->lr, IW_EV_ERROR, 0);
				CHECK(ev != NULL);
				if (ev) {
					CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
					CHECK_EQ(ev->viol.ecode, IW_MPA_E_CRC);
				}
				CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 0);
			} else {
				CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 1);
				CHECK_EQ(log_count(&pp->lr, IW_EV_ERROR), 0);
			}
			pair_free(pp);
		}
	}
}

/* ---- rule 4 ---- */

TEST(conn_rule4_responder_silent_until_first_fpdu)
{
	for (size_t ci = 0; ci < 2; ci++) {
		conn_pair *pp = pair_default(IW_PROFILE_RFC5044);
		pump(pp, chunks[ci]);
		/* The reflector's greeting, queued as soon as full operation is announced. */
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"greeting", 8, NULL), IW_OK);
		size_t n;
		iw_conn_output_peek(pp->r, &n);
		CHECK_EQ(n, 0);                         /* MPA-6.1-R4 */
		CHECK_EQ(pp->n_r2i, 20);                /* the Reply and nothing else */
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_AWAIT_FIRST_FPDU);
		pump(pp, chunks[ci]);
		CHECK_EQ(log_count(&pp->li, IW_EV_SEND), 0);

		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"hi", 2, NULL), IW_OK);
		pump(pp, chunks[ci]);
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
		const iw_conn_event *ev = log_find(&pp->li, IW_EV_SEND, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->len, 8);
			CHECK_MEM(ev->data, "greeting", 8);
		}
		CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 1);
		pair_free(pp);
	}
}

TEST(conn_rule4_bad_first_fpdu_releases_nothing)
{
	conn_pair *pp = pair_default(IW_PROFILE_RDDP_MPA_01);
	pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"greeting", 8, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"hello", 5, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	uint8_t bad[64];
	memcpy(bad, o, n);
	bad[2 + 18 + 1] ^= 0x01;                    /* a payload bit: CRC mismatch */
	iw_conn_input(pp->r, bad, n);
	iw_conn_output_consume(pp->i, n);
	log_drain(pp->r, &pp->lr);
	const iw_conn_event *ev = log_find(&pp->lr, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_STR(ev->viol.req, "MPA-5.2-14");
	CHECK_EQ(log_count(&pp->lr, IW_EV_CLOSE), 1);
	CHECK(iw_conn_wants_close(pp->r));
	/* Rule 4 never let the responder speak: no greeting, and no Terminate either. */
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	pair_free(pp);
}

/* ---- data transfer ---- */

TEST(conn_send_sizes_every_profile)
{
	static const size_t sizes[] = { 0, 1, 1442, 100000 };
	uint8_t *msg = malloc(100000);
	pattern(msg, 100000, 11);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (size_t ci = 0; ci < 2; ci++) {
			iw_conn_config ci_ = cfg_for((enum iw_profile_id)id, IW_ROLE_INITIATOR);
			iw_conn_config cr = cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			ci_.want_markers = true;       /* markers on the responder->initiator half */
			ci_.recv_buffer_size = cr.recv_buffer_size = 128 * 1024;  /* room for 100000 */
			conn_pair *pp = pair_new(&ci_, &cr);
			pump(pp, chunks[ci]);
			for (size_t k = 0; k < 4; k++)
				CHECK_EQ(iw_conn_send(pp->i, k == 2 ? IW_OP_SEND_SE : IW_OP_SEND, msg, sizes[k], NULL),
					 IW_OK);
			pump(pp, chunks[ci]);
			CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 4);
			for (size_t k = 0; k < 4; k++) {
				const iw_conn_event *ev = log_find(&pp->lr, IW_EV_SEND, k);
				if (!ev)
					continue;
				CHECK_EQ(ev->len, sizes[k]);
				CHECK_EQ(ev->msn, k + 1);           /* DDP-6.3-08/09 */
				CHECK_EQ(ev->opcode, k == 2 ? IW_OP_SEND_SE : IW_OP_SEND);
				CHECK_MEM(ev->data, msg, sizes[k]);
				/* The reflector echo. */
				CHECK_EQ(iw_conn_send(pp->r, ev->opcode, ev->data, ev->len, NULL), IW_OK);
			}
			pump(pp, chunks[ci]);
			CHECK_EQ(log_count(&pp->li, IW_EV_SEND), 4);
			for (size_t k = 0; k < 4; k++) {
				const iw_conn_event *ev = log_find(&pp->li, IW_EV_SEND, k);
				if (ev) {
					CHECK_EQ(ev->len, sizes[k]);
					CHECK_MEM(ev->data, msg, sizes[k]);
				}
			}
			/* The 100000-octet Send is many segments, each within MULPDU, MO
			 * increasing, L only on the last (DDP-7.2-01/05, DDP-6.1-03). */
			iw_conn_params a;
			iw_conn_params_get(pp->i, &a);
			size_t req_len = frame_len(p, 0, p->enhanced);
			static wire_seg segs[256];
			size_t ns = wire_parse(p, a.markers_tx, a.crc, pp->cap_i2r + req_len, pp->n_i2r - req_len, segs,
					       256);
			size_t per = a.mulpdu - IW_DDP_UNTAGGED_HDR_LEN;
			size_t first = 2 + (1442 + per - 1) / per;      /* where the 100000 starts */
			CHECK_EQ(ns, first + (100000 + per - 1) / per);
			if (ns == first + (100000 + per - 1) / per) {
				CHECK_EQ(segs[0].ulpdu_len, 18);            /* DDP-7.2-08: zero-length */
				CHECK(segs[0].ddp.last);
				CHECK(!segs[2].ddp.last);                   /* 1442 > MULPDU - 18 */
				for (size_t s = first; s < ns; s++) {
					CHECK_EQ(segs[s].ddp.msn, 4);
					CHECK_EQ(segs[s].ddp.mo, (s - first) * per);
					CHECK_EQ(segs[s].ddp.last, s == ns - 1);
					CHECK(segs[s].ulpdu_len <= a.mulpdu);
				}
			}
			pair_free(pp);
		}
	}
	free(msg);
}

TEST(conn_write_then_read_same_range)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		conn_pair *pp = pair_default((enum iw_profile_id)id);
		static uint8_t remote[8192], local[8192], data[5000];
		memset(remote, 0xEE, sizeof remote);
		memset(local, 0, sizeof local);
		pattern(data, sizeof data, (unsigned)id);
		CHECK_EQ(iw_conn_register(pp->r, 0x200, 0x1000, remote, sizeof remote,
					  IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
		/* The Read Response lands in a local buffer: no remote right needed for it. */
		CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
		pump(pp, id == IW_PROFILE_RFC5044 ? 1 : 0);
		CHECK_EQ(iw_conn_write(pp->i, 0x200, 0x1000 + 100, data, sizeof data, NULL), IW_OK);
		iw_read_req rr = { .sink_stag = 0x100, .sink_to = 7, .size = sizeof data, .src_stag = 0x200,
				   .src_to = 0x1000 + 100 };
		CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
		pump(pp, id == IW_PROFILE_RFC5044 ? 1 : 0);
		CHECK_MEM(remote + 100, data, sizeof data);     /* DDP-7.2-04 */
		CHECK_EQ(remote[99], 0xEE);
		CHECK_EQ(remote[100 + sizeof data], 0xEE);
		const iw_conn_event *w = log_find(&pp->lr, IW_EV_WRITE, 0);
		CHECK(w != NULL);
		if (w) {
			CHECK_EQ(w->stag, 0x200);
			iw_conn_params a;
			iw_conn_params_get(pp->i, &a);
			size_t per = a.mulpdu - IW_DDP_TAGGED_HDR_LEN;
			size_t last_off = (sizeof data - 1) / per * per;
			CHECK_EQ(w->to, 0x1000 + 100 + last_off);   /* DDP-7.2-07 */
			CHECK_EQ(w->len, sizeof data - last_off);
		}
		const iw_conn_event *s = log_find(&pp->lr, IW_EV_READ_SERVICED, 0);
		CHECK(s != NULL);
		if (s)
			CHECK_EQ(s->rreq.size, sizeof data);
		const iw_conn_event *d = log_find(&pp->li, IW_EV_READ_DONE, 0);
		CHECK(d != NULL);
		if (d)
			CHECK_EQ(d->rreq.sink_stag, 0x100);
		CHECK_MEM(local + 7, data, sizeof data);
		CHECK_EQ(log_count(&pp->li, IW_EV_ERROR) + log_count(&pp->lr, IW_EV_ERROR), 0);
		pair_free(pp);
	}
}

TEST(conn_read_outside_buffer_terminates)
{
	conn_pair *pp = pair_default(IW_PROFILE_RFC5044);
	static uint8_t remote[4096], local[8192];
	CHECK_EQ(iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
	CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
	pump(pp, 0);
	iw_read_req rr = { .sink_stag = 0x100, .sink_to = 0, .size = 4097, .src_stag = 0x200, .src_to = 0 };
	CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
	size_t before = pp->n_r2i;
	pump(pp, 0);
	const iw_conn_event *ev = log_find(&pp->lr, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
		CHECK_EQ(ev->viol.etype, IW_RDMAP_ET_PROTECTION);
		CHECK_EQ(ev->viol.ecode, IW_RDMAP_EC_BASE_BOUNDS);
	}
	CHECK(log_index(&pp->lr, IW_EV_ERROR) < log_index(&pp->lr, IW_EV_CLOSE));
	CHECK_EQ(log_count(&pp->lr, IW_EV_READ_SERVICED), 0);
	const iw_conn_event *t = log_find(&pp->li, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ(t->term.layer, IW_LAYER_RDMAP);
		CHECK_EQ(t->term.etype, IW_RDMAP_ET_PROTECTION);
		CHECK_EQ(t->term.ecode, IW_RDMAP_EC_BASE_BOUNDS);
		CHECK(t->term.d);
		CHECK(t->term.r);                   /* the Read Request rides along (RFC 5040 §4.8) */
		uint8_t body[IW_RDMAP_READ_REQ_LEN];
		iw_read_req_encode(&rr, body);
		CHECK_MEM(t->term.rdma_hdr, body, sizeof body);
	}
	CHECK_EQ(log_count(&pp->li, IW_EV_CLOSE), 1);
	CHECK(iw_conn_wants_close(pp->i));
	CHECK_EQ(log_count(&pp->li, IW_EV_READ_DONE), 0);
	/* On the wire: one Terminate, untagged QN 2, MSN 1, MO 0, L. */
	wire_seg seg[4];
	CHECK_EQ(wire_parse(iw_profile_get(IW_PROFILE_RFC5044), false, true, pp->cap_r2i + before,
			    pp->n_r2i - before, seg, 4), 1);
	CHECK(!seg[0].ddp.tagged && seg[0].ddp.last);
	CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
	CHECK_EQ(seg[0].ddp.qn, 2);
	CHECK_EQ(seg[0].ddp.msn, 1);
	CHECK_EQ(seg[0].ddp.mo, 0);
	pair_free(pp);

	/* A write-only buffer: the same path with the access-rights code. */
	pp = pair_default(IW_PROFILE_RFC6581);
	CHECK_EQ(iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
	CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
	pump(pp, 0);
	rr.size = 16;
	CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
	pump(pp, 0);
	t = log_find(&pp->li, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t)
		CHECK_EQ(t->term.ecode, IW_RDMAP_EC_ACCESS);    /* ARCH-2.2-F1 */
	pair_free(pp);
}

TEST(conn_corrupt_fpdu_terminates_then_nothing)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		conn_pair *pp = pair_default((enum iw_profile_id)id);
		pump(pp, 0);
		static uint8_t msg[300];
		pattern(msg, sizeof msg, 5);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 10, NULL), IW_OK);
		pump(pp, 0);
		CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 1);

		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 20, NULL), IW_OK);
		size_t n;
		const uint8_t *o = iw_conn_output_peek(pp->i, &n);
		static uint8_t bad[1024];
		CHECK(n <= sizeof bad);
		memcpy(bad, o, n);
		bad[100] ^= 0x10;                   /* inside the 300-octet Send's payload */
		size_t used = iw_conn_input(pp->r, bad, n);
		iw_conn_output_consume(pp->i, n);
		log_drain(pp->r, &pp->lr);
		CHECK(used < n);                    /* it stopped where it closed */
		CHECK_EQ(iw_conn_input(pp->r, bad, n), 0);
		CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 1);    /* MPA-7-08: nothing later */
		const iw_conn_event *ev = log_find(&pp->lr, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_STR(ev->viol.req, "MPA-5.2-14");
			CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
			CHECK_EQ(ev->viol.etype, IW_LLP_ET_MPA);
			CHECK_EQ(ev->viol.ecode, IW_MPA_E_CRC);
		}
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FAILED);
		CHECK(iw_conn_wants_close(pp->r));
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 1, NULL), IW_ESTATE);
		pump(pp, 0);
		/* The Terminate: LLP, type 0 (MPA), code 2, no headers. */
		const iw_conn_event *t = log_find(&pp->li, IW_EV_TERMINATE, 0);
		CHECK(t != NULL);
		if (t) {
			CHECK_EQ(t->term.layer, IW_LAYER_LLP);
			CHECK_EQ(t->term.etype, 0);
			CHECK_EQ(t->term.ecode, IW_MPA_E_CRC);
			CHECK(!t->term.d && !t->term.r);
		}
		CHECK_EQ(log_count(&pp->li, IW_EV_CLOSE), 1);
		(void)p;
		pair_free(pp);
	}
}

/* ---- bad startup frames ---- */

TEST(conn_bad_request_key_closes_without_reply)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	for (int k = 0; k <= 16; k++) {
		for (size_t ci = 0; ci < 2; ci++) {
			iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
			iw_conn *r = NULL;
			CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
			CHECK_EQ(iw_conn_start(r, NULL), IW_OK);
			uint8_t fr[64];
			size_t n;
			iw_mpa_frame f;
			/* k == 16 is the Reply key sent to a responder (MPA-6.1-R8a). */
			iw_mpa_frame_init(&f, p, k == 16 ? IW_MPA_REPLY : IW_MPA_REQUEST);
			if (k < 16)
				f.key[k] ^= 0x20;       /* 'F' -> 'f' at k = 11 (A15) */
			f.pd = (const uint8_t *)"xyz";
			f.pd_len = 3;
			CHECK_EQ(iw_mpa_frame_encode(&f, fr, sizeof fr, &n, NULL), IW_OK);
			size_t used = 0;
			if (chunks[ci]) {
				for (size_t b = 0; b < n; b++)
					used += iw_conn_input(r, fr + b, 1);
			} else {
				used = iw_conn_input(r, fr, n);
			}
			/* Rejected once the header is in: the PD is not waited for (MPA-7-06). */
			CHECK_EQ(used, 20);
			conn_log *l = calloc(1, sizeof *l);
			l->data = malloc(LOG_DATA);
			log_drain(r, l);
			const iw_conn_event *ev = log_find(l, IW_EV_FRAME_REJECTED, 0);
			CHECK(ev != NULL);
			if (ev) {
				CHECK_STR(ev->viol.req, k == 16 ? "MPA-6.1-R8a" : "MPA-6.1-R5");
				CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
				CHECK_EQ(ev->viol.ecode, IW_MPA_E_STARTUP);
			}
			CHECK_EQ(log_count(l, IW_EV_CLOSE), 1);
			CHECK_EQ(log_count(l, IW_EV_FRAME_ACCEPTED), 0);
			iw_conn_output_peek(r, &n);
			CHECK_EQ(n, 0);                 /* MPA-6.1-R2b: no Reply octets */
			CHECK(iw_conn_wants_close(r));
			CHECK_EQ(iw_conn_state(r), IW_CS_FAILED);
			free(l->data);
			free(l);
			iw_conn_free(r);
		}
	}
}

TEST(conn_bad_rev_and_pd_length)
{
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	/* Rev 0 to an RFC 5044 responder (MPA-6.1.1-07); PD_Length 600 > 512 rejected as soon as
	 * the header is in, before any private data (MPA-6.1-R9a). */
	for (int k = 0; k < 2; k++) {
		iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
		iw_conn *r = NULL;
		CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
		uint8_t fr[20];
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		if (k == 0) {
			f.rev = 0;
		} else {
			f.pd_length_auto = false;
			f.pd_length = 600;
		}
		size_t n;
		CHECK_EQ(iw_mpa_frame_encode(&f, fr, sizeof fr, &n, NULL), IW_OK);
		for (size_t b = 0; b < 19; b++)
			CHECK_EQ(iw_conn_input(r, fr + b, 1), 1);
		log_reset(l);
		log_drain(r, l);
		CHECK_EQ(l->n, 0);
		CHECK_EQ(iw_conn_input(r, fr + 19, 1), 1);
		log_drain(r, l);
		const iw_conn_event *ev = log_find(l, IW_EV_FRAME_REJECTED, 0);
		CHECK(ev != NULL);
		if (ev)
			CHECK_STR(ev->viol.req, k == 0 ? "MPA-6.1.1-07" : "MPA-6.1-R9a");
		iw_conn_output_peek(r, &n);
		CHECK_EQ(n, 0);
		iw_conn_free(r);
	}

	/* A frame that stops inside its private data, then the peer closes: close, no Reply. */
	iw_conn_config cr = cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_RESPONDER);
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RDDP_MPA_01), IW_MPA_REQUEST);
	f.pd_length_auto = false;
	f.pd_length = 65535;
	uint8_t fr[20];
	size_t n;
	CHECK_EQ(iw_mpa_frame_encode(&f, fr, sizeof fr, &n, NULL), IW_OK);
	CHECK_EQ(iw_conn_input(r, fr, n), 20);
	static uint8_t some[10];
	CHECK_EQ(iw_conn_input(r, some, sizeof some), 10);
	CHECK(!iw_conn_wants_close(r));
	iw_conn_peer_closed(r);
	log_reset(l);
	log_drain(r, l);
	CHECK_EQ(log_count(l, IW_EV_PEER_CLOSED), 1);
	CHECK_EQ(log_count(l, IW_EV_CLOSE), 1);
	CHECK(iw_conn_wants_close(r));
	iw_conn_output_peek(r, &n);
	CHECK_EQ(n, 0);
	iw_conn_free(r);
	free(l->data);
	free(l);
}

TEST(conn_initiator_rejects_bad_reply)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RDDP_MPA_01);
	for (int k = 0; k < 3; k++) {
		conn_pair *pp = pair_default(IW_PROFILE_RDDP_MPA_01);
		size_t n;
		iw_conn_output_peek(pp->i, &n);
		iw_conn_output_consume(pp->i, n);
		iw_mpa_frame f;
		/* k 0: a Request where the Reply belongs (Initiator/Initiator, MPA-6.1-R8a);
		 * k 1: Rev 1 (MPA-6.1.1-07); k 2: a corrupted key (MPA-6.1-R5). */
		iw_mpa_frame_init(&f, p, k == 0 ? IW_MPA_REQUEST : IW_MPA_REPLY);
		if (k == 1)
			f.rev = 1;
		if (k == 2)
			f.key[0] = 'm';
		uint8_t fr[20];
		CHECK_EQ(iw_mpa_frame_encode(&f, fr, sizeof fr, &n, NULL), IW_OK);
		iw_conn_input(pp->i, fr, n);
		log_drain(pp->i, &pp->li);
		const iw_conn_event *ev = log_find(&pp->li, IW_EV_FRAME_REJECTED, 0);
		CHECK(ev != NULL);
		if (ev)
			CHECK_STR(ev->viol.req, k == 0 ? "MPA-6.1-R8a" : k == 1 ? "MPA-6.1.1-07" : "MPA-6.1-R5");
		CHECK_EQ(log_count(&pp->li, IW_EV_CLOSE), 1);
		CHECK_EQ(log_count(&pp->li, IW_EV_FULL_OPERATION), 0);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);
		iw_conn_output_peek(pp->i, &n);
		CHECK_EQ(n, 0);                     /* MPA-6.1-R3b: no FPDU */
		pair_free(pp);
	}
}

TEST(conn_reply_r1_is_peer_reject)
{
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.reject = true;
	cr.pd = (const uint8_t *)"no";
	cr.pd_len = 2;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 1);
	const iw_conn_event *ev = log_find(&pp->li, IW_EV_PEER_REJECT, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK(ev->frame.r);
		CHECK_EQ(ev->frame.pd_len, 2);
		CHECK_MEM(ev->frame.pd, "no", 2);
	}
	CHECK_EQ(pp->n_r2i, 22);                    /* the Reply, R set, and nothing more */
	CHECK(pp->cap_r2i[16] & IW_MPA_FLAG_R);
	CHECK_EQ(iw_conn_state(pp->i), IW_CS_REJECTED);
	CHECK_EQ(iw_conn_state(pp->r), IW_CS_REJECTED);
	CHECK_EQ(log_count(&pp->li, IW_EV_FULL_OPERATION) + log_count(&pp->lr, IW_EV_FULL_OPERATION), 0);
	/* A10: TCP is left to the ULP. */
	CHECK(!iw_conn_wants_close(pp->i) && !iw_conn_wants_close(pp->r));
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);

	/* MPA-6.1-R2e: what follows is not FPDUs, so a valid-looking Send delivers nothing. */
	fake_peer f;
	fake_init(&f, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	iw_ddp_hdr h = fake_untagged(f.p, IW_OP_SEND, 0, 1);
	fake_fpdu(&f, &h, (const uint8_t *)"data", 4, NULL);
	size_t fl = f.len;
	CHECK_EQ(fake_deliver(&f, pp->r, &pp->lr), fl);
	CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 0);
	size_t n;
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	free(f.buf);
	pair_free(pp);
}

TEST(conn_octets_after_request_are_fpdus)
{
	/* A6: a Request and an FPDU in one input; the FPDU is processed after the Reply. */
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	fake_peer f;
	fake_init(&f, p, false, true);
	iw_mpa_frame rq;
	iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
	rq.res = 0x1F;                              /* MPA-6.1.1-05: not checked */
	rq.r = true;                                /* MPA-6.1.1-R1: not checked in a Request */
	fake_frame(&f, &rq);
	iw_ddp_hdr h = fake_untagged(p, IW_OP_SEND, 0, 1);
	fake_fpdu(&f, &h, (const uint8_t *)"early", 5, NULL);
	size_t fl = f.len;
	CHECK_EQ(fake_deliver(&f, r, l), fl);
	CHECK_EQ(log_count(l, IW_EV_FRAME_ACCEPTED), 1);
	const iw_conn_event *ev = log_find(l, IW_EV_SEND, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_MEM(ev->data, "early", 5);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(r, &n);
	CHECK_EQ(n, 20);
	CHECK_MEM(o, "MPA ID Rep Frame", 16);
	CHECK_EQ(o[16] & IW_MPA_FLAG_R, 0);          /* accepted despite R and Res in the Request */
	CHECK_EQ(iw_conn_state(r), IW_CS_FULL);
	free(f.buf);
	iw_conn_free(r);
	free(l->data);
	free(l);
}

/* ---- DDP and RDMAP errors from a hand-built peer ---- */

TEST(conn_ddp_rdmap_errors_give_their_codes)
{
	static const struct {
		const char *what;
		int layer, etype, ecode;
	} want[] = {
		{ "DV 0 on a Send", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_U_VERSION },
		{ "Write to an unknown STag", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG },
		{ "Write to a read-only STag", IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_ACCESS },
		{ "Send on QN 5", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN },
		{ "ULPDU of 5 octets", IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC },
		{ "Send on QN 1", IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE },
		{ "Read Response never requested", IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE },
		{ "Write past the buffer end", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS },
		{ "Send too long for the buffer", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_TOO_LONG },
	};
	static uint8_t mem[256], big[70000];
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		fake_peer f;
		log_reset(l);
		iw_conn *r = fake_responder(IW_PROFILE_RFC5044, &f, l);
		memset(mem, 0x33, sizeof mem);
		CHECK_EQ(iw_conn_register(r, 7, 0, mem, sizeof mem, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
		CHECK_EQ(iw_conn_register(r, 8, 0, mem, sizeof mem, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
		/* A valid first FPDU, so rule 4 lets the responder answer with a Terminate. */
		iw_ddp_hdr h = fake_untagged(p, IW_OP_SEND, 0, 1);
		fake_fpdu(&f, &h, (const uint8_t *)"ok", 2, NULL);
		switch (k) {
		case 0:
			h = fake_untagged(p, IW_OP_SEND, 0, 2);
			h.dv = 0;
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 1:
			h = fake_tagged(p, IW_OP_WRITE, 99, 0);
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 2:
			h = fake_tagged(p, IW_OP_WRITE, 7, 0);
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 3:
			h = fake_untagged(p, IW_OP_SEND, 5, 1);
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 4: {
			uint8_t five[5] = { 0x41, 0x43, 0, 0, 0 };
			size_t w;
			CHECK_EQ(iw_mpa_tx_fpdu(&f.tx, five, 5, NULL, 0, NULL, f.buf + f.len, CAP_BYTES - f.len, &w,
						NULL), IW_OK);
			f.len += w;
			break;
		}
		case 5:
			h = fake_untagged(p, IW_OP_SEND, 1, 1);
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 6:
			h = fake_tagged(p, IW_OP_READ_RESP, 8, 0);
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 7:
			h = fake_tagged(p, IW_OP_WRITE, 8, 250);
			fake_fpdu(&f, &h, (const uint8_t *)"0123456789", 10, NULL);
			break;
		case 8:
			/* 65536-octet receive buffers; one Send message of 65537 octets. */
			h = fake_untagged(p, IW_OP_SEND, 0, 2);
			h.last = false;
			fake_fpdu(&f, &h, big, 60000, NULL);
			h.last = true;
			h.mo = 60000;
			fake_fpdu(&f, &h, big, 5537, NULL);
			break;
		}
		/* Then a valid Send and a valid Write that must never be delivered or placed. */
		h = fake_untagged(p, IW_OP_SEND, 0, 3);
		fake_fpdu(&f, &h, (const uint8_t *)"late", 4, NULL);
		h = fake_tagged(p, IW_OP_WRITE, 8, 0);
		fake_fpdu(&f, &h, (const uint8_t *)"LATE", 4, NULL);
		fake_deliver(&f, r, l);

		CHECK_EQ(log_count(l, IW_EV_SEND), 1);
		CHECK_EQ(log_count(l, IW_EV_WRITE), 0);
		CHECK(memcmp(mem, "LATE", 4) != 0);     /* DDP-9.1-03 */
		CHECK_EQ(mem[250], 0x33);               /* DDP-10.1-01: nothing of the bad Write */
		const iw_conn_event *ev = log_find(l, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			if (ev->viol.layer != want[k].layer || ev->viol.etype != want[k].etype ||
			    ev->viol.ecode != want[k].ecode)
				check_fail(__FILE__, __LINE__, "%s: got %d/%d/%d (%s: %s)", want[k].what,
					   ev->viol.layer, ev->viol.etype, ev->viol.ecode,
					   ev->viol.req ? ev->viol.req : "-", ev->viol.detail);
			CHECK(ev->viol.req != NULL);
		}
		CHECK(iw_conn_wants_close(r));
		/* Exactly one Terminate went out, with the error's layer, type and code. */
		size_t n;
		const uint8_t *o = iw_conn_output_peek(r, &n);
		wire_seg seg[4];
		CHECK_EQ(wire_parse(p, false, true, o, n, seg, 4), 1);
		CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
		CHECK_EQ(seg[0].ddp.qn, IW_QN_TERMINATE);
		CHECK_EQ(seg[0].ddp.msn, 1);
		const uint8_t *body = o + 2 + IW_DDP_UNTAGGED_HDR_LEN;
		CHECK_EQ(body[0], (uint8_t)(want[k].layer << 4 | want[k].etype));
		CHECK_EQ(body[1], want[k].ecode);
		/* RFC 5040 §4.8: DDP and RDMAP errors on a whole header carry it (D). */
		CHECK_EQ((body[2] & IW_RDMAP_TERM_D) != 0, k != 4);
		free(f.buf);
		iw_conn_free(r);
	}
	free(l->data);
	free(l);
}

TEST(conn_send_with_invalidate)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	fake_peer f;
	iw_conn *r = fake_responder(IW_PROFILE_RFC5044, &f, l);
	static uint8_t mem[64];
	CHECK_EQ(iw_conn_register(r, 0x01020304, 0, mem, sizeof mem, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
	iw_ddp_hdr h = fake_untagged(p, IW_OP_SEND_SE_INV, 0, 1);
	h.rsvdulp[1] = 1, h.rsvdulp[2] = 2, h.rsvdulp[3] = 3, h.rsvdulp[4] = 4;
	fake_fpdu(&f, &h, (const uint8_t *)"bye", 3, NULL);
	h = fake_tagged(p, IW_OP_WRITE, 0x01020304, 0);
	fake_fpdu(&f, &h, (const uint8_t *)"w", 1, NULL);
	fake_deliver(&f, r, l);
	const iw_conn_event *ev = log_find(l, IW_EV_SEND, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_EQ(ev->opcode, IW_OP_SEND_SE_INV);
	const iw_tagged_buf *b = iw_sink_find(iw_conn_sink(r), 0x01020304);
	CHECK(b && !b->valid);
	ev = log_find(l, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_STR(ev->viol.req, "DDP-9.1-T2");  /* the invalidated STag */
		CHECK_EQ(ev->viol.ecode, IW_DDP_EC_INVALID_STAG);
	}
	CHECK_EQ(mem[0], 0);
	free(f.buf);
	iw_conn_free(r);
	free(l->data);
	free(l);
}

/* ---- culley-mpa-02 ---- */

TEST(conn_culley_immediate_start)
{
	conn_pair *pp = pair_default(IW_PROFILE_CULLEY_MPA_02);
	CHECK_EQ(iw_conn_state(pp->i), IW_CS_FULL);
	CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
	iw_conn_params a;
	iw_conn_params_get(pp->r, &a);
	CHECK(a.markers_tx && a.markers_rx && a.crc);       /* MC §7.1, §7.2: always */
	CHECK_EQ(a.mulpdu, 1442);                           /* MPA-3.1.1-F1 */
	/* No rule 4 here: the responder may speak first. */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"first", 5, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"x", 1, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	/* MPAc-8.1-04: marker 00 00 00 00, then ULPDU_Length 19 (18 + 1). */
	uint8_t head[6] = { 0, 0, 0, 0, 0, 19 };
	CHECK(n >= 6);
	CHECK_MEM(o, head, 6);
	o = iw_conn_output_peek(pp->r, &n);
	CHECK_MEM(o, head, 4);
	pump(pp, 1);
	const iw_conn_event *x = log_find(&pp->li, IW_EV_SEND, 0), *y = log_find(&pp->lr, IW_EV_SEND, 0);
	CHECK(x && y);
	if (x && y) {
		CHECK_MEM(x->data, "first", 5);
		CHECK_MEM(y->data, "x", 1);
	}
	pair_free(pp);
}

/* ---- RFC 6581 ---- */

TEST(conn_rfc6581_rtr_each_type)
{
	static const unsigned offers[] = { IW_RTR_SEND | IW_RTR_WRITE | IW_RTR_READ, IW_RTR_READ, IW_RTR_SEND,
					   IW_RTR_SEND | IW_RTR_READ };
	static const unsigned picked[] = { IW_RTR_WRITE, IW_RTR_READ, IW_RTR_SEND, IW_RTR_READ };
	static const unsigned opcode[] = { IW_OP_WRITE, IW_OP_READ_REQ, IW_OP_SEND, IW_OP_READ_REQ };
	for (size_t k = 0; k < 4; k++) {
		iw_conn_config ci = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
		iw_conn_config cr = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
		ci.p2p = true;
		ci.rtr = offers[k];
		conn_pair *pp = pair_new(&ci, &cr);
		pump(pp, k == 1 ? 1 : 0);
		/* The Reply echoes A and picks one RTR. */
		CHECK(pp->n_r2i >= 24);
		const uint8_t *rep = pp->cap_r2i;
		CHECK(rep[16] & IW_MPA_FLAG_ENHANCED);
		CHECK_EQ(rep[17], 2);
		CHECK(rep[20] & 0x80);
		CHECK_EQ((rep[20] & 0x40) != 0, picked[k] == IW_RTR_SEND);
		CHECK_EQ((rep[22] & 0x80) != 0, picked[k] == IW_RTR_WRITE);
		CHECK_EQ((rep[22] & 0x40) != 0, picked[k] == IW_RTR_READ);
		/* The initiator's first FPDU is the zero-length RTR message. */
		wire_seg seg[4];
		size_t ns = wire_parse(iw_profile_get(IW_PROFILE_RFC6581), false, true, pp->cap_i2r + 24,
				       pp->n_i2r - 24, seg, 4);
		CHECK_EQ(ns, 1);
		CHECK_EQ(seg[0].opcode, opcode[k]);
		CHECK_EQ(seg[0].ulpdu_len, picked[k] == IW_RTR_WRITE ? 14u : picked[k] == IW_RTR_READ ? 46u : 18u);
		/* It released the responder and reached no ULP. */
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
		CHECK_EQ(log_count(&pp->lr, IW_EV_WRITE) + log_count(&pp->lr, IW_EV_SEND) +
				 log_count(&pp->lr, IW_EV_READ_SERVICED), 0);
		CHECK_EQ(log_count(&pp->li, IW_EV_READ_DONE) + log_count(&pp->li, IW_EV_ERROR), 0);
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"go", 2, NULL), IW_OK);
		pump(pp, 0);
		CHECK_EQ(log_count(&pp->li, IW_EV_SEND), 1);
		/* Only the first message is the RTR: later zero-length ones reach the ULP. */
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_OK);
		CHECK_EQ(iw_conn_write(pp->i, 1, 0, NULL, 0, NULL), IW_OK);
		iw_read_req rr0 = { .sink_stag = 1, .size = 0, .src_stag = 1 };
		CHECK_EQ(iw_conn_read(pp->i, &rr0, NULL), IW_OK);
		pump(pp, 0);
		CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 1);
		CHECK_EQ(log_count(&pp->lr, IW_EV_WRITE), 1);
		CHECK_EQ(log_count(&pp->lr, IW_EV_READ_SERVICED), 1);
		CHECK_EQ(log_count(&pp->li, IW_EV_READ_DONE), 1);
		pair_free(pp);
	}
}

TEST(conn_rfc6581_no_matching_rtr)
{
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	ci.p2p = true;
	ci.rtr = IW_RTR_WRITE;
	cr.rtr = IW_RTR_SEND;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 0);
	const iw_conn_event *ev = log_find(&pp->li, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
		CHECK_EQ(ev->viol.etype, 0);
		CHECK_EQ(ev->viol.ecode, IW_MPA_E_NO_MATCHING_RTR);
	}
	CHECK_EQ(log_count(&pp->li, IW_EV_FULL_OPERATION), 0);
	CHECK_EQ(log_count(&pp->li, IW_EV_CLOSE), 1);
	const iw_conn_event *t = log_find(&pp->lr, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ(t->term.layer, IW_LAYER_LLP);
		CHECK_EQ(t->term.ecode, 7);
	}
	CHECK(iw_conn_wants_close(pp->r));
	pair_free(pp);
}

TEST(conn_rfc6581_ird_ord_and_rev1_peer)
{
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	ci.ird = 4;
	ci.ord = 8;
	cr.ird = 16;
	cr.ord = 2;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 0);
	iw_conn_params a, b;
	iw_conn_params_get(pp->i, &a);
	iw_conn_params_get(pp->r, &b);
	CHECK_EQ(b.ird, 8);
	CHECK_EQ(b.ord, 2);
	CHECK_EQ(a.ord, b.ird);                     /* what one side may ask, the other answers */
	CHECK_EQ(a.ird, b.ord);
	pair_free(pp);

	/* A Rev 1 (RFC 5044) Request gets a Rev 1 Reply without the Enhanced block. */
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), IW_MPA_REQUEST);
	uint8_t fr[20];
	size_t n;
	CHECK_EQ(iw_mpa_frame_encode(&f, fr, sizeof fr, &n, NULL), IW_OK);
	CHECK_EQ(iw_conn_input(r, fr, n), 20);
	log_drain(r, l);
	CHECK_EQ(log_count(l, IW_EV_FRAME_ACCEPTED), 1);
	const uint8_t *o = iw_conn_output_peek(r, &n);
	CHECK_EQ(n, 20);
	CHECK_EQ(o[16] & IW_MPA_FLAG_ENHANCED, 0);
	CHECK_EQ(o[17], 1);
	iw_conn_free(r);
	free(l->data);
	free(l);
}

/* ---- queues and limits ---- */

TEST(conn_events_ring_keeps_oldest)
{
	conn_pair *pp = pair_default(IW_PROFILE_RFC5044);
	pump(pp, 0);
	for (int k = 0; k < 100; k++)
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)&k, sizeof k, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(iw_conn_input(pp->r, o, n), n);    /* 100 Sends, 8 buffers: reposted as delivered */
	iw_conn_event ev;
	size_t got = 0;
	int first = -1, last = -1;
	while (iw_conn_next_event(pp->r, &ev)) {
		CHECK_EQ(ev.kind, IW_EV_SEND);
		if (ev.kind != IW_EV_SEND)
			continue;
		if (got == 0)
			memcpy(&first, ev.data, sizeof first);
		memcpy(&last, ev.data, sizeof last);
		got++;
	}
	CHECK_EQ(got, IW_CONN_MAX_EVENTS);
	CHECK_EQ(iw_conn_events_lost(pp->r), 100 - IW_CONN_MAX_EVENTS);
	CHECK_EQ(first, 0);
	CHECK_EQ(last, IW_CONN_MAX_EVENTS - 1);     /* the data of every kept event is intact */
	pair_free(pp);
}

TEST(conn_output_queue_full_is_enospc)
{
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	ci.out_cap = 4096;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 0);
	static uint8_t msg[10000];
	iw_err e;
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, &e), IW_ENOSPC);
	size_t n;
	iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(n, 0);                             /* never a partial message */
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_ENOSPC);
	pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_OK);
	pump(pp, 0);
	CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 2);
	/* Only Send and Send with SE go through iw_conn_send. */
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_WRITE, msg, 1, &e), IW_EINVAL);
	pair_free(pp);

	iw_conn *c = NULL;
	ci.out_cap = 100;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_EINVAL);
	ci.out_cap = 4096;
	ci.recv_buffers = 33;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_EINVAL);
	CHECK(c == NULL);
}

TEST(conn_peer_close_half_close)
{
	conn_pair *pp = pair_default(IW_PROFILE_RFC5044);
	pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"last", 4, NULL), IW_OK);
	pump(pp, 0);
	iw_conn_peer_closed(pp->r);
	log_drain(pp->r, &pp->lr);
	const iw_conn_event *ev = log_find(&pp->lr, IW_EV_PEER_CLOSED, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_EQ(ev->viol.ecode, IW_MPA_E_TCP_LOST);
	CHECK(log_index(&pp->lr, IW_EV_PEER_CLOSED) < log_index(&pp->lr, IW_EV_CLOSE));
	CHECK(iw_conn_wants_close(pp->r));
	/* A38: the echo may still go out on the open half. */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"last", 4, NULL), IW_OK);
	pump(pp, 0);
	CHECK_EQ(log_count(&pp->li, IW_EV_SEND), 1);
	CHECK_EQ(iw_conn_input(pp->r, (const uint8_t *)"x", 1), 0);
	iw_conn_peer_closed(pp->r);
	log_drain(pp->r, &pp->lr);
	CHECK_EQ(log_count(&pp->lr, IW_EV_PEER_CLOSED), 1);
	pair_free(pp);
}

/* ---- robustness ---- */

/* Invariants every run must keep, whatever the input. */
static void check_invariants(iw_conn *c, conn_log *l)
{
	size_t err = l->n;
	for (size_t i = 0; i < l->n; i++) {
		enum iw_conn_ev_kind k = l->ev[i].kind;
		CHECK(k >= IW_EV_FRAME_ACCEPTED && k <= IW_EV_PEER_CLOSED);
		if ((k == IW_EV_ERROR || k == IW_EV_FRAME_REJECTED) && err == l->n)
			err = i;
		/* MPA-7-08, DDP-9.1-03: nothing delivered or placed after the first error. */
		if (i > err)
			CHECK(k != IW_EV_SEND && k != IW_EV_WRITE && k != IW_EV_READ_DONE && k != IW_EV_READ_SERVICED);
	}
	CHECK_EQ(log_count(l, IW_EV_CLOSE) > 0, iw_conn_wants_close(c));
	CHECK(log_count(l, IW_EV_CLOSE) <= 1);
	if (iw_conn_wants_close(c))
		CHECK_EQ(iw_conn_input(c, (const uint8_t *)"z", 1), 0);
}

static void feed_random_chunks(iw_conn *c, conn_log *l, const uint8_t *s, size_t n)
{
	size_t off = 0;
	while (off < n) {
		size_t k = 1 + rnd() % (rnd() % 4 == 0 ? 1 : 700);
		if (k > n - off)
			k = n - off;
		size_t used = iw_conn_input(c, s + off, k);
		CHECK(used <= k);
		log_drain(c, l);
		size_t on;
		iw_conn_output_peek(c, &on);
		iw_conn_output_consume(c, rnd() % 2 ? on : on / 2);
		off += k;
	}
}

TEST(conn_random_garbage_never_crashes)
{
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	uint8_t *buf = malloc(4096);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (int role = 0; role < 2; role++) {
			for (int it = 0; it < 150; it++) {
				iw_conn_config cfg = cfg_for((enum iw_profile_id)id, (enum iw_role)role);
				cfg.want_markers = rnd() & 1;
				static uint8_t reg[512];
				iw_conn *c = NULL;
				CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
				if (!c)
					continue;
				CHECK_EQ(iw_conn_start(c, NULL), IW_OK);
				iw_conn_register(c, rnd() % 4, 0, reg, sizeof reg,
						 IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL);
				size_t n = 0;
				if (p->startup_frames && it % 2) {
					/* Past the startup, so the garbage reaches the FPDU decoder. */
					iw_mpa_frame f;
					iw_mpa_frame_init(&f, p, role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST
											  : IW_MPA_REPLY);
					f.m = rnd() & 1;
					f.c = rnd() & 1;
					iw_mpa_frame_encode(&f, buf, 64, &n, NULL);
				}
				size_t len = n + rnd() % 3000;
				for (size_t b = n; b < len; b++)
					buf[b] = (uint8_t)rnd();
				if (it % 3 == 0) {
					/* Plausible lengths make the decoder go deeper. */
					for (size_t b = n; b + 2 < len; b += 2 + rnd() % 100) {
						buf[b] = 0;
						buf[b + 1] = (uint8_t)(rnd() % 64);
					}
				}
				log_reset(l);
				log_drain(c, l);
				feed_random_chunks(c, l, buf, len);
				if (rnd() % 2) {
					iw_conn_peer_closed(c);
					log_drain(c, l);
				}
				check_invariants(c, l);
				iw_conn_free(c);
			}
		}
	}
	free(buf);
	free(l->data);
	free(l);
}

/* A conversation the initiator sends: its Request and a mix of every message kind. */
static size_t record_initiator_stream(enum iw_profile_id id, uint8_t *out, size_t cap, uint8_t *reply,
				      size_t *reply_len, bool markers)
{
	iw_conn_config ci = cfg_for(id, IW_ROLE_INITIATOR), cr = cfg_for(id, IW_ROLE_RESPONDER);
	ci.want_markers = markers;
	cr.want_markers = markers;
	conn_pair *pp = pair_new(&ci, &cr);
	static uint8_t remote[8192], local[8192], msg[5000];
	pattern(msg, sizeof msg, 9);
	iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE,
			 NULL);
	iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL);
	pump(pp, 0);
	iw_conn_send(pp->i, IW_OP_SEND, msg, 100, NULL);
	iw_conn_write(pp->i, 0x200, 64, msg, 3000, NULL);
	iw_read_req rr = { 0x100, 0, 3000, 0x200, 64 };
	iw_conn_read(pp->i, &rr, NULL);
	iw_conn_send(pp->i, IW_OP_SEND_SE, msg, 0, NULL);
	iw_conn_send(pp->i, IW_OP_SEND, msg, 5000, NULL);
	pump(pp, 0);
	CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), 3);
	CHECK_EQ(log_count(&pp->li, IW_EV_READ_DONE), 1);
	size_t n = pp->n_i2r < cap ? pp->n_i2r : cap;
	memcpy(out, pp->cap_i2r, n);
	*reply_len = pp->n_r2i < cap ? pp->n_r2i : cap;
	memcpy(reply, pp->cap_r2i, *reply_len);
	pair_free(pp);
	return n;
}

TEST(conn_random_mutations_never_crash)
{
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	size_t cap = 64 * 1024;
	uint8_t *good = malloc(cap), *bad = malloc(cap), *rgood = malloc(cap);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		for (int mk = 0; mk < 2; mk++) {
			size_t rlen;
			size_t n = record_initiator_stream((enum iw_profile_id)id, good, cap, rgood, &rlen, mk);
			for (int it = 0; it < 120; it++) {
				bool to_resp = it % 2 == 0;
				const uint8_t *src = to_resp ? good : rgood;
				size_t len = to_resp ? n : rlen;
				memcpy(bad, src, len);
				int muts = 1 + (int)(rnd() % 4);
				for (int m = 0; m < muts && len; m++) {
					size_t at = rnd() % len;
					switch (rnd() % 3) {
					case 0: bad[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
					case 1: bad[at] = (uint8_t)rnd(); break;
					default: len = at + (len - at) / 2; break;     /* truncate */
					}
				}
				iw_conn_config cfg = cfg_for((enum iw_profile_id)id,
							     to_resp ? IW_ROLE_RESPONDER : IW_ROLE_INITIATOR);
				cfg.want_markers = mk;
				iw_conn *c = NULL;
				CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
				if (!c)
					continue;
				static uint8_t remote[8192], local[8192];
				iw_conn_register(c, to_resp ? 0x200 : 0x100, 0, to_resp ? remote : local, 8192,
						 to_resp ? IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE : 0, NULL);
				CHECK_EQ(iw_conn_start(c, NULL), IW_OK);
				if (!to_resp) {
					/* Its Request is "sent"; the recorded Reply stream follows. */
					size_t on;
					iw_conn_output_peek(c, &on);
					iw_conn_output_consume(c, on);
				}
				log_reset(l);
				log_drain(c, l);
				feed_random_chunks(c, l, bad, len);
				check_invariants(c, l);
				iw_conn_free(c);
			}
			/* Unmutated, the responder takes the whole stream without an error. */
			iw_conn_config cfg = cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			cfg.want_markers = mk;
			iw_conn *c = NULL;
			CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
			static uint8_t remote2[8192];
			iw_conn_register(c, 0x200, 0, remote2, sizeof remote2,
					 IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL);
			log_reset(l);
			feed_random_chunks(c, l, good, n);
			CHECK_EQ(log_count(l, IW_EV_ERROR), 0);
			CHECK_EQ(log_count(l, IW_EV_SEND), 3);
			CHECK_EQ(log_count(l, IW_EV_READ_SERVICED), 1);
			iw_conn_free(c);
		}
	}
	free(good);
	free(bad);
	free(rgood);
	free(l->data);
	free(l);
}

/* ---- the paths a well-behaved peer never takes ---- */

/* An initiator model that has accepted the fake peer's default Reply (M=0, C=1). */
static iw_conn *fake_initiator(enum iw_profile_id id, fake_peer *f, conn_log *l, size_t out_cap)
{
	const iw_profile *p = iw_profile_get(id);
	iw_conn_config ci = cfg_for(id, IW_ROLE_INITIATOR);
	iw_conn *c = NULL;
	iw_err e;
	if (out_cap)
		ci.out_cap = out_cap;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_OK);
	CHECK_EQ(iw_conn_start(c, &e), IW_OK);
	size_t n;
	iw_conn_output_peek(c, &n);
	iw_conn_output_consume(c, n);
	fake_init(f, p, false, true);
	iw_mpa_frame rp;
	iw_mpa_frame_init(&rp, p, IW_MPA_REPLY);
	fake_frame(f, &rp);
	fake_deliver(f, c, l);
	CHECK_EQ(iw_conn_state(c), IW_CS_FULL);
	log_reset(l);
	return c;
}

TEST(conn_read_response_must_match_the_request)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	static uint8_t local[256];
	for (int k = 0; k < 3; k++) {
		fake_peer f;
		iw_conn *c = fake_initiator(IW_PROFILE_RFC5044, &f, l, 0);
		CHECK_EQ(iw_conn_register(c, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
		CHECK_EQ(iw_conn_register(c, 0x101, 0, local, sizeof local, 0, NULL), IW_OK);
		iw_read_req rr = { .sink_stag = 0x100, .sink_to = 16, .size = 32, .src_stag = 9, .src_to = 0 };
		CHECK_EQ(iw_conn_read(c, &rr, NULL), IW_OK);
		memset(local, 0, sizeof local);
		/* k 0: another local STag; k 1: past the requested range; k 2: right. */
		iw_ddp_hdr h = fake_tagged(p, IW_OP_READ_RESP, k == 0 ? 0x101 : 0x100, k == 1 ? 40 : 16);
		fake_fpdu(&f, &h, (const uint8_t *)"0123456789abcdef0123456789abcdef", 32, NULL);
		fake_deliver(&f, c, l);
		const iw_conn_event *ev = log_find(l, IW_EV_ERROR, 0);
		if (k == 2) {
			CHECK(ev == NULL);
			CHECK_EQ(log_count(l, IW_EV_READ_DONE), 1);
			CHECK_MEM(local + 16, "0123456789abcdef", 16);
		} else {
			CHECK(ev != NULL);
			if (ev)
				CHECK_EQ(ev->viol.ecode, k == 0 ? IW_DDP_EC_INVALID_STAG : IW_DDP_EC_BASE_BOUNDS);
			CHECK_EQ(local[16], 0);         /* nothing placed */
		}
		free(f.buf);
		iw_conn_free(c);
	}
	free(l->data);
	free(l);
}

TEST(conn_malformed_messages)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	for (int k = 0; k < 3; k++) {
		fake_peer f;
		iw_conn *r = fake_responder(IW_PROFILE_RFC5044, &f, l);
		iw_ddp_hdr h;
		if (k == 0) {
			/* Send with Invalidate of an STag never registered. */
			h = fake_untagged(p, IW_OP_SEND_INV, 0, 1);
			h.rsvdulp[4] = 0x77;
			fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
		} else if (k == 1) {
			/* A Read Request body of 20 octets. */
			h = fake_untagged(p, IW_OP_READ_REQ, 1, 1);
			static uint8_t body[20];
			fake_fpdu(&f, &h, body, sizeof body, NULL);
		} else {
			/* A Terminate of 2 octets: reported, never answered with a Terminate. */
			h = fake_untagged(p, IW_OP_TERMINATE, 2, 1);
			fake_fpdu(&f, &h, (const uint8_t *)"\x10\x00", 2, NULL);
		}
		fake_deliver(&f, r, l);
		const iw_conn_event *ev = log_find(l, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
			CHECK_EQ(ev->viol.ecode, k == 0 ? IW_RDMAP_EC_CANNOT_INVALIDATE : IW_RDMAP_EC_UNSPECIFIED);
		}
		CHECK(iw_conn_wants_close(r));
		size_t n;
		const uint8_t *o = iw_conn_output_peek(r, &n);
		wire_seg seg[2];
		CHECK_EQ(wire_parse(p, false, true, o, n, seg, 2), k == 2 ? 0u : 1u);
		CHECK_EQ(log_count(l, IW_EV_SEND) + log_count(l, IW_EV_READ_SERVICED) + log_count(l, IW_EV_TERMINATE),
			 0);
		free(f.buf);
		iw_conn_free(r);
	}
	free(l->data);
	free(l);
}

TEST(conn_read_too_big_for_output_and_ord_limit)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	/* A responder whose output queue cannot hold the Read Response: a local catastrophic
	 * error, not a partial answer. */
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.out_cap = 2048;
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	static uint8_t mem[8192];
	CHECK_EQ(iw_conn_register(r, 5, 0, mem, sizeof mem, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
	fake_peer f;
	fake_init(&f, p, false, true);
	iw_mpa_frame rq;
	iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
	fake_frame(&f, &rq);
	iw_ddp_hdr h = fake_untagged(p, IW_OP_READ_REQ, 1, 1);
	iw_read_req rr = { .sink_stag = 1, .sink_to = 0, .size = sizeof mem, .src_stag = 5, .src_to = 0 };
	uint8_t body[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(&rr, body);
	fake_fpdu(&f, &h, body, sizeof body, NULL);
	fake_deliver(&f, r, l);
	const iw_conn_event *ev = log_find(l, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
		CHECK_EQ(ev->viol.etype, IW_RDMAP_ET_CATASTROPHIC);
	}
	size_t n;
	const uint8_t *o = iw_conn_output_peek(r, &n);
	wire_seg seg[4];
	CHECK_EQ(wire_parse(p, false, true, o + 20, n - 20, seg, 4), 1);
	CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
	free(f.buf);
	iw_conn_free(r);

	/* ORD 16 in RFC 5044: the 17th outstanding Read is refused. */
	iw_conn *c = fake_initiator(IW_PROFILE_RFC5044, &f, l, 0);
	rr.size = 1;
	for (int k = 0; k < 16; k++)
		CHECK_EQ(iw_conn_read(c, &rr, NULL), IW_OK);
	CHECK_EQ(iw_conn_read(c, &rr, NULL), IW_ENOSPC);
	free(f.buf);
	iw_conn_free(c);
	free(l->data);
	free(l);
}

TEST(conn_output_queue_compacts_and_keeps_order)
{
	/* A small queue consumed in odd pieces forces the pending octets to move; the stream
	 * must still decode, with the held part of a responder's queue kept behind the hold. */
	iw_conn_config ci = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.out_cap = 1024;
	ci.out_cap = 1024;
	conn_pair *pp = pair_new(&ci, &cr);
	move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 0);
	/* The responder's Reply is pending; queue a held greeting and take the Reply in two. */
	static uint8_t msg[600];
	pattern(msg, sizeof msg, 1);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 500, NULL), IW_OK);
	move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 19);
	/* 388 octets of FPDU + the Terminate reserve fit only once the consumed 19 are reused. */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 364, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 1);                             /* only the rest of the Reply is visible */
	CHECK_EQ(o[0], 0x00);                       /* PD_Length's low octet */
	CHECK_EQ(move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 5), 1);
	iw_conn_output_consume(pp->r, 5);           /* more than visible: clamped to nothing */
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	pump(pp, 0);
	CHECK_EQ(log_count(&pp->li, IW_EV_FULL_OPERATION), 1);
	CHECK_EQ(log_count(&pp->li, IW_EV_SEND), 0);
	int sends = 0;
	for (int round = 0; round < 20; round++) {
		if (iw_conn_send(pp->i, IW_OP_SEND, msg, 100 + (size_t)round * 20, NULL) == IW_OK)
			sends++;
		move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 97);
		move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 97);
	}
	pump(pp, 0);
	CHECK_EQ(log_count(&pp->lr, IW_EV_SEND), (size_t)sends);
	CHECK_EQ(log_count(&pp->lr, IW_EV_ERROR) + log_count(&pp->li, IW_EV_ERROR), 0);
	for (int k = 0; k < sends; k++) {
		const iw_conn_event *ev = log_find(&pp->lr, IW_EV_SEND, (size_t)k);
		if (ev)
			CHECK_MEM(ev->data, msg, ev->len);
	}
	const iw_conn_event *g = log_find(&pp->li, IW_EV_SEND, 1);
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ(g->len, 364);
		CHECK_MEM(g->data, msg, 364);
	}
	pair_free(pp);
}

TEST(conn_send_data_survives_buffer_reuse)
{
	/* One 100-octet receive buffer, three Sends in one input: the buffer is reposted and
	 * refilled, but each event's data was copied out first. */
	iw_conn_config ci = cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_INITIATOR);
	iw_conn_config cr = cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_RESPONDER);
	cr.recv_buffers = 1;
	cr.recv_buffer_size = 100;
	conn_pair *pp = pair_new(&ci, &cr);
	pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"AAAA", 4, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"BBBBBB", 6, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"CC", 2, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(iw_conn_input(pp->r, o, n), n);
	iw_conn_event ev[3];
	for (int k = 0; k < 3; k++) {
		CHECK(iw_conn_next_event(pp->r, &ev[k]));
		CHECK_EQ(ev[k].kind, IW_EV_SEND);
		if (ev[k].kind != IW_EV_SEND) {
			pair_free(pp);
			return;
		}
	}
	CHECK_MEM(ev[0].data, "AAAA", 4);
	CHECK_MEM(ev[1].data, "BBBBBB", 6);
	CHECK_MEM(ev[2].data, "CC", 2);
	/* A fourth over the buffer: the arena is full, yet nothing breaks. */
	static uint8_t big[100];
	iw_conn_output_consume(pp->i, n);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, big, sizeof big, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, big, 99, NULL), IW_OK);
	o = iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(iw_conn_input(pp->r, o, n), n);
	CHECK(iw_conn_next_event(pp->r, &ev[0]));
	CHECK(iw_conn_next_event(pp->r, &ev[1]));
	CHECK_EQ(ev[0].len, 100);
	CHECK_EQ(ev[1].len, 99);
	CHECK(!iw_conn_wants_close(pp->r));
	pair_free(pp);
}
