/*
 * test_conn_negotiation.c - what the startup frames negotiate (suite/engine/iw_conn.h): markers each
 * way, CRC, and RFC 6581's RTR and IRD/ORD, each checked on the wire by an independent decoder.
 */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

/* ---- negotiation ---- */

TEST(conn_marker_negotiation_all_four)
{
	enum iw_profile_id ids[] = { IW_PROFILE_RDDP_MPA_01, IW_PROFILE_RFC5044, IW_PROFILE_RFC6581 };
	for (size_t pi = 0; pi < 3; pi++) {
		const iw_profile *p = iw_profile_get(ids[pi]);
		for (int mi = 0; mi < 2; mi++) {
			for (int mr = 0; mr < 2; mr++) {
				iw_conn_config ci = cf_cfg_for(ids[pi], IW_ROLE_INITIATOR);
				iw_conn_config cr = cf_cfg_for(ids[pi], IW_ROLE_RESPONDER);
				ci.want_markers = mi;
				cr.want_markers = mr;
				conn_pair *pp = cf_pair_new(&ci, &cr);
				cf_pump(pp, 0);
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
				cf_pattern(msg, sizeof msg, 3);
				CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
				size_t n;
				const uint8_t *o = iw_conn_output_peek(pp->i, &n);
				/* MPA-6.1-R7: with markers the first full-operation octets are a marker
				 * 00 00 00 00; without, ULPDU_Length (here MULPDU, never zero). */
				CHECK(n > 4);
				CHECK_EQ(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0, mr);
				cf_pump(pp, 0);
				CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
				o = iw_conn_output_peek(pp->r, &n);
				CHECK_EQ(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0, mi);
				cf_pump(pp, 0);
				const iw_conn_event *x = cf_log_find(&pp->lr, IW_EV_SEND, 0);
				const iw_conn_event *y = cf_log_find(&pp->li, IW_EV_SEND, 0);
				CHECK(x && y);
				if (x && y) {
					CHECK_EQ(x->len, sizeof msg);
					CHECK_MEM(x->data, msg, sizeof msg);
					CHECK_EQ(y->len, sizeof msg);
					CHECK_MEM(y->data, msg, sizeof msg);
				}
				/* An independent decoder agrees with the negotiated markers. */
				size_t req_len = cf_frame_len(p, 0, p->enhanced);
				wire_seg segs[8];
				size_t ns = cf_wire_parse(p, mr, true, pp->cap_i2r + req_len, pp->n_i2r - req_len, segs, 8);
				CHECK_EQ(ns, (sizeof msg + a.mulpdu - 18 - 1) / (a.mulpdu - 18));
				for (size_t s = 0; s < ns && s < 8; s++)
					CHECK(segs[s].ulpdu_len <= a.mulpdu);       /* DDP-7.2-01 */
				cf_pair_free(pp);
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
			iw_conn_config ci = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_INITIATOR);
			iw_conn_config cr = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			ci.want_crc = cases[k].i_want;
			ci.crc_admin_off = cases[k].i_admin;
			cr.crc_admin_off = cases[k].r_admin;
			conn_pair *pp = cf_pair_new(&ci, &cr);
			size_t n;
			const uint8_t *o = iw_conn_output_peek(pp->i, &n);
			CHECK_EQ((o[16] & IW_MPA_FLAG_C) != 0, cases[k].req_c);
			cf_move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 0);
			o = iw_conn_output_peek(pp->r, &n);
			CHECK(n >= 20);
			CHECK_EQ((o[16] & IW_MPA_FLAG_C) != 0, cases[k].rep_c);
			cf_pump(pp, 0);
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
			cf_log_drain(pp->r, &pp->lr);
			if (cases[k].crc) {
				const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_ERROR, 0);
				CHECK(ev != NULL);
				if (ev) {
					CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
					CHECK_EQ(ev->viol.ecode, IW_MPA_E_CRC);
				}
				CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 0);
			} else {
				CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);
				CHECK_EQ(cf_log_count(&pp->lr, IW_EV_ERROR), 0);
			}
			cf_pair_free(pp);
		}
	}
}

/* ---- RFC 6581 ---- */

