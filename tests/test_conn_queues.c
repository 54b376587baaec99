/*
 * test_conn_queues.c - the connection model's queues and limits (suite/engine/iw_conn.h): the event
 * ring, a full output queue, half close, a Read Response too big for the queue and the ORD
 * limit, the output queue compacting in order and growing to its limit (iw_grow.h), and Send
 * data copied out before its buffer is reused, kept as the arena grows.
 */
#include "conn_fixture.h"
#include "iw_grow.h"

#include <stdlib.h>
#include <string.h>

/* ---- queues and limits ---- */

TEST(conn_events_ring_keeps_oldest)
{
	conn_pair *pp = cf_pair_default(IW_PROFILE_RFC5044);
	cf_pump(pp, 0);
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
	cf_pair_free(pp);
}

TEST(conn_output_queue_full_is_enospc)
{
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	ci.out_cap = 4096;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	static uint8_t msg[10000];
	iw_err e;
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, &e), IW_ENOSPC);
	size_t n;
	iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(n, 0);                             /* never a partial message */
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_OK);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_ENOSPC);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 3000, &e), IW_OK);
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 2);
	/* Only Send and Send with SE go through iw_conn_send. */
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_WRITE, msg, 1, &e), IW_EINVAL);
	cf_pair_free(pp);

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
	conn_pair *pp = cf_pair_default(IW_PROFILE_RFC5044);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, (const uint8_t *)"last", 4, NULL), IW_OK);
	cf_pump(pp, 0);
	iw_conn_peer_closed(pp->r);
	cf_log_drain(pp->r, &pp->lr);
	const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_PEER_CLOSED, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_EQ(ev->viol.ecode, IW_MPA_E_TCP_LOST);
	CHECK(cf_log_index(&pp->lr, IW_EV_PEER_CLOSED) < cf_log_index(&pp->lr, IW_EV_CLOSE));
	CHECK(iw_conn_wants_close(pp->r));
	/* A38: the echo may still go out on the open half. */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, (const uint8_t *)"last", 4, NULL), IW_OK);
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_SEND), 1);
	CHECK_EQ(iw_conn_input(pp->r, (const uint8_t *)"x", 1), 0);
	iw_conn_peer_closed(pp->r);
	cf_log_drain(pp->r, &pp->lr);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_PEER_CLOSED), 1);
	cf_pair_free(pp);
}

TEST(conn_read_too_big_for_output_and_ord_limit)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	/* A responder whose output queue cannot hold the Read Response: a local catastrophic
	 * error, not a partial answer. */
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.out_cap = 2048;
	iw_conn *r = NULL;
	CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
	static uint8_t mem[8192];
	CHECK_EQ(iw_conn_register(r, 5, 0, mem, sizeof mem, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
	fake_peer f;
	cf_fake_init(&f, p, false, true);
	iw_mpa_frame rq;
	iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
	cf_fake_frame(&f, &rq);
	iw_ddp_hdr h = cf_fake_untagged(p, IW_OP_READ_REQ, 1, 1);
	iw_read_req rr = { .sink_stag = 1, .sink_to = 0, .size = sizeof mem, .src_stag = 5, .src_to = 0 };
	uint8_t body[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(&rr, body);
	cf_fake_fpdu(&f, &h, body, sizeof body, NULL);
	cf_fake_deliver(&f, r, l);
	const iw_conn_event *ev = cf_log_find(l, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
		CHECK_EQ(ev->viol.etype, IW_RDMAP_ET_CATASTROPHIC);
	}
	size_t n;
	const uint8_t *o = iw_conn_output_peek(r, &n);
	wire_seg seg[4];
	CHECK_EQ(cf_wire_parse(p, false, true, o + 20, n - 20, seg, 4), 1);
	CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
	free(f.buf);
	iw_conn_free(r);

	/* ORD 16 in RFC 5044: the 17th outstanding Read is refused. */
	iw_conn *c = cf_fake_initiator(IW_PROFILE_RFC5044, &f, l, 0);
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
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.out_cap = 1024;
	ci.out_cap = 1024;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 0);
	/* The responder's Reply is pending; queue a held greeting and take the Reply in two. */
	static uint8_t msg[600];
	cf_pattern(msg, sizeof msg, 1);
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 500, NULL), IW_OK);
	cf_move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 19);
	/* 388 octets of FPDU + the Terminate reserve fit only once the consumed 19 are reused. */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 364, NULL), IW_OK);
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 1);                             /* only the rest of the Reply is visible */
	CHECK_EQ(o[0], 0x00);                       /* PD_Length's low octet */
	CHECK_EQ(cf_move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 5), 1);
	iw_conn_output_consume(pp->r, 5);           /* more than visible: clamped to nothing */
	iw_conn_output_peek(pp->r, &n);
	CHECK_EQ(n, 0);
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_FULL_OPERATION), 1);
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_SEND), 0);
	int sends = 0;
	for (int round = 0; round < 20; round++) {
		if (iw_conn_send(pp->i, IW_OP_SEND, msg, 100 + (size_t)round * 20, NULL) == IW_OK)
			sends++;
		cf_move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 97);
		cf_move1(pp->r, pp->i, &pp->li, pp->cap_r2i, &pp->n_r2i, 97);
	}
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), (size_t)sends);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_ERROR) + cf_log_count(&pp->li, IW_EV_ERROR), 0);
	for (int k = 0; k < sends; k++) {
		const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_SEND, (size_t)k);
		if (ev)
			CHECK_MEM(ev->data, msg, ev->len);
	}
	const iw_conn_event *g = cf_log_find(&pp->li, IW_EV_SEND, 1);
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ(g->len, 364);
		CHECK_MEM(g->data, msg, 364);
	}
	cf_pair_free(pp);
}

