/*
 * test_conn_startup.c - the connection model's startup (suite/engine/iw_conn.h): both sides of every
 * profile reaching full operation, the Request's octets, private data both ways, rule 4 (the
 * responder silent until the first FPDU) and culley-mpa-02's immediate start.
 */
#include "conn_fixture.h"

#include <string.h>

/* ---- startup ---- */

TEST(conn_startup_every_profile)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (size_t ci = 0; ci < 2; ci++) {
			conn_pair *pp = cf_pair_default((enum iw_profile_id)id);
			cf_pump(pp, cf_chunks[ci]);
			if (p->startup_frames) {
				CHECK_EQ(cf_log_count(&pp->li, IW_EV_FRAME_ACCEPTED), 1);
				CHECK_EQ(cf_log_count(&pp->lr, IW_EV_FRAME_ACCEPTED), 1);
				/* MPA-6.1-R3d: the initiator is in full operation; MPA-6.1-R4: the
				 * responder waits for the first FPDU. */
				CHECK_EQ(iw_conn_state(pp->i), IW_CS_FULL);
				CHECK_EQ(iw_conn_state(pp->r), IW_CS_AWAIT_FIRST_FPDU);
			} else {
				CHECK_EQ(pp->n_i2r + pp->n_r2i, 0);     /* MPAc-8.1-03: no frames */
				CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
			}
			CHECK_EQ(cf_log_count(&pp->li, IW_EV_FULL_OPERATION), 1);
			CHECK_EQ(cf_log_count(&pp->lr, IW_EV_FULL_OPERATION), 1);
			CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"ping", 4, NULL), IW_OK);
			cf_pump(pp, cf_chunks[ci]);
			const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_SEND, 0);
			CHECK(ev != NULL);
			if (ev) {
				CHECK_EQ(ev->len, 4);
				CHECK_MEM(ev->data, "ping", 4);
				CHECK_EQ(ev->msn, 1);       /* DDP-6.3-09 */
				CHECK_EQ(ev->opcode, IW_OP_SEND);
			}
			CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
			CHECK(!iw_conn_wants_close(pp->i) && !iw_conn_wants_close(pp->r));
			cf_pair_free(pp);
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
		iw_conn_config ci = cf_cfg_for(want[k].id, IW_ROLE_INITIATOR);
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
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
	ci.pd = (const uint8_t *)"hello";
	ci.pd_len = 5;
	cr.pd = (const uint8_t *)"welcome!";
	cr.pd_len = 8;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 1);
	const iw_conn_event *a = cf_log_find(&pp->lr, IW_EV_FRAME_ACCEPTED, 0);
	const iw_conn_event *b = cf_log_find(&pp->li, IW_EV_FRAME_ACCEPTED, 0);
	CHECK(a && b);
	if (a && b) {
		CHECK_EQ(a->frame.pd_len, 5);
		CHECK_MEM(a->frame.pd, "hello", 5);     /* MPA-6.1-R9c: exactly PD_Length octets */
		CHECK(a->frame.has_irdord);
		CHECK_EQ(b->frame.pd_len, 8);
		CHECK_MEM(b->frame.pd, "welcome!", 8);
	}
	cf_pair_free(pp);

	/* A private data larger than the profile allows is refused at creation. */
	iw_conn *c = NULL;
	static uint8_t big[600];
	ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	ci.pd = big;
	ci.pd_len = sizeof big;
	iw_err e;
	CHECK_EQ(iw_conn_new(&c, &ci, &e), IW_EINVAL);
	CHECK(c == NULL);
}

/* ---- rule 4 ---- */

TEST(conn_rule4_responder_silent_until_first_fpdu)
{
	for (size_t ci = 0; ci < 2; ci++) {
		conn_pair *pp = cf_pair_default(IW_PROFILE_RFC5044);
		cf_pump(pp, cf_chunks[ci]);
		/* The reflector's greeting, queued as soon as full operation is announced. */
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"greeting", 8, NULL), IW_OK);
		size_t n;
		iw_conn_output_peek(pp->r, &n);
		CHECK_EQ(n, 0);                         /* MPA-6.1-R4 */
		CHECK_EQ(pp->n_r2i, 20);                /* the Reply and nothing else */
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_AWAIT_FIRST_FPDU);
		cf_pump(pp, cf_chunks[ci]);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_SEND), 0);

		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"hi", 2, NULL), IW_OK);
		cf_pump(pp, cf_chunks[ci]);
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
		const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_SEND, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->len, 8);
			CHECK_MEM(ev->data, "greeting", 8);
		}
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);
		cf_pair_free(pp);
	}
}

TEST(conn_rule4_bad_first_fpdu_releases_nothing)
{
	conn_pair *pp = cf_pair_default(IW_PROFILE_RDDP_MPA_01);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"greeting", 8, NULL), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"hello", 5, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	uint8_t bad[64];
	memcpy(bad, o, n);
	bad[2 + 18 + 1] ^= 0x01;                    /* a payload bit: CRC mismatch */
	iw_conn_input(pp->r, bad, n);
	iw_conn_output_consume(pp->i, n);
	cf_log_drain(pp->r, &pp->lr);
	const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_STR(ev->viol.req, "MPA-5.2-14");
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_CLOSE), 1);
	CHECK(iw_conn_wants_close(pp->r));
	/* Rule 4 never let the responder speak: no greeting, and no Terminate either. */
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	cf_pair_free(pp);
}

/* ---- culley-mpa-02 ---- */

TEST(conn_culley_immediate_start)
{
	conn_pair *pp = cf_pair_default(IW_PROFILE_CULLEY_MPA_02);
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
	cf_pump(pp, 1);
	const iw_conn_event *x = cf_log_find(&pp->li, IW_EV_SEND, 0), *y = cf_log_find(&pp->lr, IW_EV_SEND, 0);
	CHECK(x && y);
	if (x && y) {
		CHECK_MEM(x->data, "first", 5);
		CHECK_MEM(y->data, "x", 1);
	}
	cf_pair_free(pp);
}