TEST(conn_rfc6581_rtr_each_type)
{
	static const unsigned offers[] = { IW_RTR_SEND | IW_RTR_WRITE | IW_RTR_READ, IW_RTR_READ, IW_RTR_SEND,
					   IW_RTR_SEND | IW_RTR_READ };
	static const unsigned picked[] = { IW_RTR_WRITE, IW_RTR_READ, IW_RTR_SEND, IW_RTR_READ };
	static const unsigned opcode[] = { IW_OP_WRITE, IW_OP_READ_REQ, IW_OP_SEND, IW_OP_READ_REQ };
	for (size_t k = 0; k < 4; k++) {
		iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
		iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
		ci.p2p = true;
		ci.rtr = offers[k];
		conn_pair *pp = cf_pair_new(&ci, &cr);
		cf_pump(pp, k == 1 ? 1 : 0);
		/* The Reply echoes A and sets each offered RTR type (all supported); the initiator
		 * picks one. */
		CHECK(pp->n_r2i >= 24);
		const uint8_t *rep = pp->cap_r2i;
		CHECK(rep[16] & IW_MPA_FLAG_ENHANCED);
		CHECK_EQ(rep[17], 2);
		CHECK(rep[20] & 0x80);
		CHECK_EQ((rep[20] & 0x40) != 0, (offers[k] & IW_RTR_SEND) != 0);
		CHECK_EQ((rep[22] & 0x80) != 0, (offers[k] & IW_RTR_WRITE) != 0);
		CHECK_EQ((rep[22] & 0x40) != 0, (offers[k] & IW_RTR_READ) != 0);
		/* The initiator's first FPDU is the zero-length RTR message. */
		wire_seg seg[4];
		size_t ns = cf_wire_parse(iw_profile_get(IW_PROFILE_RFC6581), false, true, pp->cap_i2r + 24,
					  pp->n_i2r - 24, seg, 4);
		CHECK_EQ(ns, 1);
		CHECK_EQ(seg[0].opcode, opcode[k]);
		CHECK_EQ(seg[0].ulpdu_len, picked[k] == IW_RTR_WRITE ? 14u : picked[k] == IW_RTR_READ ? 46u : 18u);
		/* It released the responder and reached no ULP. */
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_WRITE) + cf_log_count(&pp->lr, IW_EV_SEND) +
				 cf_log_count(&pp->lr, IW_EV_READ_SERVICED), 0);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_READ_DONE) + cf_log_count(&pp->li, IW_EV_ERROR), 0);
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"go", 2, NULL), IW_OK);
		cf_pump(pp, 0);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_SEND), 1);
		/* Only the first message is the RTR: later zero-length ones reach the ULP. */
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_OK);
		CHECK_EQ(iw_conn_write(pp->i, 1, 0, NULL, 0, NULL), IW_OK);
		iw_read_req rr0 = { .sink_stag = 1, .size = 0, .src_stag = 1 };
		CHECK_EQ(iw_conn_read(pp->i, &rr0, NULL), IW_OK);
		cf_pump(pp, 0);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_WRITE), 1);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_READ_SERVICED), 1);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_READ_DONE), 1);
		cf_pair_free(pp);
	}
}

TEST(conn_rfc6581_no_matching_rtr)
{
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	/* A responder that supports no RTR type sets none in its Reply (it breaks RFC6581-9.2-11):
	 * the initiator has nothing to generate and ends with code 7 (RFC6581-9.2-06). */
	ci.p2p = true;
	ci.rtr = IW_RTR_WRITE;
	cr.rtr = 0;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
		CHECK_EQ(ev->viol.etype, 0);
		CHECK_EQ(ev->viol.ecode, IW_MPA_E_NO_MATCHING_RTR);
	}
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_FULL_OPERATION), 0);
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_CLOSE), 1);
	const iw_conn_event *t = cf_log_find(&pp->lr, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ(t->term.layer, IW_LAYER_LLP);
		CHECK_EQ(t->term.ecode, 7);
	}
	CHECK(iw_conn_wants_close(pp->r));
	cf_pair_free(pp);
}

TEST(conn_rfc6581_ird_ord_and_rev1_peer)
{
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	ci.ird = 4;
	ci.ord = 8;
	cr.ird = 16;
	cr.ord = 2;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	iw_conn_params a, b;
	iw_conn_params_get(pp->i, &a);
	iw_conn_params_get(pp->r, &b);
	CHECK_EQ(b.ird, 8);
	CHECK_EQ(b.ord, 2);
	CHECK_EQ(a.ord, b.ird);                     /* what one side may ask, the other answers */
	CHECK_EQ(a.ird, b.ord);
	cf_pair_free(pp);

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
	cf_log_drain(r, l);
	CHECK_EQ(cf_log_count(l, IW_EV_FRAME_ACCEPTED), 1);
	const uint8_t *o = iw_conn_output_peek(r, &n);
	CHECK_EQ(n, 20);
	CHECK_EQ(o[16] & IW_MPA_FLAG_ENHANCED, 0);
	CHECK_EQ(o[17], 1);
	iw_conn_free(r);
	free(l->data);
	free(l);
}
