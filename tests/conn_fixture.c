/* Helpers of the connection-model tests (conn_fixture.h). */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "mpa_rx.h"

void cf_log_drain(iw_conn *c, conn_log *l)
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

size_t cf_log_count(const conn_log *l, enum iw_conn_ev_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->ev[i].kind == k;
	return n;
}

/* The nth event of kind k (0-based), or NULL. */
const iw_conn_event *cf_log_find(const conn_log *l, enum iw_conn_ev_kind k, size_t nth)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].kind == k && nth-- == 0)
			return &l->ev[i];
	return NULL;
}

/* Index of the first event of kind k, or l->n. */
size_t cf_log_index(const conn_log *l, enum iw_conn_ev_kind k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].kind == k)
			return i;
	return l->n;
}

void cf_log_reset(conn_log *l)
{
	l->n = 0;
	l->dlen = 0;
}

iw_conn_config cf_cfg_for(enum iw_profile_id id, enum iw_role role)
{
	iw_conn_config c;
	iw_conn_config_default(&c, iw_profile_get(id), role);
	return c;
}

conn_pair *cf_pair_new(const iw_conn_config *ci, const iw_conn_config *cr)
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

conn_pair *cf_pair_default(enum iw_profile_id id)
{
	iw_conn_config ci = cf_cfg_for(id, IW_ROLE_INITIATOR), cr = cf_cfg_for(id, IW_ROLE_RESPONDER);
	return cf_pair_new(&ci, &cr);
}

void cf_pair_free(conn_pair *pp)
{
	iw_conn_free(pp->i);
	iw_conn_free(pp->r);
	free(pp->li.data);
	free(pp->lr.data);
	free(pp->cap_i2r);
	free(pp->cap_r2i);
	free(pp);
}

size_t cf_move1(iw_conn *src, iw_conn *dst, conn_log *dl, uint8_t *cap, size_t *ncap, size_t chunk)
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
	cf_log_drain(dst, dl);
	iw_conn_output_consume(src, n);
	return n;
}

/* Moves output both ways until both sides are quiet; chunk 0 moves everything at once. */
void cf_pump(conn_pair *pp, size_t chunk)
{
	for (long guard = 0; guard < 20000000; guard++) {
		size_t moved = cf_move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, chunk);
		moved += cf_move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, chunk);
		cf_log_drain(pp->i, &pp->li);
		cf_log_drain(pp->r, &pp->lr);
		if (!moved)
			return;
	}
	check_fail(__FILE__, __LINE__, "pump never went quiet");
}

/* Decodes the FPDUs of a captured direction; returns how many, or (size_t)-1 on an MPA error. */
size_t cf_wire_parse(const iw_profile *p, bool markers, bool crc, const uint8_t *s, size_t n, wire_seg *out,
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
size_t cf_frame_len(const iw_profile *p, size_t pd_len, bool enhanced_block)
{
	if (!p->startup_frames)
		return 0;
	return IW_MPA_FRAME_HDR_LEN + pd_len + (enhanced_block ? IW_MPA_IRDORD_LEN : 0);
}

void cf_fake_init(fake_peer *f, const iw_profile *p, bool markers, bool crc)
{
	f->p = p;
	iw_mpa_tx_init(&f->tx, p, markers, crc);
	f->buf = malloc(CAP_BYTES);
	f->len = 0;
}

void cf_fake_frame(fake_peer *f, const iw_mpa_frame *fr)
{
	size_t n;
	CHECK_EQ(iw_mpa_frame_encode(fr, f->buf + f->len, CAP_BYTES - f->len, &n, NULL), IW_OK);
	f->len += n;
}

void cf_fake_fpdu(fake_peer *f, const iw_ddp_hdr *h, const uint8_t *pl, size_t n, const iw_fpdu_mods *mods)
{
	uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl, w;
	CHECK_EQ(iw_ddp_hdr_encode(h, hb, sizeof hb, &hl, NULL), IW_OK);
	CHECK_EQ(iw_mpa_tx_fpdu(&f->tx, hb, hl, pl, n, mods, f->buf + f->len, CAP_BYTES - f->len, &w, NULL), IW_OK);
	f->len += w;
}

iw_ddp_hdr cf_fake_untagged(const iw_profile *p, unsigned opcode, uint32_t qn, uint32_t msn)
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

iw_ddp_hdr cf_fake_tagged(const iw_profile *p, unsigned opcode, uint32_t stag, uint64_t to)
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
iw_conn *cf_fake_responder(enum iw_profile_id id, fake_peer *f, conn_log *l)
{
	const iw_profile *p = iw_profile_get(id);
	iw_conn_config cr = cf_cfg_for(id, IW_ROLE_RESPONDER);
	iw_conn *r = NULL;
	iw_err e;
	CHECK_EQ(iw_conn_new(&r, &cr, &e), IW_OK);
	CHECK_EQ(iw_conn_start(r, &e), IW_OK);
	cf_fake_init(f, p, false, true);
	if (p->startup_frames) {
		iw_mpa_frame rq;
		iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
		cf_fake_frame(f, &rq);
		CHECK_EQ(iw_conn_input(r, f->buf, f->len), f->len);
		f->len = 0;
	}
	size_t n;
	iw_conn_output_peek(r, &n);
	iw_conn_output_consume(r, n);
	cf_log_drain(r, l);
	cf_log_reset(l);
	return r;
}

/* Feeds what the fake peer built and drains the events. */
size_t cf_fake_deliver(fake_peer *f, iw_conn *c, conn_log *l)
{
	size_t used = iw_conn_input(c, f->buf, f->len);
	cf_log_drain(c, l);
	f->len = 0;
	return used;
}

/* An initiator model that has accepted the fake peer's default Reply (M=0, C=1). */
iw_conn *cf_fake_initiator(enum iw_profile_id id, fake_peer *f, conn_log *l, size_t out_cap)
{
	const iw_profile *p = iw_profile_get(id);
	iw_conn_config ci = cf_cfg_for(id, IW_ROLE_INITIATOR);
	iw_conn *c = NULL;
	iw_err e;
	if (out_cap)
		ci.out_cap = out_cap;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_OK);
	CHECK_EQ(iw_conn_start(c, &e), IW_OK);
	size_t n;
	iw_conn_output_peek(c, &n);
	iw_conn_output_consume(c, n);
	cf_fake_init(f, p, false, true);
	iw_mpa_frame rp;
	iw_mpa_frame_init(&rp, p, IW_MPA_REPLY);
	cf_fake_frame(f, &rp);
	cf_fake_deliver(f, c, l);
	CHECK_EQ(iw_conn_state(c), IW_CS_FULL);
	cf_log_reset(l);
	return c;
}

void cf_pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

const size_t cf_chunks[] = { 0, 1 };