TEST(grow_size_doubles_to_the_cap)
{
	/* iw_grow.h: from first when empty, doubled until want fits, never past cap. */
	CHECK_EQ(iw_grow_size(0, 8, 1, 96), (size_t)8);
	CHECK_EQ(iw_grow_size(8, 8, 9, 96), (size_t)16);
	CHECK_EQ(iw_grow_size(4096, 4096, 20000, 1u << 20), (size_t)32768);
	CHECK_EQ(iw_grow_size(64, 8, 65, 96), (size_t)96);          /* a doubling past cap stops at it */
	CHECK_EQ(iw_grow_size(96, 8, 97, 96), (size_t)96);          /* at cap: no more */
	CHECK_EQ(iw_grow_size(0, 4096, 10, 1000), (size_t)1000);    /* first larger than cap */
	CHECK_EQ(iw_grow_size((size_t)1 << 62, 1, ((size_t)1 << 62) + 1, (size_t)-1), (size_t)1 << 63);
	CHECK_EQ(iw_grow_size((size_t)1 << 63, 1, ((size_t)1 << 63) + 1, (size_t)-1), (size_t)-1);  /* no overflow */
}

TEST(conn_output_queue_grows_to_its_limit)
{
	/* The queue starts small and grows as output is queued, never past out_cap: Sends queued
	 * without being taken (well past the first allocation) arrive whole and in order, and the
	 * one that would pass the limit is refused whole. */
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	ci.out_cap = 256u << 10;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	static uint8_t msg[30000];
	cf_pattern(msg, sizeof msg, 7);
	iw_err e;
	int sent = 0, refused = 0;
	for (int k = 0; k < 9; k++) {
		int rc = iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, &e);
		if (rc == IW_OK)
			sent++;
		else if (rc == IW_ENOSPC)
			refused++;
	}
	size_t n;
	iw_conn_output_peek(pp->i, &n);
	CHECK(n >= (size_t)sent * sizeof msg);
	CHECK(n <= ci.out_cap);
	CHECK(sent >= 4);                           /* 120 KB and more: grown past 64 KB */
	CHECK_EQ(refused, 9 - sent);                /* 9 x 30000 octets pass 256 KB */
	CHECK(refused >= 1);
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), (size_t)sent);
	for (int k = 0; k < sent; k++) {
		const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_SEND, (size_t)k);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->len, sizeof msg);
			CHECK_MEM(ev->data, msg, sizeof msg);
		}
	}
	cf_pair_free(pp);
}

TEST(conn_send_data_survives_buffer_reuse)
{
	/* One 100-octet receive buffer, three Sends in one input: the buffer is reposted and
	 * refilled, but each event's data was copied out first. */
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RDDP_MPA_01, IW_ROLE_RESPONDER);
	cr.recv_buffers = 1;
	cr.recv_buffer_size = 100;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
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
			cf_pair_free(pp);
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
	cf_pair_free(pp);
}

TEST(conn_send_data_survives_arena_growth)
{
	/* The arena that keeps Send data starts at 4 KB and grows within one input. Six Sends of
	 * 3000 octets in one input, each with its buffer reposted and refilled: the arena moves as
	 * it grows, and every event taken afterwards still points at its own octets. */
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	cr.recv_buffers = 8;
	cr.recv_buffer_size = 4000;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	static uint8_t msg[6][3000];
	for (unsigned k = 0; k < 6; k++) {
		cf_pattern(msg[k], sizeof msg[k], 20 + k);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg[k], sizeof msg[k], NULL), IW_OK);
	}
	size_t n;
	const uint8_t *o = iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(iw_conn_input(pp->r, o, n), n);
	iw_conn_event ev[6];
	for (unsigned k = 0; k < 6; k++) {
		CHECK(iw_conn_next_event(pp->r, &ev[k]));
		CHECK_EQ(ev[k].kind, IW_EV_SEND);
		CHECK_EQ(ev[k].len, sizeof msg[k]);
	}
	for (unsigned k = 0; k < 6; k++)
		if (ev[k].kind == IW_EV_SEND && ev[k].len == sizeof msg[k])
			CHECK_MEM(ev[k].data, msg[k], sizeof msg[k]);
	/* 18000 octets in one input: the first allocation (4 KB) held one Send, so the arena
	 * moved at least twice; a second input reuses it from the start. */
	iw_conn_output_consume(pp->i, n);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg[5], 10, NULL), IW_OK);
	o = iw_conn_output_peek(pp->i, &n);
	CHECK_EQ(iw_conn_input(pp->r, o, n), n);
	CHECK(iw_conn_next_event(pp->r, &ev[0]));
	CHECK_EQ(ev[0].len, 10);
	CHECK_MEM(ev[0].data, msg[5], 10);
	cf_pair_free(pp);
}
