/*
 * test_conn_bad_startup.c - startup frames a conforming peer never sends (suite/engine/iw_conn.h): a
 * bad key, Rev or PD_Length, a Request where the Reply belongs, a rejecting Reply, and FPDUs in
 * the same input as the Request.
 */
#include "conn_fixture.h"

#include <stdlib.h>

/* ---- bad startup frames ---- */

TEST(conn_bad_request_key_closes_without_reply)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	for (int k = 0; k <= 16; k++) {
		for (size_t ci = 0; ci < 2; ci++) {
			iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
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
			if (cf_chunks[ci]) {
				for (size_t b = 0; b < n; b++)
					used += iw_conn_input(r, fr + b, 1);
			} else {
				used = iw_conn_input(r, fr, n);
			}
			/* Rejected once the header is in: the PD is not waited for (MPA-7-06). */
			CHECK_EQ(used, 20);
			conn_log *l = calloc(1, sizeof *l);
			l->data = malloc(LOG_DATA);
			cf_log_drain(r, l);
			const iw_conn_event *ev = cf_log_find(l, IW_EV_FRAME_REJECTED, 0);
			CHECK(ev != NULL);
			if (ev) {
				CHECK_STR(ev->viol.req, k == 16 ? "MPA-6.1-R8a" : "MPA-6.1-R5");
				CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
				CHECK_EQ(ev->viol.ecode, IW_MPA_E_STARTUP);
			}
			CHECK_EQ(cf_log_count(l, IW_EV_CLOSE), 1);
			CHECK_EQ(cf_log_count(l, IW_EV_FRAME_ACCEPTED), 0);
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
		iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
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
		cf_log_reset(l);
		cf_log_drain(r, l);
		CHECK_EQ(l->n, 0);
		CHECK_EQ(iw_conn_input(r, fr + 19, 1), 1);
		cf_log_drain(r, l);
		const iw_conn_event *ev = cf_log_find(l, IW_EV_FRAME_REJECTED, 0);
		CHECK(ev != NULL);
		if (ev)
			CHECK_STR(ev->viol.req, k == 0 ? "MPA-6.1.1-07" : "MPA-6.1-R9a");
		iw_conn_output_peek(r, &n);
		CHECK_EQ(n, 0);
		iw_conn_free(r);
	}

	/* A frame that stops inside its private data, then the peer closes: close, no Reply. */
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_RESPONDER);
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
	cf_log_reset(l);
	cf_log_drain(r, l);
	CHECK_EQ(cf_log_count(l, IW_EV_PEER_CLOSED), 1);
	CHECK_EQ(cf_log_count(l, IW_EV_CLOSE), 1);
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
		conn_pair *pp = cf_pair_default(IW_PROFILE_RDDP_MPA_01);
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
		cf_log_drain(pp->i, &pp->li);
		const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_FRAME_REJECTED, 0);
		CHECK(ev != NULL);
		if (ev)
			CHECK_STR(ev->viol.req, k == 0 ? "MPA-6.1-R8a" : k == 1 ? "MPA-6.1.1-07" : "MPA-6.1-R5");
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_CLOSE), 1);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_FULL_OPERATION), 0);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);
		iw_conn_output_peek(pp->i, &n);
		CHECK_EQ(n, 0);                     /* MPA-6.1-R3b: no FPDU */
		cf_pair_free(pp);
	}
}

TEST(conn_reply_r1_is_peer_reject)
{
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.reject = true;
	cr.pd = (const uint8_t *)"no";
	cr.pd_len = 2;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 1);
	const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_PEER_REJECT, 0);
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
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_FULL_OPERATION) + cf_log_count(&pp->lr, IW_EV_FULL_OPERATION), 0);
	/* A10: TCP is left to the ULP. */
	CHECK(!iw_conn_wants_close(pp->i) && !iw_conn_wants_close(pp->r));
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, NULL, 0, NULL), IW_ESTATE);

	/* MPA-6.1-R2e: what follows is not FPDUs, so a valid-looking Send delivers nothing. */
	fake_peer f;
	cf_fake_init(&f, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	iw_ddp_hdr h = cf_fake_untagged(f.p, IW_OP_SEND, 0, 1);
	cf_fake_fpdu(&f, &h, (const uint8_t *)"data", 4, NULL);
	size_t fl = f.len;
	CHECK_EQ(cf_fake_deliver(&f, pp->r, &pp->lr), fl);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 0);
	size_t n;
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	free(f.buf);
	cf_pair_free(pp);
}

TEST(conn_octets_after_request_are_fpdus)
{
	/* A6: a Request and an FPDU in one input; the FPDU is processed after the Reply. */
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	fake_peer f;
	cf_fake_init(&f, p, false, true);
	iw_mpa_frame rq;
	iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
	rq.res = 0x1F;                              /* MPA-6.1.1-05: not checked */
	rq.r = true;                                /* MPA-6.1.1-R1: not checked in a Request */
	cf_fake_frame(&f, &rq);
	iw_ddp_hdr h = cf_fake_untagged(p, IW_OP_SEND, 0, 1);
	cf_fake_fpdu(&f, &h, (const uint8_t *)"early", 5, NULL);
	size_t fl = f.len;
	CHECK_EQ(cf_fake_deliver(&f, r, l), fl);
	CHECK_EQ(cf_log_count(l, IW_EV_FRAME_ACCEPTED), 1);
	const iw_conn_event *ev = cf_log_find(l, IW_EV_SEND, 0);
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
